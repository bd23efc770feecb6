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
