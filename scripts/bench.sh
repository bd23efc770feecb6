#!/usr/bin/env bash
# Runs the kernel benchmarks: each one measures the kernel and its baseline
# side by side in one run (see kernel/bench_test.go). Figures go in
# docs/benchmarks.md together with this command.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${BENCH_COUNT:-20}
mkdir -p out
go test -run '^$' -bench . -benchtime "${count}x" -count 1 -timeout 60m ./kernel/ | tee out/bench-kernel.txt
