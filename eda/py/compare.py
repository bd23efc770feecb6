CHANGES_MIME = "application/vnd.analyst.changes+json"  # analyst reads the changes from this output (exit code, Markdown summary)
LEVELS = ("info", "warn", "fail")
NEW = sketch  # this run's sketch, from the profile above


def rule(check, column):
    """(warn, fail) thresholds of check for column: its own from the config file, else the default."""
    return COLUMN_THRESHOLDS.get(column, {}).get(check, THRESHOLDS[check])


def schema_level(event, column):
    return COLUMN_SEVERITIES.get(column, {}).get(event, SEVERITIES[event])


changes = []


def change(check, column, text, value=None, p_value=None, level=None, **numbers):
    """Notes a change: its measure (value) is judged against rule(check, column) below, once every
    p-value is known; a schema change has its level already."""
    changes.append({"check": check, "column": column, "value": value, "p_value": p_value, "level": level,
                    "warn": None, "fail": None, "text": text, "numbers": numbers})


def num(x):
    return "n/a" if x is None else show_number(float(x))


def share(x):
    return f"{100 * x:.3g}%"


def p_text(p):
    """A p-value as text; below 1e-15 the floating-point tail is not worth its digits."""
    return "p < 1e-15" if p < 1e-15 else f"p = {p:.2g}"


def identifier(c, rows):
    """A column that holds a different integer or text in every row of at least ID_MIN_ROWS rows."""
    whole = c["kind"] != "numeric" or c["dtype"].lower().startswith(("int", "uint"))
    return whole and rows >= ID_MIN_ROWS and c["missing"] < rows and c["distinct"] == rows - c["missing"]


def compare_numbers(name, a, b):
    da, db = Distribution(a), Distribution(b)
    if not da.n or not db.n:
        return
    w, d = wasserstein(da, db), ks_statistic(da, db)
    sigma = a["std"] or 0.0
    scaled = w / sigma if sigma > 0 else (math.inf if w > 0 else 0.0)
    edges = psi_edges(da)
    index = psi(da.shares(edges), db.shares(edges))
    p = ks_p_value(d, da.n, db.n)
    change("numeric-shift", name, f"W/σ = {num(scaled)} (W = {num(w)}, σ = {num(sigma)}); KS D = {num(d)}, "
           f"{p_text(p)}; PSI = {num(index)}; mean {num(da.mean)} → {num(db.mean)}, "
           f"median {num(da.quantile(0.5))} → {num(db.quantile(0.5))}",
           value=scaled, p_value=p, wasserstein=w, sigma=sigma, ks=d, psi=index,
           mean=[da.mean, db.mean], median=[float(da.quantile(0.5)), float(db.quantile(0.5))])


def compare_counts(name, a, b, a_present, b_present):
    """a, b: {value: rows} and their tails; judged as Evidently judges categories."""
    (ca, ta, a_complete, a_sample), (cb, tb, b_complete, b_sample) = a, b
    names, x, y = aligned_counts(ca, cb, ta, tb, a_complete, b_complete)
    js = js_distance(x, y)
    # Counts scaled up from a sample carry the sample's information only.
    xs = x * (a_sample / a_present) if a_sample else x
    ys = y * (b_sample / b_present) if b_sample else y
    p = chi2_p_value(xs, ys)
    change("category-shift", name, f"Jensen–Shannon distance {num(js)} over {len(names)} categories; "
           f"chi-squared {p_text(p)}", value=js, p_value=p, categories=len(names))
    if not (a_complete and b_complete):
        return
    for check, mine, other, present, other_present, word in (
            ("new-category", cb, ca, b_present, a_present, "new"), ("vanished-category", ca, cb, a_present, b_present, "vanished")):
        found = sorted((v for v in mine if v not in other), key=lambda v: (-mine[v], v))
        for v in found[:CATEGORIES_LISTED]:
            s = mine[v] / present
            # Could the value have been there at this share, and have been missed by chance?
            p = (1 - s) ** other_present
            change(check, name, f"{word} value {v!r}: {mine[v]:,} rows ({share(s)})", value=s, p_value=p, value_text=v,
                   rows=mine[v])
        rest = found[CATEGORIES_LISTED:]
        if rest:
            rows_left = sum(mine[v] for v in rest)
            change(check, name, f"{len(rest):,} more {word} values with {rows_left:,} rows ({share(rows_left / present)})",
                   level="info", rows=rows_left)


def compare_dates(name, a, b):
    if a["min"] != b["min"] or a["max"] != b["max"]:
        change("time-range", name, f"{a['min']} … {a['max']} → {b['min']} … {b['max']}", level="info",
               baseline=[a["min"], a["max"]], new=[b["min"], b["max"]])
    if not a["periods"] or not b["periods"]:
        return
    unit, gaps = find_gaps(a, b)
    if unit is None:
        change("gaps", name, "not checked: the baseline has no period length at which every period has rows "
               f"and the new data enough rows per period (at least {GAP_MIN_ROWS} expected)", level="info")
    elif gaps:
        shown = ", ".join(period_start(g, unit) for g in gaps[:5]) + (" …" if len(gaps) > 5 else "")
        change("gaps", name, f"{len(gaps):,} {UNIT_WORDS[unit]}(s) without rows inside the new range ({shown}); the "
               f"baseline had rows in every {UNIT_WORDS[unit]}", value=len(gaps), unit=unit,
               periods=[period_start(g, unit) for g in gaps[:100]])


def find_gaps(a, b):
    """The finest period length at which the baseline has rows in every period of its range and the
    new data is expected at least GAP_MIN_ROWS rows in its emptiest one, and the periods of the new
    data's range without rows at that length: (unit, periods), or (None, []) when none qualifies."""
    for unit in common_units(a["unit"], b["unit"]):
        ca, cb = period_counts(a, unit), period_counts(b, unit)
        first, last = min(ca), max(ca)
        if last - first < 2 or len(ca) != last - first + 1:
            continue
        inner = [ca[p] for p in range(first + 1, last)]  # the first and last periods may be partial
        new_first, new_last = min(cb), max(cb)
        per_period = sum(cb.values()) / (new_last - new_first + 1)
        if per_period * min(inner) / (sum(inner) / len(inner)) < GAP_MIN_ROWS:
            continue
        return unit, [p for p in range(new_first, new_last + 1) if p not in cb]
    return None, []


def compare_column(name, a, b):
    rows_a, rows_b = BASELINE["rows"], NEW["rows"]
    if a["missing"] != b["missing"] or rows_a != rows_b:
        sa, sb = a["missing"] / rows_a if rows_a else 0.0, b["missing"] / rows_b if rows_b else 0.0
        if sa != sb:
            change("missing", name, f"missing {share(sa)} → {share(sb)} ({a['missing']:,} → {b['missing']:,} rows)",
                   value=abs(sb - sa), p_value=proportion_p_value(a["missing"], rows_a, b["missing"], rows_b),
                   baseline=sa, new=sb)
    if a["kind"] != b["kind"]:
        return
    present_a, present_b = rows_a - a["missing"], rows_b - b["missing"]
    if identifier(a, rows_a):
        if b["distinct"] < present_b and b.get("distinct_exact", True):
            change("duplicates", name, f"an identifier in the baseline (every value distinct); now {present_b - b['distinct']:,} "
                   "rows repeat a value", value=present_b - b["distinct"], level=schema_level("duplicates", name))
        return
    if "numbers" in a and "numbers" in b:
        da, db = a["numbers"], b["numbers"]
        if da["exact"] and db["exact"] and len(set(da["points"]) | set(db["points"])) <= FEW_VALUES:
            count = lambda d: (number_counts(Distribution(d)), 0, True, None)
            compare_counts(name, count(da), count(db), present_a, present_b)
        else:
            compare_numbers(name, da, db)
    elif "values" in a and "values" in b:
        va, vb = a["values"], b["values"]
        compare_counts(name, (*value_shares(va), va["complete"], va["sample"]), (*value_shares(vb), vb["complete"], vb["sample"]),
                       present_a, present_b)
        if a["distinct"] != b["distinct"]:
            change("distinct", name, f"distinct values {a['distinct']:,} → {b['distinct']:,}",
                   value=max(a["distinct"], b["distinct"]) / max(1, min(a["distinct"], b["distinct"])))
    elif "dates" in a and "dates" in b:
        compare_dates(name, a["dates"], b["dates"])


def similarity(a, b):
    """How far apart the values of two columns of one kind are (0: alike), for renames: KS D for
    numbers, the Jensen–Shannon distance for categories and for rows per period of dates."""
    if "numbers" in a and "numbers" in b:
        return ks_statistic(Distribution(a["numbers"]), Distribution(b["numbers"]))
    if "values" in a and "values" in b:
        va, vb = a["values"], b["values"]
        _, x, y = aligned_counts(dict(va["top"]), dict(vb["top"]), va["other_rows"], vb["other_rows"],
                                 va["complete"], vb["complete"])
        return js_distance(x, y) if len(x) > 1 else 1.0
    if "dates" in a and "dates" in b:
        unit = common_units(a["dates"]["unit"], b["dates"]["unit"])[0]
        pa, pb = period_counts(a["dates"], unit), period_counts(b["dates"], unit)
        keys = sorted(set(pa) | set(pb))
        return js_distance(np.array([pa.get(k, 0) for k in keys], float), np.array([pb.get(k, 0) for k in keys], float))
    return 1.0


def compare_schema():
    """Columns removed, added, renamed (a removed and an added column of one kind whose values are
    alike: within RENAME_DISTANCE) and changed in kind or type; returns the pairs to compare."""
    old = {c["name"]: c for c in BASELINE["columns"]}
    new = {c["name"]: c for c in NEW["columns"]}
    removed = [n for n in old if n not in new]
    added = [n for n in new if n not in old]
    pairs = [(n, old[n], new[n]) for n in new if n in old]
    candidates = sorted((similarity(old[r], new[a]), removed.index(r), added.index(a), r, a)
                        for r in removed for a in added if old[r]["kind"] == new[a]["kind"] and old[r]["kind"] != "empty")
    for dist, _, _, r, a in candidates:
        if dist <= RENAME_DISTANCE and r in removed and a in added:
            removed.remove(r)
            added.remove(a)
            change("renamed", a, f"renamed from {r!r}: its values are alike (distance {num(dist)})",
                   level=schema_level("renamed", r), baseline_name=r, distance=dist)
            pairs.append((a, old[r], new[a]))
    for n in removed:
        change("removed", n, f"column removed (was {old[n]['kind']}, {old[n]['dtype']})", level=schema_level("removed", n))
    for n in added:
        change("added", n, f"column added ({new[n]['kind']}, {new[n]['dtype']})", level=schema_level("added", n))
    for n, a, b in pairs:
        if a["kind"] != b["kind"] and "empty" not in (a["kind"], b["kind"]):
            change("type", n, f"{a['kind']} ({a['dtype']}) → {b['kind']} ({b['dtype']})", level=schema_level("type", n),
                   baseline=a["dtype"], new=b["dtype"])
        elif a["dtype"] != b["dtype"]:
            change("dtype", n, f"dtype {a['dtype']} → {b['dtype']}", level="info")
    return pairs


def judge(c, alpha):
    """The level of a change: fail or warn when its measure reaches that threshold and, for a
    statistical test, its p-value is below alpha; otherwise info."""
    warn, fail = rule(c["check"], c["column"]) if c["check"] in THRESHOLDS else (None, None)
    c["warn"], c["fail"] = warn, fail
    significant = c["p_value"] is None or c["p_value"] < alpha
    if c["value"] is None or not significant:
        return "info"
    if fail is not None and c["value"] >= fail:
        return "fail"
    return "warn" if warn is not None and c["value"] >= warn else "info"


rows_a, rows_b = BASELINE["rows"], NEW["rows"]
change("rows", None, f"rows {rows_a:,} → {rows_b:,}",
       value=max(rows_a, rows_b) / min(rows_a, rows_b) if min(rows_a, rows_b) else math.inf)
compared = {name: (a, b) for name, a, b in compare_schema()}  # by the new name; renamed columns too
for name, (a, b) in compared.items():
    compare_column(name, a, b)
tests = sum(1 for c in changes if c["p_value"] is not None)
alpha = SIGNIFICANCE / max(1, tests)  # Bonferroni: the chance that noise passes any of the tests is at most SIGNIFICANCE
for c in changes:
    c["level"] = c["level"] or judge(c, alpha)
changes.sort(key=lambda c: -LEVELS.index(c["level"]))  # stable: fail, warn, info, each in the order found
worst = max((c["level"] for c in changes), key=LEVELS.index, default="info")
counted = {level: sum(1 for c in changes if c["level"] == level) for level in LEVELS}

changes_table = pd.DataFrame({
    "level": [c["level"] for c in changes],
    "check": [c["check"] for c in changes],
    "column": [c["column"] or "" for c in changes],
    "measure": [c["value"] for c in changes],
    "warn at": [c["warn"] for c in changes],
    "fail at": [c["fail"] for c in changes],
    "p-value": [c["p_value"] for c in changes],
})
print(f"{counted['fail']} change(s) at fail, {counted['warn']} at warn, {counted['info']} at info; "
      f"{tests} statistical test(s), each significant below α = {SIGNIFICANCE} / {max(1, tests)} = {alpha:.3g}\n")
for c in changes:  # in full: the table below has the measures
    print(f"{c['level']:<4}  {c['check']:<17}  {c['column'] or '(table)'}: {c['text']}")
display({CHANGES_MIME: jsonable({"worst": worst, "counts": counted, "alpha": alpha, "tests": tests, "changes": changes}),
         "text/plain": f"What changed: worst level {worst}"}, raw=True)
changes_table
