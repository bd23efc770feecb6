#!/usr/bin/env bash
# The out-of-core path on 16,000,000 rows (about 1 GB of CSV) against the
# in-memory path on the largest size that fits the default memory limit, and
# the out-of-core path on that size too. Prints one line per run: rows, mode,
# wall time, seconds per million rows and the stages' times from run.json.
# Called by scripts/bench.sh ooc (make bench-ooc); figures in docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BENCH_OOC_DIR:-/var/tmp/analyst-bench-ooc} # big files: never in the repo
big=${BENCH_OOC_ROWS:-16000000}
fits=${BENCH_OOC_FIT_ROWS:-4000000}
wrap=${BENCH_OOC_WRAP:-} # a command to run each analyst run under, e.g. a lock
mkdir -p "$dir" out
go build -o out/analyst . && go build -o out/gensales ./examples/gensales
one() { # rows mode
	local csv="$dir/sales$1.csv"
	[ -s "$csv" ] || out/gensales -rows "$1" >"$csv"
	local start end
	start=$(date +%s.%N)
	$wrap out/analyst run "$csv" --out "$dir/out" --name "ooc-$1-$2" --force --out-of-core="$2" --cell-timeout 60m >/dev/null
	end=$(date +%s.%N)
	python3 - "$1" "$2" "$start" "$end" "$dir/out/ooc-$1-$2.run.json" <<'PY'
import json, sys
rows, mode, start, end, manifest = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
m = json.load(open(manifest))
stages = " ".join(f"{k} {v / 1000:.1f}s" for k, v in m["occasion"]["stages_ms"].items())
wall = end - start
print(f"{rows:>10,} rows  out-of-core={mode:<5}  {wall:7.1f} s  {wall / rows * 1e6:5.2f} s/M rows  {stages}")
PY
}
uptime
one "$big" auto
one "$fits" false
one "$fits" true
uptime
[ -n "${BENCH_OOC_KEEP:-}" ] || rm -rf "$dir"
