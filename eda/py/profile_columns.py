rows = len(df)
drop_stale_codes(df)  # the loader's codes, unless a cell has changed the values since
# Bytes per column, and the index: df.memory_usage(deep=True), column by column.
memory = pd.Series([df.index.memory_usage(deep=True)] + [memory_bytes(df[name]) for name in df.columns],
                   index=["Index", *df.columns], dtype="int64")
value_counts = {}  # frequencies of the non-numeric columns, for the alerts
column_info = []
for name in df.columns:
    column_info.append(profile_column(name, df[name], rows, memory[name], value_counts))
    progress_log.info(f"profiled {len(column_info):,} of {len(df.columns):,} columns",
                      extra={"done": len(column_info), "total": len(df.columns), "unit": "columns"})
# Exact duplicate rows. None can exist when a column has a different value in every row (an
# identifier); only otherwise are all the rows compared, which takes long on millions of rows.
identifier = next((c["name"] for c in column_info if c["distinct"] == rows and c["missing"] == 0), None)
duplicate_rows = 0 if identifier is not None else int(df.duplicated().sum())
# The codes the loader kept have served the profile: let them go, so that no later cell (the
# model's, or yours after changing df) can read codes of values that are no longer there.
FACTORIZED.clear()
