hist_columns = {{COLUMNS}}
fig, axes = chart_grid(len(hist_columns))
for ax, column in zip(axes, hist_columns):
    {{DRAW}}
    ax.set_title(chart_label(column))
    ax.set_xlabel(chart_label(column))
    ax.set_ylabel("rows")
fig.suptitle("Distributions of the numeric columns")
fig.tight_layout()
plt.show()
