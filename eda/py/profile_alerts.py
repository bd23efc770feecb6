# Alert thresholds, after ydata-profiling's alerts (the table above says why each is set so).
HIGH_MISSING_SHARE = 0.2  # flag a column with at least this share of missing values
HIGH_CARDINALITY = 50  # flag a categorical column with more distinct values than this
SKEWED = 2.0  # flag a numeric column whose |skewness| is above this
HIGH_CORRELATION = 0.9  # flag two numeric columns whose |Pearson r| is at least this
CORRELATION_BLOCK = 200  # columns per block of the correlation check: memory stays rows × 3 blocks
CORRELATION_MAX_ALERTS = 50  # high_correlation alerts listed, strongest first; the rest are counted
VARIANT_GROUPS = 5  # groups of case/space variants shown per column
DATES_AS_TEXT_SHARE = 0.5  # flag a text column when at least this share of sampled values are dates
MIXED_SAMPLE = 10_000  # values sampled per text column to look for numbers mixed with text


def case_variants(counts):
    """Groups of values that differ only by case or surrounding spaces, most rows first:
    [[(value, count), ...], ...], each group's values most frequent first."""
    values = pd.Series(counts.index, dtype=object)
    text = values.map(type).eq(str)
    key = values[text].str.strip().str.casefold()
    shared = key[key.duplicated(keep=False)]
    groups = [[(values[i], int(counts.iloc[i])) for i in idx] for _, idx in shared.groupby(shared).groups.items()]
    return sorted(groups, key=lambda g: (-sum(n for _, n in g), str(g[0][0])))


def correlation_blocks(frame, names, threshold, block=CORRELATION_BLOCK):
    """(pairs, strongest): every pair of columns with |Pearson r| >= threshold, as (a, b, r), and
    each column's largest |r| with another column.

    r is over the rows where both values are present, as DataFrame.corr computes it, but from
    matrix products of the centred values (and, where values are missing, of the masks of
    present values), block by block of columns: memory stays rows × 3 blocks (two, and the squares of one). The columns of
    a block are copied straight from frame, laid out as frame[names].to_numpy() would lay them.
    """
    def prepared(start):
        x = np.empty((len(names[start:start + block]), len(frame)))
        for k, name in enumerate(names[start:start + block]):
            s = frame[name]  # NumPy numbers are cast as they are copied; others (Int64, Float64) give NaN for NA
            x[k] = s.to_numpy() if isinstance(s.dtype, np.dtype) else s.to_numpy(dtype=float, na_value=np.nan)
        x = x.T
        present = np.isfinite(x)  # missing and infinite values are left out
        absent = None if present.all() else ~present
        with np.errstate(all="ignore"):
            if absent is not None:
                np.copyto(x, 0.0, where=absent)
            x -= x.sum(axis=0) / present.sum(axis=0)  # centred on the mean of the present values
            if absent is not None:
                np.copyto(x, 0.0, where=absent)
        return x, (None if absent is None else present.astype(float))
    pairs, strongest = [], np.zeros(len(names))
    for i in range(0, len(names), block):
        xa, ma = prepared(i)
        squares_a = xa * xa
        for j in range(i, len(names), block):
            xb, mb = (xa, ma) if j == i else prepared(j)
            squares_b = squares_a if j == i else xb * xb
            with np.errstate(all="ignore"):
                if ma is None and mb is None:  # no value missing: one matrix product
                    r = (xa.T @ xb) / np.sqrt(np.outer(squares_a.sum(axis=0), squares_b.sum(axis=0)))
                    n = np.full(r.shape, len(frame))
                else:  # sums over the rows where both values are present
                    ma = np.ones_like(xa) if ma is None else ma
                    mb = np.ones_like(xb) if mb is None else mb
                    n = ma.T @ mb
                    sa, sb = xa.T @ mb, ma.T @ xb
                    r = (n * (xa.T @ xb) - sa * sb) / np.sqrt(
                        (n * (squares_a.T @ mb) - sa ** 2) * (n * (ma.T @ squares_b) - sb ** 2))
            r[~np.isfinite(r) | (n < 2)] = 0.0
            r = np.clip(r, -1.0, 1.0)
            if j == i:
                r = np.triu(r, 1)
            strongest[i:i + r.shape[0]] = np.maximum(strongest[i:i + r.shape[0]], np.abs(r).max(axis=1))
            strongest[j:j + r.shape[1]] = np.maximum(strongest[j:j + r.shape[1]], np.abs(r).max(axis=0))
            for a, b in zip(*np.nonzero(np.abs(r) >= threshold)):
                pairs.append((names[i + a], names[j + b], float(r[a, b])))
    return pairs, dict(zip(names, strongest))


def identifier_word(c, s):
    """The word of the name of numeric column s (profiled as c) that makes it an identifier or
    code, not a measure (see code_word: zip, id, code, account_number, ...), when its values
    agree: whole numbers, none negative. None for a measure (account_balance; an id with
    fractions or below zero)."""
    word = code_word(c["name"]) if c["kind"] == "numeric" else None
    if word is None or (c["min"] is not None and c["min"] < 0):
        return None
    whole = pd.api.types.is_integer_dtype(s) or bool((s.dropna() % 1 == 0).all())
    return word if whole else None


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
identifiers = set()  # numeric columns that are codes or identifiers, not measures (identifier_word)
if duplicate_rows:
    alerts.append(alert("duplicates", f"{duplicate_rows:,} rows ({duplicate_rows / rows:.2%}) are exact "
                        "duplicates of an earlier row", value=duplicate_rows))
if load_info.get("ragged_rows"):  # rows the loader skipped: the analysis lacks them
    alerts.append(alert("ragged_rows", load_info["ragged_rows"]["message"], value=load_info["ragged_rows"]["share"]))
for a in load_info.get("layout_alerts", []):  # what the loader saw in the file's layout and did not change
    alerts.append(alert(a["type"], a["message"], a.get("column")))
for i, c in enumerate(column_info, 1):
    progress_log.info(f"checked {i - 1:,} of {len(column_info):,} columns for alerts",
                      extra={"done": i - 1, "total": len(column_info), "unit": "columns"})
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
    word = identifier_word(c, s)
    if word is not None:
        identifiers.add(name)
        # The instruction first: the model's prompt clips alerts at 160-200 characters.
        alerts.append(alert("identifier", f"{name!r} is a code or identifier, not a measure (whole numbers; its name "
                            f"says {word!r}): do not average it or use it in a regression; it gets no histogram, "
                            "skewness alert, correlation or pair plot", name))
    if kind == "numeric" and name not in identifiers and c["skew"] is not None and abs(c["skew"]) > SKEWED:
        side = "right (a long tail of large values)" if c["skew"] > 0 else "left (a long tail of small values)"
        alerts.append(alert("skewed", f"{name!r} is skewed to the {side}: skewness {c['skew']:.2f}",
                            name, value=c["skew"]))
    if name in load_info.get("missing_markers", {}):
        markers = load_info["missing_markers"][name]
        found = sum(m["count"] for m in markers)
        listed = ", ".join(f"{m['value']!r} ({m['count']:,})" for m in markers[:8])
        alerts.append(alert("missing_markers", f"{name!r} had {found:,} missing-value markers, now missing: {listed}",
                            name, value=found))
    converted = load_info.get("converted_numbers", {}).get(name)
    if converted and converted["failed"]:
        listed = ", ".join(f"{v['value']!r} ({v['count']:,})" for v in converted["failed_values"][:5])
        alerts.append(alert("unconverted_values", f"{name!r} was converted to numbers, but {converted['failed']:,} "
                            f"value(s) are not numbers and became missing: {listed}", name, value=converted["failed"]))
    as_text = load_info.get("numbers_as_text", {}).get(name)
    if as_text:
        listed = ", ".join(f"{v['value']!r} ({v['count']:,})" for v in as_text["examples"][:5])
        alerts.append(alert("numbers_as_text", f"{name!r} holds numbers as text ({as_text['share']:.1%} of its values), "
                            f"but too many values are not numbers to convert it ({as_text['failed']:,}, such as "
                            f"{listed}); it was kept as text", name, value=as_text["share"]))
    if kind == "numeric" and epoch_unit(s) is not None:
        unit = epoch_unit(s)
        word = {"s": "seconds", "ms": "milliseconds"}[unit]
        alerts.append(alert("possible_epoch", f"{name!r} could be Unix times in {word} (every value falls in "
                            f"2001-2033 read so) or an identifier or count; it was left as numbers because its name "
                            f"does not say time. To read it as times: pd.to_datetime(df[{name!r}], unit={unit!r}, utc=True)",
                            name))
    if kind in ("categorical", "boolean") and name in value_counts:
        groups = case_variants(value_counts[name])
        if groups:
            listed = "; ".join(", ".join(f"{v!r} ({n:,})" for v, n in g) for g in groups[:VARIANT_GROUPS])
            more = f"; and {len(groups) - VARIANT_GROUPS} more group(s)" if len(groups) > VARIANT_GROUPS else ""
            alerts.append(alert("case_variants", f"{name!r} has values that differ only by case or surrounding "
                                f"spaces, counted as different categories: {listed}{more}", name, value=len(groups)))
    ambiguous = load_info.get("ambiguous_dates", {}).get(name)
    if ambiguous:
        alerts.append(alert("ambiguous_dates", ambiguous["message"], name, value=ambiguous["value"]))
        if ambiguous["kept_text"]:
            continue
    if kind in ("categorical", "text"):
        # The profile's missing count spares the pass over the text that finds the missing values
        # (the loader's codes, which made it cheap, were let go at the end of profile-columns).
        values = spaced_sample(s, MIXED_SAMPLE, c["missing"])
        # The share the loader measured over every value when it tried the column, else that of
        # values spread over the whole column, as the loader samples them (not its first rows).
        measured = load_info.get("dates_kept_text", {}).get(name)
        fmt, share = (measured["format"], measured["share"]) if measured else date_format(spaced_sample(s, 500, c["missing"]))
        if share >= DATES_AS_TEXT_SHARE:
            of = "its values" if measured else "sampled values"
            alerts.append(alert("dates_as_text", f"{name!r} holds dates as text ({share:.0%} of {of} "
                                f"read as {fmt}); it was not converted because fewer than "
                                f"{DATE_SHARE:.0%} of its values are dates", name, value=share))
            continue
        numbers = pd.to_numeric(values, errors="coerce").notna()
        if 0 < numbers.mean() < 1:
            examples = ", ".join(repr(str(v))[:40] for v in values[~numbers].drop_duplicates().head(3))
            alerts.append(alert("mixed_types", f"{name!r} mixes numbers ({numbers.mean():.1%} of sampled "
                                f"values) with text such as {examples}", name, value=numbers.mean()))

# Correlated pairs: every numeric column against every other (see correlation_blocks).
numeric_info = [c for c in column_info if c["kind"] == "numeric" and c["distinct"] > 1 and c["name"] not in identifiers]
pairs, strongest = correlation_blocks(df, [c["name"] for c in numeric_info], HIGH_CORRELATION)
for c in numeric_info:
    c["max_correlation"] = jsonable(strongest[c["name"]])  # the heatmap shows the strongest first
pairs.sort(key=lambda p: -abs(p[2]))  # stable: ties keep the file's order
for a, b, r in pairs[:CORRELATION_MAX_ALERTS]:
    alerts.append(alert("high_correlation", f"{a!r} and {b!r} are highly correlated (Pearson r = {r:.3f})",
                        columns=[a, b], value=r))
if len(pairs) > CORRELATION_MAX_ALERTS:
    alerts.append(alert("high_correlation", f"{len(pairs) - CORRELATION_MAX_ALERTS:,} more pairs of numeric columns "
                        f"have |Pearson r| >= {HIGH_CORRELATION} (not listed)", value=len(pairs) - CORRELATION_MAX_ALERTS))

if alerts:
    display(pd.DataFrame({"alert": [a["type"] for a in alerts], "message": [a["message"] for a in alerts]}))
else:
    print("No alerts.")
