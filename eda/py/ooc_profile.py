DISTINCT_K = 4096  # hashes kept per column to count distinct values (k minimum values)
VALUE_COUNT_CAP = 100_000  # distinct values counted exactly per text column; past it, top values from the sample


class Moments:
    """Count, mean and the sums of the 2nd to 4th powers of deviations from it (M2..M4), with min
    and max, of the values seen so far. Chunks combine with the pairwise update of Chan, Golub and
    LeVeque (1979), extended to M3 and M4 by Pébay (2008): no sums of raw powers, so no cancellation."""

    def __init__(self):
        self.n, self.mean, self.m2, self.m3, self.m4 = 0, 0.0, 0.0, 0.0, 0.0
        self.min, self.max = math.inf, -math.inf

    def add(self, x):
        """Adds the values x (a float array without missing values)."""
        nb = len(x)
        if nb == 0:
            return
        with np.errstate(invalid="ignore", over="ignore"):
            mb = float(x.mean())
            d = x - mb
            d2 = d * d
            m2b, m3b, m4b = float(d2.sum()), float((d2 * d).sum()), float((d2 * d2).sum())
        self.min, self.max = min(self.min, float(x.min())), max(self.max, float(x.max()))
        na = self.n
        if na == 0:
            self.n, self.mean, self.m2, self.m3, self.m4 = nb, mb, m2b, m3b, m4b
            return
        n = na + nb
        delta = mb - self.mean
        m2a, m3a = self.m2, self.m3
        self.m4 += (m4b + delta ** 4 * na * nb * (na * na - na * nb + nb * nb) / n ** 3
                    + 6 * delta ** 2 * (na * na * m2b + nb * nb * m2a) / n ** 2 + 4 * delta * (na * m3b - nb * m3a) / n)
        self.m3 += m3b + delta ** 3 * na * nb * (na - nb) / n ** 2 + 3 * delta * (na * m2b - nb * m2a) / n
        self.m2 += m2b + delta * delta * na * nb / n
        self.mean += delta * nb / n
        self.n = n

    def stats(self):
        """min, max, mean, std (n - 1), skew (G1) and kurtosis (G2), as pandas defines them."""
        n, m2 = self.n, self.m2
        nan = float("nan")
        if n == 0:
            return dict(min=nan, max=nan, mean=nan, std=nan, skew=nan, kurt=nan)
        std = math.sqrt(m2 / (n - 1)) if n > 1 else nan
        skew = kurt = nan
        if n > 2:
            skew = 0.0 if m2 == 0 else math.sqrt(n * (n - 1)) / (n - 2) * (self.m3 / n) / (m2 / n) ** 1.5
        if n > 3:
            kurt = 0.0 if m2 == 0 else (n - 1) / ((n - 2) * (n - 3)) * ((n + 1) * (self.m4 / n) / (m2 / n) ** 2 - 3 * (n - 1))
        return dict(min=self.min, max=self.max, mean=self.mean, std=std, skew=skew, kurt=kurt)


class DistinctCount:
    """Distinct values from the DISTINCT_K smallest 64-bit hashes (k minimum values, Bar-Yossef
    et al. 2002): exact below DISTINCT_K distinct values, else (k - 1) / (k-th smallest hash / 2^64),
    with a relative standard error of 1/sqrt(k - 2), 1.6%."""

    def __init__(self):
        self.kept = np.array([], dtype=np.uint64)

    def add(self, hashes):
        """Adds the values' 64-bit hashes."""
        if len(hashes):
            self.kept = np.union1d(self.kept, np.unique(hashes)[:DISTINCT_K])[:DISTINCT_K]

    def count(self):
        """(count, exact)"""
        if len(self.kept) < DISTINCT_K:
            return len(self.kept), True
        return int(round((DISTINCT_K - 1) / (float(self.kept[-1]) / 2.0 ** 64))), False


def value_hashes(s):
    """64-bit hashes of the values of s, the same for the same value in every chunk (1 and 1.0
    alike; every missing value alike)."""
    if pd.api.types.is_datetime64_any_dtype(s):
        values = s.to_numpy(dtype="datetime64[ns]").view("int64")
    elif pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
        values = s.to_numpy(dtype="float64")
    else:
        values = s.astype(object).to_numpy()
    return pd.util.hash_array(values)


ROW_HASH_PRIME = np.uint64(0x100000001B3)
MISSING_HASH = np.uint64(2**64 - 1)  # a missing text value, in a row's hash


def is_text(s):
    """Text, booleans and anything else that is neither numbers nor dates: counted by value."""
    return not (pd.api.types.is_datetime64_any_dtype(s)
                or (pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)))  # FNV-1a's 64-bit prime: rows hash as the sequence of their values' hashes


def keep_sample(sample, chunk, keys):
    """The sample (rows, keys) updated with chunk: the SAMPLE_ROWS rows with the smallest keys."""
    rows, kept = sample
    if rows is not None and len(kept) >= SAMPLE_ROWS:
        take = keys < kept.max()
        chunk, keys = chunk[take], keys[take]
    rows = chunk if rows is None else pd.concat([rows, chunk])
    kept = keys if kept is None else np.concatenate([kept, keys])
    if len(kept) > SAMPLE_ROWS:
        order = np.argsort(kept, kind="stable")[:SAMPLE_ROWS]
        rows, kept = rows.iloc[order], kept[order]
    return rows, kept


# One pass over the file: exact counts and moments, distinct counts, value counts, row hashes
# (for duplicates) and a uniform sample (each row gets a random key; the sample is the
# SAMPLE_ROWS rows with the smallest keys).
rng = np.random.default_rng(SAMPLE_SEED)
found = {}  # missing-value markers and values that did not convert, per column
ragged = []  # rows with more fields than the header, skipped: (line, expected fields, fields)
rows, chunks_read = 0, 0
missing = dict.fromkeys(plan["columns"], 0)
moments = {c: Moments() for c in plan["columns"]}
distinct = {c: DistinctCount() for c in plan["columns"]}
ordered = {}  # integer columns: (last value, strictly increasing so far); such a column is all distinct
full_counts = {}  # exact value counts of the text columns (None once past VALUE_COUNT_CAP)
first_date, last_date = {}, {}
row_hashes = []
sample = (None, None)
for chunk in read_chunks(plan, found=found, skipped=ragged):
    rows += len(chunk)
    chunks_read += 1
    row_hash = np.zeros(len(chunk), dtype=np.uint64)
    for name in plan["columns"]:
        s = chunk[name]
        if is_text(s):
            # One factorization gives the missing values, the counts and (from the distinct
            # values' hashes) every row's hash.
            codes, uniques = pd.factorize(s)
            present = codes >= 0
            missing[name] += int(len(codes) - present.sum())
            unique_hashes = value_hashes(pd.Series(np.asarray(uniques, dtype=object), dtype=object))
            distinct[name].add(unique_hashes)
            row_hash = (row_hash ^ np.where(present, unique_hashes[np.maximum(codes, 0)] if len(uniques) else 0,
                                            MISSING_HASH)) * ROW_HASH_PRIME
            if full_counts.get(name, 0) is not None:
                counts = pd.Series(np.bincount(codes[present], minlength=len(uniques)), index=pd.Index(uniques, dtype=object))
                counts = counts if name not in full_counts else full_counts[name].add(counts, fill_value=0)
                full_counts[name] = counts if len(counts) <= VALUE_COUNT_CAP else None
            continue
        absent = s.isna().to_numpy()
        missing[name] += int(absent.sum())
        hashes = value_hashes(s)
        distinct[name].add(hashes[~absent])
        row_hash = (row_hash ^ hashes) * ROW_HASH_PRIME
        sketch_parts.add(name, s)  # its quantiles, or its rows per hour
        if pd.api.types.is_datetime64_any_dtype(s):
            if s.notna().any():
                first_date[name] = min(first_date.get(name, s.min()), s.min())
                last_date[name] = max(last_date.get(name, s.max()), s.max())
        elif pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
            moments[name].add(s.dropna().to_numpy(dtype="float64"))
            if pd.api.types.is_integer_dtype(s) and ordered.get(name, (None, True))[1] and len(s):
                last = ordered.get(name, (None, True))[0]
                ordered[name] = (s.iloc[-1], bool(s.is_monotonic_increasing and s.is_unique
                                                  and (last is None or s.iloc[0] > last)))
    row_hashes.append(row_hash)
    sample = keep_sample(sample, chunk, rng.random(len(chunk)))
if rows == 0:
    raise AnalystDataError("the file has column names but no data rows; there is nothing to analyse.")
duplicate_rows = rows - len(np.unique(np.concatenate(row_hashes)))
del row_hashes

# The sample becomes df, in file order (its index is the row number in the file).
df = sample[0].sort_index()
del sample
def by_count(counts):
    """counts, most frequent first; ties in value order (the same whatever the chunks)."""
    try:
        counts = counts.sort_index(kind="stable")
    except TypeError:  # values that do not compare: by their text
        counts = counts.iloc[np.argsort(counts.index.astype(str), kind="stable")]
    return counts.astype("int64").sort_values(ascending=False, kind="stable")


value_counts = {c: by_count(v) for c, v in full_counts.items() if v is not None}
sample_counts = [c for c, v in full_counts.items() if v is None]  # top values from the sample
for column in sample_counts:
    value_counts[column] = df[column].value_counts()

# Markers and unconverted values found in the whole file, as the loader records them (the
# plan's notes counted them in the first lines only).
load_info["missing_markers"] = {}
load_info["notes"] = [n for n in load_info["notes"]
                      if not re.search(r"are missing-value markers|became missing|ragged row", n)]
if ragged:
    load_info["notes"].append(ragged_rows_note(ragged))
for (column, what, value), n in sorted(found.items(), key=lambda kv: (kv[0][0], kv[0][1], -kv[1], kv[0][2])):
    if what == "marker":
        load_info["missing_markers"].setdefault(column, []).append({"value": value, "count": n})
    elif column in load_info["converted_numbers"]:
        load_info["converted_numbers"][column].setdefault("all_failed", []).append({"value": value, "count": n})
for column, conv in load_info["converted_numbers"].items():
    failed = conv.pop("all_failed", [])
    conv["failed"] = sum(v["count"] for v in failed)
    conv["failed_values"] = failed[:10]
    conv["converted"] = rows - missing[column]
for column, what, word in [(c, "marker", "are missing-value markers") for c in load_info["missing_markers"]] + \
        [(c, "failed", "did not convert and") for c in plan["columns"]]:
    listed = sorted(((v, n) for (c, w, v), n in found.items() if c == column and w == what), key=lambda vn: (-vn[1], vn[0]))
    if listed:
        load_info["notes"].append(f"{sum(n for _, n in listed):,} value(s) of {column!r} {word} became missing: "
                                  + ", ".join(f"{v!r} ({n:,})" for v, n in listed[:8]))

sample_share = len(df) / rows
memory = (df.memory_usage(deep=True) / sample_share).round().astype("int64")  # ≈: the sample's, scaled up
column_info = []
for name in plan["columns"]:
    s = df[name]
    present = rows - missing[name]
    counts = value_counts.get(name)
    exact_counts = counts is not None and name not in sample_counts
    n_distinct = len(counts) if exact_counts else present if ordered.get(name, (0, False))[1] \
        else distinct[name].count()[0]
    kind = column_kind(s, counts, present) if present else "empty"
    samples = s.dropna().head(100).astype(str).drop_duplicates().head(SAMPLE_VALUES)
    col = {
        "name": name, "dtype": str(s.dtype), "kind": kind,
        "missing": missing[name], "missing_share": missing[name] / rows,
        "distinct": n_distinct, "distinct_share": n_distinct / present if present else 0.0,
        "sample": [v if len(v) <= 100 else v[:99] + "…" for v in samples],
        "memory_bytes": int(memory[name]),
    }
    if name in load_info["missing_markers"]:
        col["markers"] = [dict(m, share=m["count"] / rows) for m in load_info["missing_markers"][name]]
    if kind == "numeric":
        st = moments[name].stats()
        col.update(min=st["min"], max=st["max"], mean=st["mean"], std=st["std"], skew=st["skew"])
    elif kind == "datetime":
        col.update(min_date=first_date[name].isoformat(), max_date=last_date[name].isoformat())
    elif counts is not None and kind != "empty":
        col["top"] = [{"value": str(v), "count": int(n), "share": n / rows} for v, n in counts.head(TOP_VALUES).items()]
    column_info.append(jsonable(col))

out_of_core = jsonable({
    "rows": rows, "chunk_rows": CHUNK_ROWS, "chunks": chunks_read, "sample_rows": len(df), "sample_seed": SAMPLE_SEED,
    "approximate_distinct": sorted(c for c in plan["columns"] if c not in value_counts and not distinct[c].count()[1]
                                   and not ordered.get(c, (0, False))[1]),
    "sample_top_values": sample_counts,
})
numeric_moments = {c: moments[c].stats() | {"count": moments[c].n} for c in plan["columns"] if moments[c].n}
