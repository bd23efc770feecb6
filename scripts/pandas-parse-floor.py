"""pandas' own parse of a CSV, the floor under analyst's load stage: the
benchmark `scripts/bench.sh duckdb` runs it in the kernel (`analyst kernel
exec --data DIR`) beside DuckDB's SUMMARIZE, each round.

It prints one JSON line: the seconds of `pd.read_csv` over the whole file in
one thread (the C parser as the loader calls it: every column, only empty
fields missing, the frame kept as parsed), and over its two halves (cut at a
line end) on two threads at once, the best a parse in parts on this
machine's two cores could do before any merge. The file is
/data/FLOOR_FILE, named by the line the benchmark puts first."""
import io
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor

import pandas as pd

FLOOR_FILE = os.environ.get("FLOOR_FILE", "")  # replaced by the benchmark


def parse(source):
    with pd.option_context("mode.copy_on_write", True):
        return pd.read_csv(source, low_memory=False, keep_default_na=False, na_values=[""])


def seconds(f):
    start = time.perf_counter()
    f()
    return time.perf_counter() - start


path = "/data/" + FLOOR_FILE
one = seconds(lambda: parse(path))
data = open(path, "rb").read()
cut = data.index(b"\n", len(data) // 2) + 1
halves = [data[:cut], data[: data.index(b"\n") + 1] + data[cut:]]
with ThreadPoolExecutor(2) as pool:
    two = seconds(lambda: list(pool.map(lambda part: parse(io.BytesIO(part)), halves)))
print(json.dumps({"one_thread": round(one, 3), "two_threads": round(two, 3)}))
