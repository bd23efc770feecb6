def chart_label(value, width=40):
    """Text for a chart: cut to width characters, and '$' escaped (matplotlib reads $...$ as math)."""
    text = str(value)
    if len(text) > width:
        text = text[: width - 1] + "…"
    return text.replace("$", r"\$")


def chart_grid(n, ncols=3, width=4.5, height=3.2):
    """A figure with n panels, ncols to a row; panels left over are hidden."""
    ncols = min(ncols, n)
    nrows = math.ceil(n / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, axes.flat[:n]


def hist_bins(values, bins={{HIST_BINS}}):
    """Bin edges: for integers, bins of whole numbers centred on the values (no empty slivers
    between integers), at most bins of them; otherwise bins equal-width bins."""
    if not pd.api.types.is_integer_dtype(values) or values.empty:
        return bins
    low, high = int(values.min()), int(values.max())
    width = max(1, math.ceil((high - low + 1) / bins))
    count = math.ceil((high - low + 1) / width)
    return low - 0.5 + width * np.arange(count + 1)


PERIOD_UNITS = {"h": "h", "D": "D", "MS": "M", "YS": "Y"}  # numpy's datetime units for the period aliases


def date_periods(dates, freq):
    """Each date's period, numbered from the first (0, 1, ...), and the start of every period from the
    first to the last, empty ones included: the periods resample(freq, closed="left", label="left")
    makes (freq one of h, D, W-MON, MS, YS). Integer period numbers are O(n); resample sorts the dates.
    Dates with a time zone are bucketed by their local calendar, as resample does."""
    dates = pd.DatetimeIndex(dates)
    values = (dates.tz_localize(None) if dates.tz is not None else dates).to_numpy()
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64), dates[:0]
    if freq == "W-MON":
        # Weeks start on Monday; day 0 (1970-01-01) was a Thursday, so day -3 was a Monday.
        number = (values.astype("datetime64[D]").astype(np.int64) + 3) // 7
        first, last = number.min(), number.max()
        starts = (np.arange(first, last + 1) * 7 - 3).astype("datetime64[D]")
    else:
        unit = PERIOD_UNITS[freq]
        number = values.astype(f"datetime64[{unit}]").astype(np.int64)
        first, last = number.min(), number.max()
        starts = np.arange(first, last + 1).astype(f"datetime64[{unit}]")
    starts = pd.DatetimeIndex(starts.astype(values.dtype), freq=freq)
    if dates.tz is not None:
        starts = starts.tz_localize(dates.tz)
    return number - first, starts


def sum_per_code(values, codes, count):
    """The sum of values for each code 0 .. count-1 (0 where there are none; missing values are left
    out), by pandas' groupby sum, so the same numbers as resample or groupby would give."""
    return values.groupby(pd.Categorical.from_codes(codes, categories=range(count)), observed=False).sum().to_numpy()
