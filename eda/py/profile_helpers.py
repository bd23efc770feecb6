TOP_VALUES = 10  # most frequent values kept per categorical column
SAMPLE_VALUES = 5  # example values shown per column
TEXT_MIN_LENGTH = 20  # free text: long values (mean length), mostly distinct, mostly with spaces


def jsonable(x):
    """x with only JSON types: numpy numbers become Python ones, NaN and infinities None."""
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def missing_count(s):
    """s.isna().sum(); for a text column, from the codes the loader kept (see FACTORIZED)."""
    kept = kept_factorization(s)
    return int(s.isna().sum()) if kept is None else int(kept[2][0])


def frequencies(s):
    """s.value_counts(); for a text column, from the counts of its kept codes: the same Series,
    made as pandas makes it (distinct values in order of first appearance, sorted by count)."""
    kept = kept_factorization(s)
    if kept is None:
        return s.value_counts()
    _, uniques, counts = kept
    return pd.Series(counts[1:], index=pd.Index(uniques, name=s.name), name="count").sort_values(ascending=False)


def memory_bytes(s):
    """s.memory_usage(index=False, deep=True): the bytes of column s. For a text column, from its
    kept codes: a str of ASCII characters only takes as many bytes as any str equal to it, so
    each distinct one is measured once and counted as often as it occurs; missing values and
    other text (whose size can depend on what it was used for) are measured one by one, as
    pandas measures every value (sys.getsizeof, which for a str is its __sizeof__())."""
    kept = kept_factorization(s)
    if kept is None:
        return int(s.memory_usage(index=False, deep=True))
    codes, uniques, counts = kept
    ascii = np.fromiter((type(u) is str and u.isascii() for u in uniques), bool, len(uniques))
    sizes = np.fromiter((u.__sizeof__() for u in uniques), np.int64, len(uniques))
    values = s.to_numpy()
    one_by_one = values[np.concatenate([[True], ~ascii])[codes + 1]]  # missing (code -1) or not ASCII
    return int(values.nbytes + sizes[ascii] @ counts[1:][ascii]
               + pd.Series(one_by_one, dtype=object).memory_usage(index=False, deep=True) - one_by_one.nbytes)


def distinct_count(s):
    """s.nunique(). Integers spanning no more values than twice the rows are counted by
    marking each value's slot (np.bincount): the same count as hashing them, faster."""
    values = s.to_numpy()
    if values.dtype.kind in "iu" and len(values):
        low, high = int(values.min()), int(values.max())
        if high - low < 2 * len(values):
            wide = values.astype(np.int64 if values.dtype.kind == "i" else np.uint64, copy=False)
            return int(np.count_nonzero(np.bincount((wide - low).astype(np.intp))))
    return int(s.nunique())


def column_kind(s, counts, present):
    """numeric, categorical, datetime, boolean, text or empty."""
    if present == 0:
        return "empty"
    if pd.api.types.is_bool_dtype(s) or (
            counts is not None and all(isinstance(v, (bool, np.bool_)) for v in counts.index)):
        return "boolean"
    if pd.api.types.is_datetime64_any_dtype(s):
        return "datetime"
    if pd.api.types.is_numeric_dtype(s):
        return "numeric"
    sample = spaced_sample(s, 1000).astype(str)
    if (len(counts) > 0.5 * present and sample.str.len().mean() >= TEXT_MIN_LENGTH
            and sample.str.contains(" ").mean() >= 0.5):
        return "text"
    return "categorical"


def profile_column(name, s, rows, memory, value_counts):
    """The profile of column s; its frequencies, when counted, go into value_counts[name]."""
    missing = missing_count(s)
    present = rows - missing
    numeric = pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)
    # Frequencies only for non-numeric columns: they give the distinct count too.
    counts = None if numeric or pd.api.types.is_datetime64_any_dtype(s) else frequencies(s)
    if counts is not None:
        value_counts[name] = counts
    distinct = len(counts) if counts is not None else distinct_count(s)
    kind = column_kind(s, counts, present)
    samples = first_present(s, 100).astype(str).drop_duplicates().head(SAMPLE_VALUES)
    col = {
        "name": name,
        "dtype": str(s.dtype),
        "kind": kind,
        "missing": missing,
        "missing_share": missing / rows if rows else 0.0,
        "distinct": distinct,
        "distinct_share": distinct / present if present else 0.0,  # of the non-missing values
        "sample": [v if len(v) <= 100 else v[:99] + "…" for v in samples],
        "memory_bytes": int(memory),
    }
    if name in load_info.get("missing_markers", {}):  # markers the loader turned into missing values
        col["markers"] = [dict(m, share=m["count"] / rows) for m in load_info["missing_markers"][name]]
    if kind == "numeric":
        with np.errstate(invalid="ignore"):  # infinite values give NaN (null), without a warning
            col.update(min=s.min(), max=s.max(), mean=s.mean(), std=s.std(), skew=s.skew())
    elif kind == "datetime":
        col.update(min_date=s.min().isoformat(), max_date=s.max().isoformat())
    elif counts is not None and kind != "empty":
        top = counts.head(TOP_VALUES)
        col["top"] = [{"value": str(v), "count": int(n), "share": n / rows} for v, n in top.items()]
    return jsonable(col)
