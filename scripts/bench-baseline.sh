#!/usr/bin/env bash
# What a comparison with a baseline costs (analyst run --baseline): on
# BENCH_BASELINE_ROWS rows (default 8,000,000) of the generated sales data, a
# baseline run (seed 1), then BENCH_BASELINE_ROUNDS rounds (default 1) of
# the same new file (seed 2) run without and with --baseline, back to back,
# and their ratio, of wall time and of the kernel's CPU time (which a shared
# machine disturbs less). With BENCH_BASELINE_BEFORE=BINARY (an analyst from
# before sketches), that binary's run of the new file too, for the sketch's
# cost to every run. Prints the times and the stages' times from run.json.
# Called by scripts/bench.sh baseline; figures in docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/kernel-usage.sh
dir=${BENCH_BASELINE_DIR:-/var/tmp/analyst-bench-baseline} # big files: never in the repo
rows=${BENCH_BASELINE_ROWS:-8000000}
rounds=${BENCH_BASELINE_ROUNDS:-1}
mkdir -p "$dir" out
go build -o out/analyst . && go build -o out/gensales ./examples/gensales
[ -s "$dir/old.csv" ] || out/gensales -rows "$rows" -seed 1 -o "$dir/old.csv"
[ -s "$dir/new.csv" ] || out/gensales -rows "$rows" -seed 2 -o "$dir/new.csv"
one() { # label binary name args...
	local label=$1 bin=$2 name=$3 start end pid
	shift 3
	start=$(date +%s.%N)
	"$bin" run --force --out "$dir/out" --name "$name" "$@" >"$dir/$name.log" 2>&1 &
	pid=$!
	watch_kernel "$pid"
	wait "$pid" || [ $? -eq 8 ] || { echo "$label failed:"; tail -5 "$dir/$name.log"; exit 1; }
	end=$(date +%s.%N)
	python3 - "$label" "$start" "$end" "$CPU" "$dir/out/$name.run.json" <<'PY'
import json, sys
label, start, end, cpu, manifest = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]) / 1e9, sys.argv[5]
m = json.load(open(manifest))
stages = " ".join(f"{k} {v / 1000:.1f}s" for k, v in m["occasion"]["stages_ms"].items())
print(f"{label:<24} wall {end - start:7.1f} s  kernel CPU {cpu:7.1f} s  {stages}")
with open(manifest + ".times", "w") as f:
    json.dump({"wall": end - start, "cpu": cpu}, f)
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
import json, statistics, sys, os
out, rounds = sys.argv[1], int(sys.argv[2])
times = lambda name, key: json.load(open(os.path.join(out, name + ".run.json.times")))[key]
ratio = lambda a, b, key: statistics.median(times(f"{a}-{r}", key) / times(f"{b}-{r}", key) for r in range(1, rounds + 1))
print(f"--baseline / plain: wall {ratio('compared', 'plain', 'wall'):.3f}, kernel CPU {ratio('compared', 'plain', 'cpu'):.3f} "
      f"(medians of {rounds} round(s))")
if os.path.exists(os.path.join(out, "before-1.run.json.times")):
    print(f"plain (with the sketch) / before sketches: wall {ratio('plain', 'before', 'wall'):.3f}, "
          f"kernel CPU {ratio('plain', 'before', 'cpu'):.3f}")
PY
uptime
[ -n "${BENCH_BASELINE_KEEP:-}" ] || rm -rf "$dir"
