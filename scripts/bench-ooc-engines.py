# Compares the two out-of-core engines on the same work: the load, profile and
# distributions statistics (per column: count, missing, min, max, mean, std; value
# counts of the text columns; 30-bin histograms of the numeric columns) over a CSV
# too big for the kernel's memory. Run in analyst's kernel (see docs/benchmarks.md):
#   analyst kernel exec --memory 2GiB --data FILE.csv scripts/bench-ooc-engines.py
import glob
import resource
import time

import numpy as np
import pandas as pd

PATH = glob.glob("/data/*.csv")[0]
CHUNK_ROWS = 500_000


def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def chunked_pandas():
    stats, counts = {}, {}
    for chunk in pd.read_csv(PATH, chunksize=CHUNK_ROWS):
        for name in chunk.columns:
            s = chunk[name]
            if pd.api.types.is_numeric_dtype(s):
                part = (s.count(), s.isna().sum(), s.min(), s.max(), s.sum(), (s * s).sum())
                old = stats.get(name)
                stats[name] = part if old is None else (old[0] + part[0], old[1] + part[1], min(old[2], part[2]),
                                                        max(old[3], part[3]), old[4] + part[4], old[5] + part[5])
            else:
                vc = s.value_counts()
                counts[name] = vc if name not in counts else counts[name].add(vc, fill_value=0)
    hists = {name: np.zeros(30) for name in stats}
    edges = {name: np.linspace(v[2], v[3], 31) for name, v in stats.items()}
    for chunk in pd.read_csv(PATH, chunksize=CHUNK_ROWS, usecols=list(stats)):
        for name in stats:
            hists[name] += np.histogram(chunk[name].dropna(), bins=edges[name])[0]
    return len(stats), len(counts)


def dask_frame():
    import dask
    import dask.dataframe as dd
    with dask.config.set(scheduler="threads", num_workers=2):
        ddf = dd.read_csv(PATH, blocksize=32 * 2**20, sample=2**20)
        numeric = [c for c in ddf.columns if pd.api.types.is_numeric_dtype(ddf[c].dtype)]
        text = [c for c in ddf.columns if c not in numeric]
        described = dask.compute(ddf[numeric].count(), ddf[numeric].isna().sum(), ddf[numeric].min(),
                                 ddf[numeric].max(), ddf[numeric].mean(), ddf[numeric].std(),
                                 *[ddf[c].value_counts() for c in text])
        lo, hi = described[2], described[3]
        def part_hist(frame):
            return pd.DataFrame({c: np.histogram(frame[c].dropna(), bins=np.linspace(lo[c], hi[c], 31))[0]
                                 for c in numeric})
        ddf = dd.read_csv(PATH, blocksize=32 * 2**20, sample=2**20, usecols=numeric)
        hist = ddf.map_partitions(part_hist, meta={c: "i8" for c in numeric}).compute()
        hist.groupby(np.arange(len(hist)) % 30).sum()
    return len(numeric), len(text)


import sys
engine = ENGINE if "ENGINE" in globals() else "pandas"
start = time.perf_counter()
shape = chunked_pandas() if engine == "pandas" else dask_frame()
print(f"{engine}: {time.perf_counter() - start:.1f} s, peak RSS {peak_mib():.0f} MiB, {shape}")
