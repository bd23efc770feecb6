TOP_CATEGORIES = {{TOP}}
categorical_columns = {{COLUMNS}}
top_values = {column: {{COUNTS}}.head(TOP_CATEGORIES) for column in categorical_columns}
top_table = pd.concat(
    {column: pd.DataFrame({"count": counts, "share": counts / {{ROWS}}}) for column, counts in top_values.items()},
    names=["column", "value"],
)
with pd.option_context("display.max_rows", 200):
    display(top_table)
