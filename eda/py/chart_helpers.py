from matplotlib import transforms as mtransforms


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


HIST_BINS = 30  # bins of a histogram: equal-width, or at most this many of whole numbers


def hist_bins(values, bins=HIST_BINS):
    """Bin edges: for integers, bins of whole numbers centred on the values (no empty slivers
    between integers), at most bins of them; otherwise bins equal-width bins."""
    if not pd.api.types.is_integer_dtype(values) or values.empty:
        return bins
    low, high = int(values.min()), int(values.max())
    width = max(1, math.ceil((high - low + 1) / bins))
    count = math.ceil((high - low + 1) / width)
    return low - 0.5 + width * np.arange(count + 1, dtype=float)  # floats: int64 extremes would wrap around


def values_histogram(ax, column):
    """The histogram of df[column]'s finite values on ax, binned by hist_bins."""
    values = df[column].replace([np.inf, -np.inf], np.nan).dropna()
    ax.hist(values, bins=hist_bins(values))


PERIOD_UNITS = {"h": "h", "D": "D", "MS": "M", "YS": "Y"}  # numpy's datetime units for the period aliases


def date_periods(dates, freq):
    """Each date's period, numbered from the first (0, 1, ...), and the start of every period from the
    first to the last, empty ones included: the periods resample(freq, closed="left", label="left")
    makes (freq one of h, D, W-MON, MS, YS). Integer period numbers are O(n); resample sorts the dates.
    Dates with a time zone are bucketed by their local calendar (hours by the instant), as resample does."""
    dates = pd.DatetimeIndex(dates)
    values = (dates.tz_localize(None) if dates.tz is not None else dates).to_numpy()
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64), dates[:0]
    if freq == "h" and dates.tz is not None:
        # Hours have one length everywhere: the instants are bucketed, with the zone's offset past whole
        # hours (India's 30 minutes), so a daylight-saving change neither skips nor repeats an hour.
        instants = dates.tz_convert("UTC").tz_localize(None).to_numpy().astype("datetime64[ns]").astype(np.int64)
        shift = (values[0].astype("datetime64[ns]").astype(np.int64) - instants[0]) % 3_600_000_000_000
        number = (instants + shift) // 3_600_000_000_000
        first = number.min()
        starts = pd.DatetimeIndex((np.arange(first, number.max() + 1) * 3_600_000_000_000 - shift).astype("datetime64[ns]"))
        starts = starts.tz_localize("UTC").tz_convert(dates.tz).as_unit(dates.unit)
        return number - first, pd.DatetimeIndex(starts, freq=freq)
    if freq == "h":
        number = values.astype("datetime64[h]").astype(np.int64)
    else:
        days = values.astype("datetime64[D]").astype(np.int64)
        if freq == "D":
            number = days
        elif freq == "W-MON":
            number = (days + 3) // 7  # weeks start on Monday; day 0 (1970-01-01) was a Thursday
        else:  # months and years: numpy's calendar conversion is slow per row, so it is done per distinct day
            first_day = days.min()
            day_range = np.arange(first_day, days.max() + 1).astype("datetime64[D]")
            number = day_range.astype(f"datetime64[{PERIOD_UNITS[freq]}]").astype(np.int64)[days - first_day]
    first, last = number.min(), number.max()
    if freq == "W-MON":
        starts = (np.arange(first, last + 1) * 7 - 3).astype("datetime64[D]")  # day -3 was a Monday
    else:
        starts = np.arange(first, last + 1).astype(f"datetime64[{PERIOD_UNITS[freq]}]")
    starts = pd.DatetimeIndex(starts.astype(values.dtype), freq=freq)
    if dates.tz is not None:
        starts = starts.tz_localize(dates.tz)
    return number - first, starts


def sum_per_code(values, codes, count):
    """The sum of values for each code 0 .. count-1 (0 where there are none; missing values are left
    out), by pandas' groupby sum, so the same numbers as resample or groupby would give."""
    return values.groupby(pd.Categorical.from_codes(codes, categories=range(count)), observed=False).sum().to_numpy()


def hexbin_rows(ax, xs, ys, gridsize, **style):
    """ax.hexbin(xs, ys, gridsize=gridsize, mincnt=1, **style), the same drawing: the rows in each
    hexagon are counted here with hexbin's own arithmetic (matplotlib 3.10, Axes.hexbin) a block of
    rows at a time, and hexbin then draws one point per non-empty hexagon weighted by its count.
    Hexbin would hold a dozen temporary arrays as long as the data at once."""
    nx, ny = gridsize, int(gridsize / math.sqrt(3))
    xmin, xmax = mtransforms.nonsingular(xs.min(), xs.max(), expander=0.1)
    ymin, ymax = mtransforms.nonsingular(ys.min(), ys.max(), expander=0.1)
    extent = (xmin, xmax, ymin, ymax)
    padding = 1.e-9 * (xmax - xmin)
    xmin, xmax = xmin - padding, xmax + padding
    sx, sy = (xmax - xmin) / nx, (ymax - ymin) / ny
    nx1, ny1 = nx + 1, ny + 1
    counts1 = np.zeros(1 + nx1 * ny1, dtype=np.int64)  # [0]: points outside the grid
    counts2 = np.zeros(1 + nx * ny, dtype=np.int64)
    block = 1 << 16  # rows at a time: the temporaries stay in the CPU's cache
    for start in range(0, len(xs), block):
        ix = (xs[start:start + block] - xmin) / sx
        iy = (ys[start:start + block] - ymin) / sy
        ix1, iy1 = np.round(ix).astype(int), np.round(iy).astype(int)
        ix2, iy2 = np.floor(ix).astype(int), np.floor(iy).astype(int)
        i1 = np.where((0 <= ix1) & (ix1 < nx1) & (0 <= iy1) & (iy1 < ny1), ix1 * ny1 + iy1 + 1, 0)
        i2 = np.where((0 <= ix2) & (ix2 < nx) & (0 <= iy2) & (iy2 < ny), ix2 * ny + iy2 + 1, 0)
        nearer1 = (ix - ix1) ** 2 + 3.0 * (iy - iy1) ** 2 < (ix - ix2 - 0.5) ** 2 + 3.0 * (iy - iy2 - 0.5) ** 2
        counts1 += np.bincount(i1[nearer1], minlength=len(counts1))
        counts2 += np.bincount(i2[~nearer1], minlength=len(counts2))
    # The hexagons' centres, as hexbin places them: the two lattices, the second offset by half a cell.
    centres_x = np.concatenate([np.repeat(np.arange(nx1), ny1), np.repeat(np.arange(nx) + 0.5, ny)]) * sx + xmin
    centres_y = np.concatenate([np.tile(np.arange(ny1), nx1), np.tile(np.arange(ny), nx) + 0.5]) * sy + ymin
    counts = np.concatenate([counts1[1:], counts2[1:]])
    filled = counts > 0
    return ax.hexbin(centres_x[filled], centres_y[filled], C=counts[filled], reduce_C_function=np.sum,
                     gridsize=gridsize, extent=extent, mincnt=1, **style)


def box_stats(values, whis=1.5):
    """What ax.bxp draws of a box, as matplotlib's cbook.boxplot_stats(values, whis) computes it:
    quartiles by linear interpolation, whiskers at the furthest values within whis × IQR of the box.
    Without the mean, notches and outliers boxplot_stats also computes (and copies the values for)."""
    q1, med, q3 = np.percentile(values, [25, 50, 75])
    iqr = q3 - q1
    high = np.max(values, where=values <= q3 + whis * iqr, initial=-np.inf)
    low = np.min(values, where=values >= q1 - whis * iqr, initial=np.inf)
    return {"med": med, "q1": q1, "q3": q3, "whislo": min(low, q1), "whishi": max(high, q3), "fliers": []}
