PERIOD_WORD = "month"  # the period, in the table's and the charts' labels
per_period.index.name = PERIOD_WORD + " starting"
display(per_period)

fig, axes = plt.subplots(len(per_period.columns), 1, figsize=(10, 3.2 * len(per_period.columns)),
                         sharex=True, squeeze=False)
for ax, series in zip(axes.flat, per_period.columns):
    ax.plot(per_period.index, per_period[series], marker="o", markersize=3)
    ax.set_title(chart_label(series[0].upper() + series[1:], 60) + " per " + PERIOD_WORD)
    ax.set_ylabel(chart_label(series, 30))
    ax.set_xlabel(chart_label(date_column) + " (" + PERIOD_WORD + " starting)")
    ax.ticklabel_format(axis="y", style="plain", useOffset=False)  # 12000000, not 1.2 with 1e7 above
fig.tight_layout()
plt.show()
