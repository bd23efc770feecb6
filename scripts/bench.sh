#!/usr/bin/env bash
# Runs the benchmarks: each measures analyst and its baseline side by side
# in one run (kernel/bench_test.go, pipeline/bench_test.go, evals/bench_test.go,
# audit/bench_test.go). Figures go in docs/benchmarks.md together with this
# command. Targets: kernel, pipeline, eval, audit (default: all), e.g.
#   scripts/bench.sh eval
set -euo pipefail
cd "$(dirname "$0")/.."
count=${BENCH_COUNT:-20}
pipeline_count=${BENCH_PIPELINE_COUNT:-3}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(kernel pipeline eval audit)
mkdir -p out
for target in "${targets[@]}"; do
	uptime | tee "out/bench-$target.txt"
	case "$target" in
	kernel)
		go test -run '^$' -bench . -benchtime "${count}x" -count 1 -timeout 60m ./kernel/ | tee -a out/bench-kernel.txt ;;
	pipeline)
		go test -run '^$' -bench . -benchtime "${pipeline_count}x" -count 1 -timeout 90m ./pipeline/ | tee -a out/bench-pipeline.txt ;;
	eval)
		# Per case with an instant scripted model, -j 1 and -j 2, against
		# the same cases through analyst run's pipeline (ANALYST_BENCH_EVAL_CASES,
		# default 6); then all 257 DABench dev cases at -j 2.
		go test -run '^$' -bench '^BenchmarkEvalDABench$' -benchtime 1x -count 1 -timeout 60m ./evals/ | tee -a out/bench-eval.txt
		go test -run '^$' -bench '^BenchmarkEvalDABenchAll$' -benchtime 1x -count 1 -timeout 120m ./evals/ | tee -a out/bench-eval.txt ;;
	audit)
		go test -run '^$' -bench . -benchtime "${pipeline_count}x" -count 1 -timeout 60m ./audit/ | tee -a out/bench-audit.txt ;;
	*)
		echo "bench.sh: unknown target $target (kernel, pipeline, eval, audit)" >&2
		exit 2 ;;
	esac
	uptime | tee -a "out/bench-$target.txt"
done
