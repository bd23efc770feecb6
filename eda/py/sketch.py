SKETCH_VERSION = {{SKETCH_VERSION}}  # the layout below; a comparison refuses a baseline sketch of another version
SKETCH_MIME = {{MIME}}  # analyst reads the sketch from this output and keeps it beside the run
approximate_distinct = {{APPROXIMATE}}  # columns whose distinct count is an estimate
sampled_counts = {{SAMPLED}}  # columns whose value counts come from the sample df, not every row
{{FEED}}

def value_part(counts, present, distinct, sample):
    """A categorical column's VALUE_COUNTS_CAP most frequent values, as text, with their rows (most
    first, ties by text), and the tail: the rows and the distinct values left out."""
    counts = counts.groupby(counts.index.map(str), sort=False).sum()
    counts = counts.iloc[np.lexsort((counts.index.to_numpy(dtype=str), -counts.to_numpy()))]
    if sample is not None:  # counted in the sample: scaled to every row, marked as such
        counts = (counts * (present / max(1, int(counts.sum())))).round().astype("int64")
    top = counts.head(VALUE_COUNTS_CAP)
    return {"top": [[v, int(n)] for v, n in top.items()], "other_rows": max(0, present - int(top.sum())),
            "other_values": max(0, distinct - len(top)), "complete": len(top) == len(counts) and sample is None,
            "sample": sample}


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
