print(f"{rows:,} rows × {len(df.columns):,} columns, {duplicate_rows:,} duplicate rows, "
      f"{memory.sum() / 2**20:,.1f} MiB in memory")
overview
