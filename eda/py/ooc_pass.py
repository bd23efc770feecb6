hist_columns = []
date_column = None
value_column = None
FREQUENCY = None


def exact_bins(column, bins=HIST_BINS):
    """hist_bins of the whole column, from its exact minimum and maximum: for integers, bins of
    whole numbers centred on the values, at most bins of them; otherwise bins equal-width bins
    (as numpy.histogram makes them)."""
    low, high = numeric_moments[column]["min"], numeric_moments[column]["max"]
    if missing[column] == 0 and pd.api.types.is_integer_dtype(df[column]):
        low, high = int(low), int(high)
        width = max(1, math.ceil((high - low + 1) / bins))
        count = math.ceil((high - low + 1) / width)
        return low - 0.5 + width * np.arange(count + 1)
    if low == high:
        low, high = low - 0.5, high + 0.5
    return np.linspace(low, high, bins + 1)


def counted_histogram(ax, column):
    """The histogram of column on ax from the bins counted below, over every row."""
    edges = hist_edges[column]
    ax.hist(edges[:-1], bins=edges, weights=hist_counts[column])


hist_edges = {column: exact_bins(column) for column in hist_columns}
hist_counts = {column: np.zeros(len(edges) - 1, dtype="int64") for column, edges in hist_edges.items()}
periods = []
used = hist_columns + [c for c in (date_column, value_column) if c is not None and c not in hist_columns]
for chunk in read_chunks(plan, used):
    for column in hist_columns:
        values = chunk[column].replace([np.inf, -np.inf], np.nan).dropna().to_numpy(dtype="float64")
        hist_counts[column] += np.histogram(values, bins=hist_edges[column])[0]
    if date_column is not None:
        dated = chunk[date_column].notna()
        dates = pd.DatetimeIndex(chunk.loc[dated, date_column])
        # Each period is the interval [start, next start), labelled by its start.
        part = pd.DataFrame({"rows": pd.Series(1, index=dates).resample(FREQUENCY, closed="left", label="left").size()})
        if value_column is not None:
            values = pd.Series(chunk.loc[dated, value_column].to_numpy(), index=dates)
            part["sum of " + value_column] = values.resample(FREQUENCY, closed="left", label="left").sum()
        periods.append(part)
if date_column is not None:
    per_period = pd.concat(periods).groupby(level=0).sum()
    every = pd.date_range(per_period.index.min(), per_period.index.max(), freq=FREQUENCY)  # periods no chunk had
    per_period = per_period.reindex(every, fill_value=0)
    per_period["rows"] = per_period["rows"].astype("int64")
print(f"Second pass: {len(hist_columns)} histogram(s)" + ("" if date_column is None else f", {len(per_period):,} periods"))
