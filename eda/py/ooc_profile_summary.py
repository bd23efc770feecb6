overview["distinct"] = [f"≈{c['distinct']:,}" if c["name"] in out_of_core["approximate_distinct"] else f"{c['distinct']:,}"
                        for c in column_info]
print(f"{rows:,} rows × {len(plan['columns']):,} columns read in {chunks_read:,} chunks, {duplicate_rows:,} duplicate rows, "
      f"≈{memory.sum() / 2**20:,.1f} MiB if loaded whole; df holds a uniform sample of {len(df):,} rows")
overview
