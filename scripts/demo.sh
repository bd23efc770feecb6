#!/usr/bin/env bash
# The main job: make an example dataset and analyse it in the sandboxed
# kernel. Charts and their descriptions land in out/charts.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p out
rows=${DEMO_ROWS:-100000}
go run ./examples/gensales -rows "$rows" -o out/sales.csv
echo "demo: analysing out/sales.csv ($rows orders) in the sandbox"
bin/analyst kernel exec --data out/sales.csv --out out/charts examples/monthly_revenue.py
echo "demo: charts are in $(pwd)/out/charts"
