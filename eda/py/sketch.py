SKETCH_VERSION = 1  # the layout below; a comparison refuses a baseline sketch of another version
SKETCH_MIME = "application/vnd.analyst.sketch+json"  # analyst reads the sketch from this output and keeps it beside the run
approximate_distinct = set()  # columns whose distinct count is an estimate
sampled_counts = set()  # columns whose value counts come from the sample df, not every row
FEED_DF = True  # df's numeric and date columns are given to the parts here (out of core, the profile's pass gave them every chunk)
if FEED_DF:
    for c in column_info:  # as one chunk; a column of few distinct values (the profile counted them) is hashed, not sorted
        if c["kind"] in ("numeric", "datetime"):
            sketch_parts.add(c["name"], df[c["name"]], few=4 * c["distinct"] <= rows)


def value_part(counts, present, distinct, sample):
    """A categorical column's VALUE_COUNTS_CAP most frequent values, as text, with their rows (most
    first, ties by text), and the tail: the rows and the distinct values left out."""
    if counts.index.inferred_type != "string":  # numbers, booleans, categories: counted by their text
        counts = counts.groupby(pd.Index(fresh_texts(counts.index), dtype=object), sort=False).sum()
    values = counts.to_numpy(dtype="int64")
    if sample is not None:  # counted in the sample: scaled to every row, marked as such
        values = (values * (present / max(1, int(values.sum())))).round().astype("int64")
    top = without_tie_at_cut(top_values(counts.index, values, VALUE_COUNTS_CAP), values)
    kept = sum(n for _, n in top)
    return {"top": top, "other_rows": max(0, present - kept),
            "other_values": max(0, distinct - len(top)), "complete": len(top) == len(values) and sample is None,
            "sample": sample}


def without_tie_at_cut(top, values):
    """top, less its values tied with values left out (the cap cut through their tie): which of them
    were kept was decided by their text, not their rows, so a comparison could not use them. A column
    of identifiers, each seen once, keeps none of its thousand; its rows and values go to the tail."""
    if not top or len(top) == len(values):
        return top
    edge = top[-1][1]
    if sum(1 for _, n in top if n == edge) == int((values == edge).sum()):
        return top
    return [t for t in top if t[1] > edge]


def fresh_texts(index):
    """Each value's text as a new string: grouping or serialising the column's own strings would cache their
    UTF-8 forms in them and grow the frame's memory after the profile measured it."""
    return [str(v).encode("utf-8", "surrogatepass").decode("utf-8", "surrogatepass") for v in index]


def top_values(texts, values, k):
    """The k largest of values as [text, rows], most first, ties by text. Only the values tied at the
    k-th place are compared as text (all of them, for a column of identifiers seen once each), and
    never as a fixed-width array, which one long value would make huge."""
    order = np.argsort(-values, kind="stable")
    if len(order) > k:
        edge = values[order[k - 1]]
        above = order[values[order] > edge]
        tied = order[values[order] == edge]
        order = np.concatenate([above, np.array(heapq.nsmallest(k - len(above), tied, key=texts.__getitem__), dtype=np.int64)])
    chosen = sorted(order.tolist(), key=lambda i: (-int(values[i]), texts[i]))
    return [[fresh_texts([texts[i]])[0], int(values[i])] for i in chosen]


def column_sketch(c):
    """What a later comparison needs of the profiled column c."""
    name = c["name"]
    out = {key: c[key] for key in ("name", "dtype", "kind", "missing", "distinct")}
    out["distinct_exact"] = name not in approximate_distinct
    if name in sketch_parts.numbers and c["kind"] == "numeric":
        parts = sketch_parts.numbers[name]
        points, weights, exact = parts.finish()
        out["numbers"] = {"count": int(weights.sum()), "infinite": parts.infinite, "exact": bool(exact),
                          **{key: c.get(key) for key in ("min", "max", "mean", "std")},
                          "points": points.tolist(), "weights": weights.tolist()}
    elif name in sketch_parts.dates and c["kind"] == "datetime":
        unit, periods = sketch_parts.dates[name].finish()
        out["dates"] = {"min": c.get("min_date"), "max": c.get("max_date"), "zone": sketch_parts.dates[name].zone,
                        "unit": unit, "periods": periods}
    elif name in value_counts and c["kind"] in ("categorical", "boolean", "text"):
        sample = len(df) if name in sampled_counts else None
        out["values"] = value_part(value_counts[name], rows - c["missing"], c["distinct"], sample)
    return out


sketch = jsonable({
    "version": SKETCH_VERSION, "rows": rows, "quantile_points": QUANTILE_POINTS,
    "value_counts_cap": VALUE_COUNTS_CAP, "time_periods": TIME_PERIODS,
    "columns": [column_sketch(c) for c in column_info],
})
kept = {"numbers": "quantiles", "values": "value counts", "dates": "rows per period"}
summary = ", ".join(f"{sum(1 for c in sketch['columns'] if key in c)} with {what}" for key, what in kept.items())
display({SKETCH_MIME: sketch, "text/plain": f"Sketch of {len(sketch['columns'])} columns for later comparisons: {summary}"},
        raw=True)
