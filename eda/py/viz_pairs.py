pair_columns = []
TOP_PAIRS = 3  # pairs drawn; the table lists up to LISTED_PAIRS
LISTED_PAIRS = 20
HEXBIN_ROWS = 50_000  # above this many rows a pair is drawn as hexagonal bins
pair_r = pearson
ranked = []
for i, x in enumerate(pair_columns):
    for y in pair_columns[i + 1:]:
        if np.isfinite(pair_r.loc[x, y]):
            ranked.append((x, y, float(pair_r.loc[x, y])))
ranked.sort(key=lambda pair: -abs(pair[2]))  # stable: ties keep the columns' order
pair_table = pd.DataFrame(ranked[:LISTED_PAIRS], columns=["x", "y", "r"])
pair_table.index = pair_table.index + 1
pair_table.index.name = "rank"
display(pair_table)
if len(ranked) > LISTED_PAIRS:
    print(f"{len(ranked) - LISTED_PAIRS:,} weaker pairs not listed.")

top_pairs = []
for x, y, r in ranked[:TOP_PAIRS]:
    # The rows where both values are finite (no copy of the columns when every row is).
    xs, ys = df[x].to_numpy(dtype=float, na_value=np.nan), df[y].to_numpy(dtype=float, na_value=np.nan)
    both = np.isfinite(xs) & np.isfinite(ys)
    if not both.all():
        xs, ys = xs[both], ys[both]
    slope = r * ys.std(ddof=1) / xs.std(ddof=1)
    intercept = ys.mean() - slope * xs.mean()
    top_pairs.append((x, y, r, slope, intercept, xs, ys))
    sign = "-" if slope < 0 else "+"
    print(f"{y} ≈ {show_number(intercept)} {sign} {show_number(abs(slope))} × {x}   (r = {r:.3f}, n = {len(xs):,})")

if top_pairs:
    fig, axes = chart_grid(len(top_pairs), width=5, height=4)
    for drawn, (ax, (x, y, r, slope, intercept, xs, ys)) in enumerate(zip(axes, top_pairs), start=1):
        if len(xs) > HEXBIN_ROWS:
            bins = hexbin_rows(ax, xs, ys, gridsize=40, cmap="viridis", linewidths=0)
            fig.colorbar(bins, ax=ax, label="rows")
        else:
            ax.scatter(xs, ys, s=6, alpha=0.4, linewidths=0)
        ends = np.array([xs.min(), xs.max()])
        ax.plot(ends, intercept + slope * ends, color="tab:red", linewidth=1.5, label="least-squares line")
        ax.set_title(chart_label(f"{y} against {x} (r = {r:.2f})", 50))
        ax.set_xlabel(chart_label(x))
        ax.set_ylabel(chart_label(y))
        ax.legend(loc="best", fontsize=8)
        progress_log.info(f"drew {drawn:,} of {len(top_pairs):,} pairs",
                          extra={"done": drawn, "total": len(top_pairs), "unit": "pairs"})
    fig.suptitle("The most strongly correlated pairs of numeric columns")
    fig.tight_layout()
    plt.show()
