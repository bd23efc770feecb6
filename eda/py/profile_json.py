PROFILE_MIME = "application/vnd.analyst.profile+json"  # analyst reads the profile from this output
profile = jsonable({
    "rows": rows,
    "columns": len(df.columns),
    "memory_bytes": int(memory.sum()),
    "duplicate_rows": duplicate_rows,
    "load": load_info,
    "column_info": column_info,
    "alerts": alerts,
})
