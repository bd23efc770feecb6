# Alert thresholds, after ydata-profiling's alerts (the table above says why each is set so).
HIGH_MISSING_SHARE = 0.2  # flag a column with at least this share of missing values
HIGH_CARDINALITY = 50  # flag a categorical column with more distinct values than this
SKEWED = 2.0  # flag a numeric column whose |skewness| is above this
HIGH_CORRELATION = 0.9  # flag two numeric columns whose |Pearson r| is at least this
CORRELATION_MAX_COLUMNS = 30  # check at most this many numeric columns (most distinct values first)
DATES_AS_TEXT_SHARE = 0.5  # flag a text column when at least this share of sampled values are dates
MIXED_SAMPLE = 10_000  # values sampled per text column to look for numbers mixed with text


def alert(type_, message, column=None, columns=None, value=None):
    a = {"type": type_, "message": message}
    if column is not None:
        a["column"] = column
    if columns is not None:
        a["columns"] = columns
    if value is not None:
        a["value"] = value
    return jsonable(a)


alerts = []
if duplicate_rows:
    alerts.append(alert("duplicates", f"{duplicate_rows:,} rows ({duplicate_rows / rows:.2%}) are exact "
                        "duplicates of an earlier row", value=duplicate_rows))
for c in column_info:
    name, kind, s = c["name"], c["kind"], df[c["name"]]
    if kind == "empty":
        alerts.append(alert("empty", f"{name!r} has no values: every row is missing", name, value=1.0))
        continue
    if c["missing_share"] >= HIGH_MISSING_SHARE:
        alerts.append(alert("high_missing", f"{name!r} is missing in {c['missing_share']:.1%} of rows",
                            name, value=c["missing_share"]))
    if c["distinct"] == 1:
        alerts.append(alert("constant", f"{name!r} has a single value ({c['sample'][0]!r})", name, value=1))
        continue
    unique = c["distinct"] == rows and rows > 1 and (
        pd.api.types.is_integer_dtype(s) or kind == "categorical")
    if unique:
        alerts.append(alert("unique_id", f"{name!r} has a different value in every row: an identifier?",
                            name, value=c["distinct"]))
    elif kind == "categorical" and c["distinct"] > HIGH_CARDINALITY:
        alerts.append(alert("high_cardinality", f"{name!r} has {c['distinct']:,} distinct values",
                            name, value=c["distinct"]))
    if kind == "numeric" and c["skew"] is not None and abs(c["skew"]) > SKEWED:
        side = "right (a long tail of large values)" if c["skew"] > 0 else "left (a long tail of small values)"
        alerts.append(alert("skewed", f"{name!r} is skewed to the {side}: skewness {c['skew']:.2f}",
                            name, value=c["skew"]))
    if kind in ("categorical", "text"):
        values = spaced_sample(s, MIXED_SAMPLE)
        fmt, share = date_format(values.head(500))
        if share >= DATES_AS_TEXT_SHARE:
            alerts.append(alert("dates_as_text", f"{name!r} holds dates as text ({share:.0%} of sampled "
                                f"values read as {fmt}); it was not converted because fewer than "
                                f"{DATE_SHARE:.0%} of its values are dates", name, value=share))
            continue
        numbers = pd.to_numeric(values, errors="coerce").notna()
        if 0 < numbers.mean() < 1:
            examples = ", ".join(repr(str(v))[:40] for v in values[~numbers].drop_duplicates().head(3))
            alerts.append(alert("mixed_types", f"{name!r} mixes numbers ({numbers.mean():.1%} of sampled "
                                f"values) with text such as {examples}", name, value=numbers.mean()))

# Correlated pairs, among the numeric columns with the most distinct values.
numeric_info = [c for c in column_info if c["kind"] == "numeric" and c["distinct"] > 1]
checked = [c["name"] for c in sorted(numeric_info, key=lambda c: -c["distinct"])[:CORRELATION_MAX_COLUMNS]]
checked = [name for name in df.columns if name in checked]  # in the file's order
if len(checked) >= 2:
    r = df[checked].corr(method="pearson")
    for i, a in enumerate(checked):
        for b in checked[i + 1:]:
            if abs(r.loc[a, b]) >= HIGH_CORRELATION:
                alerts.append(alert("high_correlation", f"{a!r} and {b!r} are highly correlated "
                                    f"(Pearson r = {r.loc[a, b]:.3f})", columns=[a, b], value=r.loc[a, b]))

if alerts:
    display(pd.DataFrame({"alert": [a["type"] for a in alerts], "message": [a["message"] for a in alerts]}))
else:
    print("No alerts.")
