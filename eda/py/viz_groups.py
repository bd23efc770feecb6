group_column = None
group_values = []
groups = df.groupby(group_column, observed=True, sort=False)
group_sizes = groups.size().sort_values(ascending=False, kind="stable")
group_order = list(group_sizes.index)
group_rows = groups.indices  # each group's row positions
no_group = len(df) - int(group_sizes.sum())  # rows whose category is missing: in no group
group_stats = {}  # per column: each group's values, its median (missing values left out), its values beyond the whiskers

fig, axes = chart_grid(len(group_values), ncols=2, width=max(5, 0.7 * len(group_order) + 2), height=4)
positions = range(1, len(group_order) + 1)  # every group keeps its place in every panel, with or without values
for drawn, (ax, column) in enumerate(zip(axes, group_values), start=1):
    stats, drawn_at, labels, counts, medians, beyond = [], [], [], [], [], []
    column_values = df[column].to_numpy(dtype=float, na_value=np.nan)
    for position, name in zip(positions, group_order):
        values = column_values[group_rows[name]]
        values = values[~np.isnan(values)]
        with np.errstate(invalid="ignore"):  # -inf and inf in the middle: NaN, as groupby's median, unwarned
            medians.append(np.median(values) if len(values) else np.nan)
        values = values[np.isfinite(values)]
        counts.append(len(values))
        if len(values):
            box = box_stats(values, whis=1.5)
            stats.append(box)
            drawn_at.append(position)
            # not drawn (showfliers=False), counted: values past the whiskers, i.e. beyond 1.5 × IQR of the box
            beyond.append(int(np.count_nonzero(values < box["whislo"]) + np.count_nonzero(values > box["whishi"])))
            labels.append(f"{chart_label(name, 15)}\n{len(values):,} values")
        else:
            beyond.append(0)
            labels.append(f"{chart_label(name, 15)}\nno values")
    # outliers are not drawn: with many rows they would hide the boxes (the table counts them);
    # widths and limits as bxp gives them when every group has a box
    ax.bxp(stats, positions=drawn_at, widths=float(np.clip(0.15 * (len(group_order) - 1), 0.15, 0.5)), showfliers=False)
    ax.set_xlim(0.5, len(group_order) + 0.5)
    ax.set_xticks(positions, labels, rotation=30 if len(labels) > 5 else 0, fontsize=8)
    ax.set_title(chart_label(f"{column} by {group_column}", 50))
    ax.set_xlabel(chart_label(group_column))
    ax.set_ylabel(chart_label(column))
    group_stats["values " + column] = counts
    group_stats["median " + column] = medians
    group_stats["beyond whiskers " + column] = beyond
    progress_log.info(f"drew {drawn:,} of {len(group_values):,} columns by {group_column}",
                      extra={"done": drawn, "total": len(group_values), "unit": "columns"})
group_table = pd.DataFrame(group_stats, index=pd.Index(group_order, name=group_column))
group_table.insert(0, "rows", group_sizes)
if no_group:
    print(f"{no_group:,} rows have no {group_column}: they are in no group, left out of the boxes and the table.")
print("Values beyond the whiskers (more than 1.5 × IQR from the box), not drawn: " + ", ".join(
    f"{column} {group_table['beyond whiskers ' + column].sum():,} of {group_table['values ' + column].sum():,}"
    for column in group_values) + ".")
display(group_table)
fig.suptitle(chart_label(f"Numeric columns by {group_column}", 60))
fig.tight_layout()
plt.show()
