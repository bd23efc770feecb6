#!/usr/bin/env bash
# As root: makes sure the unprivileged user that the rootless tests run as
# exists and has subordinate uid/gid ranges (rootless podman needs them).
# Prints the user's name. As any other user: prints nothing.
set -euo pipefail
[ "$(id -u)" -eq 0 ] || exit 0
user=${ANALYST_TEST_ROOTLESS_USER:-analyst-ci}
if ! id "$user" >/dev/null 2>&1; then
  useradd --create-home --shell /bin/bash "$user" >&2
fi
if ! grep -q "^$user:" /etc/subuid 2>/dev/null || ! grep -q "^$user:" /etc/subgid 2>/dev/null; then
  usermod --add-subuids 200000-265535 --add-subgids 200000-265535 "$user" >&2
fi
echo "$user"
