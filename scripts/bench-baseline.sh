#!/usr/bin/env bash
# What a comparison with a baseline costs (analyst run --baseline): on
# BENCH_BASELINE_ROWS rows (default 8,000,000) of the generated sales data, a
# baseline run (seed 1), then BENCH_BASELINE_ROUNDS rounds (default 1) of
# the same new file (seed 2) run without and with --baseline, back to back,
# and their ratio. With BENCH_BASELINE_BEFORE=BINARY (an analyst from before
# sketches), that binary's run of the new file too, for the sketch's cost to
# every run. Prints wall times and the stages' times from run.json.
# Called by scripts/bench.sh baseline; figures in docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BENCH_BASELINE_DIR:-/var/tmp/analyst-bench-baseline} # big files: never in the repo
rows=${BENCH_BASELINE_ROWS:-8000000}
rounds=${BENCH_BASELINE_ROUNDS:-1}
mkdir -p "$dir" out
go build -o out/analyst . && go build -o out/gensales ./examples/gensales
[ -s "$dir/old.csv" ] || out/gensales -rows "$rows" -seed 1 -o "$dir/old.csv"
[ -s "$dir/new.csv" ] || out/gensales -rows "$rows" -seed 2 -o "$dir/new.csv"
one() { # label binary name args...
	local label=$1 bin=$2 name=$3 start end
	shift 3
	start=$(date +%s.%N)
	"$bin" run --force --out "$dir/out" --name "$name" "$@" >"$dir/$name.log" 2>&1 || [ $? -eq 8 ] ||
		{ echo "$label failed:"; tail -5 "$dir/$name.log"; exit 1; }
	end=$(date +%s.%N)
	python3 - "$label" "$start" "$end" "$dir/out/$name.run.json" <<'PY'
import json, sys
label, start, end, manifest = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
m = json.load(open(manifest))
stages = " ".join(f"{k} {v / 1000:.1f}s" for k, v in m["occasion"]["stages_ms"].items())
print(f"{label:<22} {end - start:7.1f} s  {stages}")
with open(manifest + ".wall", "w") as f:
    f.write(str(end - start))
PY
}
uptime
one "baseline run" out/analyst old "$dir/old.csv"
for round in $(seq "$rounds"); do
	one "plain ($round)" out/analyst "plain-$round" "$dir/new.csv"
	one "--baseline ($round)" out/analyst "compared-$round" --baseline "$dir/out/old.run.json" "$dir/new.csv"
	if [ -n "${BENCH_BASELINE_BEFORE:-}" ]; then
		one "before sketches ($round)" "$BENCH_BASELINE_BEFORE" "before-$round" "$dir/new.csv"
	fi
done
python3 - "$dir/out" "$rounds" <<'PY'
import statistics, sys, os
out, rounds = sys.argv[1], int(sys.argv[2])
wall = lambda name: float(open(os.path.join(out, name + ".run.json.wall")).read())
ratio = statistics.median(wall(f"compared-{r}") / wall(f"plain-{r}") for r in range(1, rounds + 1))
print(f"--baseline / plain: {ratio:.3f} (median of {rounds} round(s))")
if os.path.exists(os.path.join(out, "before-1.run.json.wall")):
    before = statistics.median(wall(f"plain-{r}") / wall(f"before-{r}") for r in range(1, rounds + 1))
    print(f"plain (with the sketch) / before sketches: {before:.3f}")
PY
uptime
[ -n "${BENCH_BASELINE_KEEP:-}" ] || rm -rf "$dir"
