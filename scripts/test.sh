#!/usr/bin/env bash
# make test after its checks: builds the kernel image while the tests
# compile, then runs groups of tests at the same time, each summed up by
# internal/tools/testsum (failures whole, skips for missing data, each
# package's time, counts), and ends with one line of counts for all:
#
# - the rootful tests that start kernels: first the kernel package alone
#   (its fork-bomb tests fill the sandbox uid's process limit, which every
#   rootful kernel shares), then pipeline beside the other packages, one at
#   a time (-p 1) on that side;
# - kernel/image, whose tests build root filesystems from the Debian mirror
#   and start no kernel;
# - examples/eval/slurm, a one-node Slurm cluster running eval shards
#   (ANALYST_TEST_SLURM: here a missing slurm-wlm fails it), beside
#   pipeline; and examples/eval/kubernetes, a module of its own, first;
# - the rootless tests (scripts/test-rootless.sh, as an unprivileged user),
#   whose sandboxes are another host user, with a podman store, containers
#   and process limits of their own.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
BIN=${BIN:-bin/analyst}
out=out/test
rm -rf "$out" && mkdir -p "$out"

echo "make test: building the kernel image (log: $out/kernel-build.log) while the tests compile"
"$BIN" kernel build >"$out/kernel-build.log" 2>&1 &
build=$!
compiled=0
"$GO" vet ./... && "$GO" test -c -o "$out/bin/" ./... >/dev/null || compiled=$?
if ! wait "$build"; then
	cat "$out/kernel-build.log"
	echo "make test: the kernel image did not build"
	exit 1
fi
tail -1 "$out/kernel-build.log"
[ "$compiled" -eq 0 ] || exit 1
"$GO" build -o "$out/testsum" ./internal/tools/testsum || exit 1
examples=0
(cd examples/eval/kubernetes && "$GO" vet ./... && "$GO" test -json -count=1 ./... 2>&1) | "$out/testsum" -counts "$out/kubernetes.json" || examples=1

export ANALYST_TEST_ROOTLESS_USER
ANALYST_TEST_ROOTLESS_USER=$(scripts/rootless-user.sh) || exit 1
scripts/test-rootless.sh "$out" >"$out/rootless.log" 2>&1 &
rootless=$!
# group NAME PACKAGES...: the packages' tests, one package at a time.
group() {
	local name=$1
	shift
	"$GO" test -json -count=1 -p 1 -timeout 40m "$@" 2>&1 | "$out/testsum" -counts "$out/$name.json"
}
group image ./kernel/image/ >"$out/image.log" 2>&1 &
image=$!
group kernel ./kernel/
rootful=$?
group pipeline ./pipeline/ >"$out/pipeline.log" 2>&1 &
pipeline=$!
ANALYST_TEST_SLURM=require group slurm ./examples/eval/slurm/ >"$out/slurm.log" 2>&1 &
slurm=$!
group rootful $("$GO" list ./... | grep -v -e '/kernel/image$' -e '/kernel$' -e '/pipeline$' -e '/examples/eval/slurm$') || rootful=1
wait "$pipeline" || rootful=1
cat "$out/pipeline.log"
wait "$slurm" || rootful=1
cat "$out/slurm.log"

echo "make test: the rootful tests ended ($rootful); waiting for kernel/image's and the rootless ones"
wait "$image"
image=$?
cat "$out/image.log"
wait "$rootless"
rootless=$?
cat "$out/rootless.log"
"$out/testsum" -total "$out"/*.json && [ "$rootful" -eq 0 ] && [ "$image" -eq 0 ] && [ "$examples" -eq 0 ] && [ "$rootless" -eq 0 ]
