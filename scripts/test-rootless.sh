#!/usr/bin/env bash
# Runs the kernel tests again as an unprivileged user, so every isolation
# test also runs against rootless podman. As root, it creates the user
# analyst-ci (with subordinate ids) if needed; as any other user the main
# test run was already rootless and there is nothing to add.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
  echo "test-rootless: already running as $(id -un): the kernel tests above ran rootless"
  exit 0
fi

user=$(scripts/rootless-user.sh)

dir=$(mktemp -d /tmp/analyst-rootless.XXXXXX)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/kernel.test" ./kernel/
cp -r kernel/driver "$dir/driver"
chmod -R a+rX "$dir"

echo "test-rootless: running the kernel tests as $user (rootless podman)"
status=0
su "$user" -s /bin/bash -c "cd '$dir' && ANALYST_CACHE_DIR='${ANALYST_CACHE_DIR:-}' ANALYST_TEST_ROOTFS='${ANALYST_TEST_ROOTFS:-}' ./kernel.test -test.count=1 -test.timeout=20m -test.v" >"$dir/out.txt" 2>&1 || status=$?
grep -E '^(--- |PASS$|FAIL|ok|panic)|^\s+\S+_test\.go' "$dir/out.txt" || true
if [ "$status" -ne 0 ]; then
  echo "test-rootless: FAILED (exit $status)"
  tail -50 "$dir/out.txt"
  exit "$status"
fi
passed=$(grep -c '^--- PASS' "$dir/out.txt" || true)
skipped=$(grep -c '^--- SKIP' "$dir/out.txt" || true)
echo "test-rootless: $passed passed, 0 failed, $skipped skipped"
