#!/usr/bin/env bash
# Runs the kernel and pipeline tests again as an unprivileged user, so every
# isolation test, and a whole run, also runs against rootless podman. As root, it creates the user
# analyst-ci (with subordinate ids) if needed; as any other user the main
# test run was already rootless and there is nothing to add. With a folder
# as its argument it writes each package's counts there (for make test's
# closing line).
set -euo pipefail
cd "$(dirname "$0")/.."
counts=${1:-}

if [ "$(id -u)" -ne 0 ]; then
  echo "test-rootless: already running as $(id -un): the kernel tests above ran rootless"
  exit 0
fi

user=$(scripts/rootless-user.sh)

dir=$(mktemp -d /tmp/analyst-rootless.XXXXXX)
trap 'rm -rf "$dir"' EXIT
# The kernel tests (every isolation property) and the pipeline tests (a
# whole run, rootless, prompt injection included) as test binaries the user
# can execute. The agent loop and verify run rootful only: what they test
# (the conversation, the comparison of outputs) does not depend on the
# sandbox's mode, and the kernel tests run the model's kind of code rootless.
go test -c -o "$dir/kernel.test" ./kernel/
go test -c -o "$dir/pipeline.test" ./pipeline/
# And the CLI's kernel scripts: the binary itself, killed and signalled,
# leaves no container behind (cmd/testdata/script/kernel_*.txtar).
go test -c -o "$dir/cmd.test" ./cmd/
cp -r kernel/driver "$dir/driver"
# The docs tests find the module's root by its go.mod and read the pages.
cp go.mod README.md "$dir/"
cp -r docs "$dir/docs"
mkdir -p "$dir/testdata/script"
cp cmd/testdata/script/kernel_*.txtar "$dir/testdata/script/"
chmod -R a+rX "$dir"
go build -o "$dir/testsum" ./internal/tools/testsum

for pkg in kernel pipeline cmd; do
  echo "test-rootless: running the $pkg tests as $user (rootless podman)"
  run=
  [ "$pkg" = cmd ] && run="-test.run=^TestScripts$"
  # The exploration's agent logic and the notebooks' re-execution under
  # nbconvert do not depend on the sandbox's mode and run rootful above;
  # rootless, the pipeline tests are the whole runs and what they isolate
  # (make test stays under 40 minutes).
  [ "$pkg" = pipeline ] && run="-test.skip='^TestExplore|InJupyter\$'"
  status=0
  su "$user" -s /bin/bash -c "cd '$dir' && ANALYST_CACHE_DIR='${ANALYST_CACHE_DIR:-}' ANALYST_TEST_ROOTFS='${ANALYST_TEST_ROOTFS:-}' ./$pkg.test -test.count=1 -test.timeout=20m -test.v=test2json $run" 2>&1 |
    go tool test2json -t -p "rootless/$pkg" |
    "$dir/testsum" ${counts:+-counts "$counts/rootless-$pkg.json"} || status=$?
  if [ "$status" -ne 0 ]; then
    echo "test-rootless: $pkg FAILED (exit $status)"
    exit "$status"
  fi
done
