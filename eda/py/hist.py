hist_columns = []
draw_histogram = values_histogram  # out of core: counted_histogram, the bins the second pass counted over every row
fig, axes = chart_grid(len(hist_columns))
for ax, column in zip(axes, hist_columns):
    draw_histogram(ax, column)
    ax.set_title(chart_label(column))
    ax.set_xlabel(chart_label(column))
    ax.set_ylabel("rows")
fig.suptitle("Distributions of the numeric columns")
fig.tight_layout()
plt.show()
