listed = [c for c in changes if c["check"] in ("new-category", "vanished-category") and "value_text" in c["numbers"]]
category_changes = pd.DataFrame({
    "column": [c["column"] for c in listed],
    "value": [c["numbers"]["value_text"] for c in listed],
    "change": [c["check"].split("-")[0] for c in listed],
    "rows": [c["numbers"]["rows"] for c in listed],
    "share": [c["value"] for c in listed],
    "level": [c["level"] for c in listed],
})
movers = []  # the values whose share moved most, per categorical column
for c in changes:
    if c["check"] != "category-shift" or c["value"] == 0 or "values" not in compared[c["column"]][0]:
        continue  # no shift, or a numeric column of few values
    a, b = (side["values"] for side in compared[c["column"]])
    names, old, new = aligned_counts(dict(a["top"]), dict(b["top"]), a["other_rows"], b["other_rows"],
                                     a["complete"], b["complete"])
    old, new = old / old.sum(), new / new.sum()
    for i in sorted(range(len(names)), key=lambda i: (-abs(new[i] - old[i]), names[i]))[:5]:
        movers.append((c["column"], names[i], old[i], new[i]))
share_movers = pd.DataFrame(movers, columns=["column", "value", "baseline share", "new share"])
share_movers["Δ share"] = share_movers["new share"] - share_movers["baseline share"]
if not len(category_changes):
    print("No value is new or gone from a categorical column counted in full on both sides.")
display(category_changes)
share_movers
