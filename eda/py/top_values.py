TOP_CATEGORIES = 10
categorical_columns = []
SHARE_ROWS = len(df)  # the shares' denominator: every row (out of core: rows, every row of the file)
COUNTED_IN_SAMPLE = []  # out of core: the columns whose values the sample df counted; their shares are of its rows
top_values = {column: value_counts[column].head(TOP_CATEGORIES) for column in categorical_columns}
top_table = pd.concat(
    {column: pd.DataFrame({"count": counts, "share": counts / (len(df) if column in COUNTED_IN_SAMPLE else SHARE_ROWS)}) for column, counts in top_values.items()},
    names=["column", "value"],
)
with pd.option_context("display.max_rows", 200):
    display(top_table)
