group_column = {{CATEGORY}}
group_values = {{COLUMNS}}
groups = df.groupby(group_column, observed=True, sort=False)
group_sizes = groups.size().sort_values(ascending=False, kind="stable")
group_order = list(group_sizes.index)
group_rows = groups.indices  # each group's row positions
group_medians = {}  # per column, each group's median (missing values left out), from the rows the boxes use

fig, axes = chart_grid(len(group_values), ncols=2, width=max(5, 0.7 * len(group_order) + 2), height=4)
for drawn, (ax, column) in enumerate(zip(axes, group_values), start=1):
    stats, labels, medians = [], [], []
    column_values = df[column].to_numpy(dtype=float, na_value=np.nan)
    for name in group_order:
        values = column_values[group_rows[name]]
        values = values[~np.isnan(values)]
        with np.errstate(invalid="ignore"):  # -inf and inf in the middle: NaN, as groupby's median, unwarned
            medians.append(np.median(values) if len(values) else np.nan)
        values = values[np.isfinite(values)]
        if len(values):
            stats.append(box_stats(values, whis=1.5))
            labels.append(f"{chart_label(name, 15)}\nn={len(values):,}")
    ax.bxp(stats, showfliers=False)  # outliers are not drawn: with many rows they would hide the boxes
    ax.set_xticks(range(1, len(labels) + 1), labels, rotation=30 if len(labels) > 5 else 0, fontsize=8)
    ax.set_title(chart_label(f"{column} by {group_column}", 50))
    ax.set_xlabel(chart_label(group_column))
    ax.set_ylabel(chart_label(column))
    group_medians["median " + column] = medians
    progress_log.info(f"drew {drawn:,} of {len(group_values):,} columns by {group_column}",
                      extra={"done": drawn, "total": len(group_values), "unit": "columns"})
group_table = pd.DataFrame(group_medians, index=pd.Index(group_order, name=group_column))
group_table.insert(0, "rows", group_sizes)
display(group_table)
fig.suptitle(chart_label(f"Numeric columns by {group_column}", 60))
fig.tight_layout()
plt.show()
