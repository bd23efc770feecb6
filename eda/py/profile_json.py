PROFILE_MIME = {{MIME}}  # analyst reads the profile from this output
profile = jsonable({
    "rows": rows,
    "columns": len(df.columns),
    "memory_bytes": int(memory.sum()),
    "duplicate_rows": duplicate_rows,
    "load": load_info,
    "column_info": column_info,
    "alerts": alerts,{{OUT_OF_CORE}}
})
summary = f"Data profile: {rows:,} rows × {len(df.columns):,} columns, {len(alerts)} alert(s)"
display({PROFILE_MIME: profile, "text/plain": summary}, raw=True)
