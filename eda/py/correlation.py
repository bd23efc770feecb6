correlation_columns = []
ANNOTATE = True  # each coefficient written in its heatmap cell: for at most 12 columns
pearson = df[correlation_columns].corr(method="pearson")


def average_ranks(values):
    """The ranks pandas' rank() gives (ties share their average rank, missing values stay missing),
    from the distinct values: one hashing pass over the column and a sort of its distinct values only.
    A value's rank is the count of smaller values plus (its count + 1) / 2."""
    codes, distinct = pd.factorize(values, sort=True)  # code -1: missing
    counts = np.bincount(codes[codes >= 0], minlength=len(distinct))
    rank_of_distinct = (np.cumsum(counts) - counts) + (counts + 1) / 2
    return np.append(rank_of_distinct, np.nan)[codes]  # code -1 picks the NaN at the end


# Spearman's rho: Pearson's r of the ranks; each column is ranked once (ties get their average rank).
ranks = {}
for column in correlation_columns:
    ranks[column] = average_ranks(df[column])
    progress_log.info(f"ranked {len(ranks):,} of {len(correlation_columns):,} columns for Spearman's rho",
                      extra={"done": len(ranks), "total": len(correlation_columns), "unit": "columns"})
spearman = pd.DataFrame(ranks, index=df.index).corr(method="pearson")
print("Pearson r")
display(pearson)
print("Spearman rho")
display(spearman)

labels = [chart_label(column, 25) for column in correlation_columns]
size = max(4.0, 0.4 * len(correlation_columns) + 2.5)
for title, matrix in [("Pearson r", pearson), ("Spearman ρ", spearman)]:
    fig, ax = plt.subplots(figsize=(size + 1.5, size))
    sns.heatmap(matrix, ax=ax, vmin=-1, vmax=1, center=0, cmap="RdBu_r", square=True,
                annot=ANNOTATE, fmt=".2f", xticklabels=labels, yticklabels=labels,
                cbar_kws={"label": title})
    ax.set_title(f"{title} between numeric columns")
    ax.set_xlabel("column")
    ax.set_ylabel("column")
    fig.tight_layout()
    plt.show()
