#!/usr/bin/env bash
# The main job: make an example sales dataset and run analyst on it. The
# report, notebook, charts and manifest land in out/.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p out
rows=${DEMO_ROWS:-100000}
go run ./examples/gensales -rows "$rows" -o out/sales.csv
echo "demo: analysing out/sales.csv ($rows orders) in the sandbox"
bin/analyst run --explore=false --out out out/sales.csv
echo "demo: open $(pwd)/out/sales.html in a browser (it needs no network)"
echo "demo: to see a model explore it too (goals, charts, key findings): bin/analyst run --out out --model ollama:qwen2.5-coder:7b out/sales.csv"
