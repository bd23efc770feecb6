#!/usr/bin/env bash
# Runs the benchmarks: each measures analyst and its baseline side by side
# in one run (kernel/bench_test.go, pipeline/bench_test.go, evals/bench_test.go,
# audit/bench_test.go, eda/relationships_bench_test.go, and the bigdata
# function below). Figures go in docs/benchmarks.md together with this
# command. Targets: kernel, fork, pipeline, eval, audit, relationships, loader, loader-corpus,
# duckdb, bigdata, ooc, baseline (default: all but fork, which kernel includes), e.g.
#   scripts/bench.sh eval
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/kernel-usage.sh
count=${BENCH_COUNT:-20}
pipeline_count=${BENCH_PIPELINE_COUNT:-3}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(kernel pipeline eval audit relationships loader bigdata ooc baseline)
mkdir -p out

# bigdata: `analyst run` at default settings on the generated sales CSV at
# BENCH_BIGDATA_ROWS rows: wall time, seconds per million rows, each stage,
# MB/s of the load, the kernel's peak memory (its cgroup's high-water mark,
# polled while it runs) and its CPU time (cgroup cpuacct). The files go to BENCH_BIGDATA_DIR (16M rows
# are about 1 GB) and are deleted at the end unless BENCH_BIGDATA_KEEP=1.
# BENCH_BIGDATA_ANALYST runs another analyst binary (another version, for a
# before and after), BENCH_BIGDATA_FLAGS adds flags (--memory 12GiB).
bigdata() {
	local dir=${BENCH_BIGDATA_DIR:-/var/tmp/bigdata} rows=${BENCH_BIGDATA_ROWS:-1000000 4000000 8000000 16000000}
	local analyst=${BENCH_BIGDATA_ANALYST:-$dir/analyst}
	mkdir -p "$dir"
	[ -n "${BENCH_BIGDATA_ANALYST:-}" ] || go build -o "$analyst" .
	echo "load before: $(uptime)"
	printf '%-10s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n' rows MB wall_s s_per_M load_s load_MB/s profile_s distr_s visual_s peak_MiB cpu_s cpu_s/M
	for n in $rows; do
		local csv="$dir/sales_$n.csv"
		[ -f "$csv" ] || go run ./examples/gensales -rows "$n" -o "$csv"
		local start=$(date +%s.%N)
		# shellcheck disable=SC2086 # the flags are words
		"$analyst" run --force --out "$dir/out_$n" ${BENCH_BIGDATA_FLAGS:-} "$csv" > "$dir/out_$n.log" 2>&1 &
		local pid=$!
		watch_kernel "$pid"
		local peak=$PEAK cpu=$CPU
		wait "$pid" || { echo "analyst run failed at $n rows:"; tail -5 "$dir/out_$n.log"; continue; }
		python3 - "$dir/out_$n/sales_$n.run.json" "$n" "$start" "$(date +%s.%N)" "$peak" "$(stat -c %s "$csv")" "$cpu" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
n, wall, peak, size = int(sys.argv[2]), float(sys.argv[4]) - float(sys.argv[3]), int(sys.argv[5]), int(sys.argv[6])
cpu = int(sys.argv[7]) / 1e9
o = m["occasion"]
s = {k: v / 1000 for k, v in o["stages_ms"].items()}
print(f"{n:<10,} {size / 1e6:8.0f} {wall:8.1f} {wall / (n / 1e6):8.2f} {s['load']:8.1f} {o.get('load_mb_per_s', 0):8.1f} "
      f"{s['profile']:8.1f} {s['distributions']:8.1f} {s['visualization']:8.1f} {peak / 2**20:8.0f} {cpu:8.1f} {cpu / (n / 1e6):8.2f}")
PY
	done
	echo "load after: $(uptime)"
	if [ -z "${BENCH_BIGDATA_KEEP:-}" ]; then
		rm -rf "$dir"/sales_*.csv "$dir"/out_*
	fi
}

# duckdb: analyst's load + profile stages (from run.json) against DuckDB's
# SUMMARIZE SELECT * FROM read_csv(FILE) with 2 threads (scripts/duckdb-summarize.mjs)
# on the generated sales CSV (BENCH_DUCKDB_ROWS rows, default 3,000,000, seed 3;
# kept in BENCH_DUCKDB_DIR between runs), interleaved, BENCH_DUCKDB_ROUNDS
# rounds (default 3): each round's figures, then the medians, their ratio and
# the peak memory of each (analyst: its kernel's cgroup high-water mark over
# the whole run; DuckDB: node's peak RSS), and pandas' parse alone in the
# kernel, one thread and two (scripts/pandas-parse-floor.py: the floor under
# the load stage). BENCH_DUCKDB_ANALYST runs another
# analyst binary; BENCH_DUCKDB_BEFORE adds one more to each round (a before
# and after in one run). Installs @duckdb/node-api into DUCKDB_NODE_DIR
# (default ~/.cache/analyst-bench/duckdb-node) when it is missing.
duckdb() {
	local dir=${BENCH_DUCKDB_DIR:-/var/tmp/bench-duckdb} rows=${BENCH_DUCKDB_ROWS:-3000000}
	local node_dir=${DUCKDB_NODE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/analyst-bench/duckdb-node}
	local analyst=${BENCH_DUCKDB_ANALYST:-$dir/analyst} csv="$dir/sales_$rows.csv" i bin label
	mkdir -p "$dir"
	[ -f "$node_dir/node_modules/@duckdb/node-api/package.json" ] ||
		npm install --silent --prefix "$node_dir" @duckdb/node-api >&2
	[ -n "${BENCH_DUCKDB_ANALYST:-}" ] || go build -o "$analyst" .
	[ -f "$csv" ] || go run ./examples/gensales -rows "$rows" -seed 3 -o "$csv"
	: > "$dir/rounds.tsv"
	for i in $(seq "${BENCH_DUCKDB_ROUNDS:-3}"); do
		local load=$(uptime | sed 's/.*load average: //') duck
		duck=$(DUCKDB_NODE_DIR="$node_dir" /usr/bin/time -f %M -o "$dir/duckdb.rss" \
			node scripts/duckdb-summarize.mjs "$csv" | python3 -c 'import json,sys; print(json.load(sys.stdin)["seconds"])')
		duck="$duck $(cat "$dir/duckdb.rss")"
		# pandas' parse alone, the floor under the load stage (one thread, and
		# two halves on two threads), in a kernel of the same binary.
		sed "s/^FLOOR_FILE = .*/FLOOR_FILE = \"$(basename "$csv")\"/" scripts/pandas-parse-floor.py > "$dir/floor.py"
		local floor
		floor=$("$analyst" kernel exec --memory 4GiB --data "$dir" "$dir/floor.py" |
			python3 -c 'import json,sys; f=json.load(sys.stdin); print(f["one_thread"], f["two_threads"])')
		for label in analyst ${BENCH_DUCKDB_BEFORE:+before}; do
			bin=$analyst
			[ "$label" = analyst ] || bin=$BENCH_DUCKDB_BEFORE
			"$bin" run --force --out "$dir/out" ${BENCH_DUCKDB_FLAGS:-} "$csv" > "$dir/out-$label.log" 2>&1 &
			local pid=$!
			watch_kernel "$pid"
			wait "$pid" || { echo "analyst run failed:"; tail -5 "$dir/out-$label.log"; return 1; }
			python3 - "$dir/out/sales_$rows.run.json" "$PEAK" "$duck" "$load" "$label" "$floor" >> "$dir/rounds.tsv" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["occasion"]["stages_ms"]
duck_s, duck_kb = sys.argv[3].split()
floor_one, floor_two = sys.argv[6].split()
print(sys.argv[5], s["load"] / 1000, s["profile"] / 1000, int(sys.argv[2]) / 2**20, float(duck_s), int(duck_kb) / 1024,
      floor_one, floor_two, sys.argv[4], sep="\t")
PY
		done
	done
	python3 - "$dir/rounds.tsv" "$rows" "$(stat -c %s "$csv")" <<'PY'
import statistics, sys
lines = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
print(f"{int(sys.argv[2]):,} rows, {int(sys.argv[3]) / 2**20:.0f} MiB")
for label in dict.fromkeys(l[0] for l in lines):
    head = ("load_s", "profile_s", "analyst_s", "peak_MiB", "duckdb_s", "duck_MiB", "ratio",
            "parse_1t_s", "parse_2t_s", "load average")
    print(f"{label}:\n%-6s %8s %9s %9s %8s %8s %8s %6s %10s %10s  %s" % ("round", *head))
    cols = []
    for i, r in enumerate(l for l in lines if l[0] == label):
        load, prof, peak, duck, dpeak, one, two = map(float, r[1:8])
        cols.append((load, prof, load + prof, peak, duck, dpeak, (load + prof) / duck, one, two))
        print("%-6d %8.2f %9.2f %9.2f %8.0f %8.2f %8.0f %6.2f %10.2f %10.2f  %s" % (i + 1, *cols[-1], r[8]))
    med = [statistics.median(c[k] for c in cols) for k in range(9)]
    print("%-6s %8.2f %9.2f %9.2f %8.0f %8.2f %8.0f %6.2f %10.2f %10.2f" % ("median", *med))
    print(f"{label} load + profile / DuckDB SUMMARIZE: {med[2] / med[4]:.2f}x (median of each); "
          f"median of the rounds' ratios {med[6]:.2f}x")
    print(f"pandas' parse alone / DuckDB SUMMARIZE: {med[7] / med[4]:.2f}x on one thread, "
          f"{med[8] / med[4]:.2f}x on two (median of each)")
PY
}

for target in "${targets[@]}"; do
	uptime | tee "out/bench-$target.txt"
	case "$target" in
	kernel)
		go test -run '^$' -bench . -benchtime "${count}x" -count 1 -timeout 60m ./kernel/ | tee -a out/bench-kernel.txt ;;
	fork)
		# Forked sessions alone (kernel/fork_bench_test.go): fork-ready latency
		# against cold starts, and the memory of 4 sessions (BENCH_FORK_COUNT
		# rounds, default 50, for the p95).
		go test -run '^$' -bench '^BenchmarkFork' -benchtime "${BENCH_FORK_COUNT:-50}x" -count 1 -timeout 60m ./kernel/ | tee -a out/bench-fork.txt ;;
	pipeline)
		go test -run '^$' -bench . -benchtime "${pipeline_count}x" -count 1 -timeout 90m ./pipeline/ | tee -a out/bench-pipeline.txt ;;
	eval)
		# Per case with an instant scripted model, forked, -j 1 and -j 2,
		# against the same cases with a kernel each (--no-fork; the results
		# must be the same) and a cold `analyst kernel exec`
		# (ANALYST_BENCH_EVAL_CASES, default 19); then all 257 DABench dev
		# cases at -j 2 (ANALYST_BENCH_EVAL_NOFORK=1: also without forks).
		go test -run '^$' -bench '^BenchmarkEvalDABench$' -benchtime 1x -count 1 -timeout 60m ./evals/ | tee -a out/bench-eval.txt
		go test -run '^$' -bench '^BenchmarkEvalDABenchAll$' -benchtime 1x -count 1 -timeout 120m ./evals/ | tee -a out/bench-eval.txt ;;
	audit)
		go test -run '^$' -bench . -benchtime "${pipeline_count}x" -count 1 -timeout 60m ./audit/ | tee -a out/bench-audit.txt ;;
	relationships)
		# The relationships between a 1,000,000-row and a 50,000-row table
		# read by the loader (eda.Relationships; target: within 2 s).
		go test -run '^$' -bench '^BenchmarkRelationships$' -benchtime "${pipeline_count}x" -count 1 -timeout 60m ./eda/ | tee -a out/bench-relationships.txt ;;
	loader)
		# The load stage on the 1,000,000-row sales data as written in the
		# US and as a German export (';', 21.01.2024, 1.234,56).
		go test -run '^$' -bench '^BenchmarkLoadExports$' -benchtime "${pipeline_count}x" -count 1 -timeout 60m ./eda/ | tee -a out/bench-loader.txt ;;
	loader-corpus)
		# DuckDB's CSV test files (shared/corpora/duckdb-csv) read by DuckDB's
		# auto-detection and by analyst's load cell: writes
		# docs/loader-corpus.md. Needs node and @duckdb/node-api installed in
		# DUCKDB_NODE_DIR (default /var/tmp/duckdb-node:
		# npm install --prefix /var/tmp/duckdb-node @duckdb/node-api).
		ANALYST_BENCH_LOADER_CORPUS=1 go test -run '^TestLoaderCorpusTable$' -count 1 -timeout 30m -v ./eda/ | tee -a out/bench-loader-corpus.txt ;;
	duckdb)
		duckdb | tee -a out/bench-duckdb.txt ;;
	bigdata)
		bigdata | tee -a out/bench-bigdata.txt ;;
	ooc)
		# The out-of-core path on 16,000,000 rows against the in-memory path
		# (scripts/bench-ooc.sh; tens of minutes).
		scripts/bench-ooc.sh | tee -a out/bench-ooc.txt ;;
	baseline)
		# analyst run --baseline on 8,000,000 rows against a baseline of as
		# many, and the same run without it (scripts/bench-baseline.sh).
		scripts/bench-baseline.sh | tee -a out/bench-baseline.txt ;;
	*)
		echo "bench.sh: unknown target $target (kernel, fork, pipeline, eval, audit, relationships, loader, loader-corpus, duckdb, bigdata, ooc, baseline)" >&2
		exit 2 ;;
	esac
	uptime | tee -a "out/bench-$target.txt"
done
