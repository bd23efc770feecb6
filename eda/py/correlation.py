correlation_columns = {{COLUMNS}}
pearson = df[correlation_columns].corr(method="pearson")
# Spearman's rho: Pearson's r of the ranks; each column is ranked once (ties get their average rank).
spearman = df[correlation_columns].rank().corr(method="pearson")
print("Pearson r")
display(pearson)
print("Spearman rho")
display(spearman)

labels = [chart_label(column, 25) for column in correlation_columns]
size = max(4.0, 0.4 * len(correlation_columns) + 2.5)
for title, matrix in [("Pearson r", pearson), ("Spearman ρ", spearman)]:
    fig, ax = plt.subplots(figsize=(size + 1.5, size))
    sns.heatmap(matrix, ax=ax, vmin=-1, vmax=1, center=0, cmap="RdBu_r", square=True,
                annot={{ANNOTATE}}, fmt=".2f", xticklabels=labels, yticklabels=labels,
                cbar_kws={"label": title})
    ax.set_title(f"{title} between numeric columns")
    ax.set_xlabel("column")
    ax.set_ylabel("column")
    fig.tight_layout()
    plt.show()
