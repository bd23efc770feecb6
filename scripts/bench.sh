#!/usr/bin/env bash
# Runs the benchmarks: each measures analyst and its baseline side by side
# in one run (kernel/bench_test.go, pipeline/bench_test.go, audit/bench_test.go). Figures go in
# docs/benchmarks.md together with this command.
set -euo pipefail
cd "$(dirname "$0")/.."
# scripts/bench.sh ooc: only the out-of-core benchmark (16,000,000 rows; tens of minutes).
if [ "${1:-all}" = ooc ]; then
	exec scripts/bench-ooc.sh
fi
count=${BENCH_COUNT:-20}
pipeline_count=${BENCH_PIPELINE_COUNT:-3}
mkdir -p out
go test -run '^$' -bench . -benchtime "${count}x" -count 1 -timeout 60m ./kernel/ | tee out/bench-kernel.txt
go test -run '^$' -bench . -benchtime "${pipeline_count}x" -count 1 -timeout 90m ./pipeline/ | tee out/bench-pipeline.txt
# analyst eval: per-case cost with an instant scripted model (ANALYST_BENCH_EVAL_CASES=257 for all of DABench).
go test -run '^$' -bench BenchmarkEvalDABench -benchtime 1x -count 1 -timeout 120m ./evals/ | tee out/bench-eval.txt
go test -run '^$' -bench . -benchtime "${pipeline_count}x" -count 1 -timeout 60m ./audit/ | tee out/bench-audit.txt
scripts/bench-ooc.sh | tee out/bench-ooc.txt
