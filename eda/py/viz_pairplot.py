pairplot_columns = []
pairplot_data = df[pairplot_columns].replace([np.inf, -np.inf], np.nan)
size = len(pairplot_columns)
fig, axes = plt.subplots(size, size, figsize=(2.4 * size + 1, 2.4 * size), squeeze=False)
for i, y in enumerate(pairplot_columns):
    for j, x in enumerate(pairplot_columns):
        ax = axes[i, j]
        if i == j:
            values = pairplot_data[x].dropna()
            ax.hist(values, bins=hist_bins(values, 20))
            ax.set_ylabel("rows", fontsize=8)
        else:
            both = pairplot_data[[x, y]].dropna()
            ax.scatter(both[x], both[y], s=3, alpha=0.4, linewidths=0)
            ax.set_ylabel(chart_label(y, 20), fontsize=8)
        ax.set_xlabel(chart_label(x, 20), fontsize=8)
        ax.set_title(chart_label(x if i == j else f"{y} / {x}", 30), fontsize=8)
        ax.tick_params(labelsize=7)
fig.suptitle("Pair plot of the numeric columns")
fig.tight_layout()
plt.show()
