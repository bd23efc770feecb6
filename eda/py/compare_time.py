coverage = []
for name, (a, b) in compared.items():
    if "dates" not in a or "dates" not in b:
        continue
    gaps = next((c for c in changes if c["check"] == "gaps" and c["column"] == name), None)
    da, db = a["dates"], b["dates"]
    start, end = max(da["min"], db["min"]), min(da["max"], db["max"])
    coverage.append((name, da["min"], da["max"], db["min"], db["max"], f"{start} … {end}" if start <= end else "none",
                     "none" if gaps is None else gaps["text"]))
time_coverage = pd.DataFrame(coverage, columns=["column", "baseline from", "baseline to", "new from", "new to",
                                                "overlap", "gaps"]).set_index("column")
time_coverage
