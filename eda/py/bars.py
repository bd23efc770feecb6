bar_columns = []
fig, axes = chart_grid(len(bar_columns), ncols=2, width=6, height=0.3 * TOP_CATEGORIES + 1.5)
for ax, column in zip(axes, bar_columns):
    counts = top_values[column]
    positions = range(len(counts))
    ax.barh(positions, counts.values)
    ax.set_yticks(positions)
    ax.set_yticklabels([chart_label(value, 30) for value in counts.index])
    ax.invert_yaxis()  # most frequent on top
    ax.set_title(chart_label(column))
    ax.set_xlabel("rows")
    ax.set_ylabel(chart_label(column, 30))
fig.suptitle("Most frequent values of the categorical columns")
fig.tight_layout()
plt.show()
