# The tables profiled together (each is tables[name]), and the rule that links them; the
# markdown above states each threshold and why.
RELATIONSHIP_TABLES = []
MATCH_SHARE = 0.9  # A.x refers to B.key when at least this share of A.x's distinct values are keys of B
MIN_DISTINCT = 2  # and A.x has at least this many distinct values (a constant proves nothing)
CHANCE = 0.000001  # numbers: and landing on that many keys by chance is at most this likely (else the names must agree)
ORPHAN_SAMPLE = 5  # orphan values listed per relationship, most rows first
# Words that say nothing about what a column refers to: "id" names every table's key.
GENERIC_WORDS = {"id", "key", "code", "no", "nr", "num", "number", "idx", "index", "name", "unnamed",
                 "value", "pk", "fk", "ref", "uid", "uuid"}
# Words of a table's name that say nothing about its rows ("merchant_data" is about merchants).
GENERIC_TABLE_WORDS = GENERIC_WORDS | {"data", "table", "list", "info", "master", "dim", "lookup", "map",
                                       "mapping", "detail", "all", "raw", "clean"}
NOT_COUNTED_SHOWN = 10  # containments not counted that are printed (all are in relationships["not_counted"])
PRINTED_LINES, PRINTED_NAMES = 100, 20  # lines per section and names per line printed (the JSON holds all)
SAMPLE_ROWS = 10_000  # rows looked at first, to rule columns out as keys (speed only: the result is the same)
DIGITS = re.compile(r"[+-]?\d{1,18}")  # text read as a whole number (zero-padded ids: "007")


def singular_words(name):
    """The words of a name, lower case and singular: "merchantCategoryCodes" -> merchant category code."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", str(name)).lower()
    words = [w for w in re.split(r"[^a-z0-9]+", text) if w]
    return [w[:-3] + "y" if len(w) > 4 and w.endswith("ies") else
            w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words]


def core_words(name, generic):
    return [w for w in singular_words(name) if w not in generic and not w.isdigit()]


def names_agree(column, table, key):
    """True when the column's name says it refers to table.key: its telling words end with the
    key's (customer_id -> customers.customer_id) or the table's (customer_id -> customers.id)."""
    words = core_words(column, GENERIC_WORDS)
    for target in (core_words(key, GENERIC_WORDS), core_words(table, GENERIC_TABLE_WORDS)):
        if target and words[-len(target):] == target:
            return True
    return False


def whole_numbers(values):
    """values (floats) as int64 when every one is a whole number within int64, else None."""
    values = np.asarray(values, dtype=float)
    if not np.isfinite(values).all() or (values % 1 != 0).any() or (np.abs(values) >= 2.0**63).any():
        return None
    return values.astype(np.int64)


def digit_numbers(values):
    """Text values as int64 when every one is a whole number written in digits ("007", "42"), else None."""
    if not len(values) or not all(DIGITS.fullmatch(v) for v in values):
        return None
    return np.array([int(v) for v in values], dtype=np.int64)


def comparable(values):
    """(domain, codes, reason) of distinct non-missing values: how they are compared.

    domain is "integer", "text" or "datetime": values compare only within a domain, as a join
    would (the text "7" is not the number 7). codes are the values as int64 (integers, whole
    floats, datetimes in ns); text is hashed only when it is compared (see codes). reason says
    why values are not compared (domain None): booleans, fractional numbers, mixed types."""
    kind = values.dtype.kind
    if kind in "iu":
        return "integer", values.astype(np.int64), None
    if kind == "M":
        return "datetime", pd.DatetimeIndex(values).asi8, None
    if kind == "f":
        whole = whole_numbers(values)
        return ("integer", whole, None) if whole is not None else (None, None, "fractional numbers")
    if kind != "O":
        return None, None, {"b": "booleans", "m": "durations"}.get(kind, f"values of type {values.dtype}")
    inferred = pd.api.types.infer_dtype(values, skipna=False)
    if inferred == "string":
        return "text", None, None
    if inferred == "integer":
        return "integer", values.astype(np.int64), None
    if inferred in ("floating", "mixed-integer-float"):
        whole = whole_numbers(values)
        return ("integer", whole, None) if whole is not None else (None, None, "fractional numbers")
    return None, None, {"boolean": "booleans", "empty": "no values"}.get(inferred, f"mixed types ({inferred})")


def codes(c):
    """c's distinct values as int64, or for text their 64-bit hashes (computed once)."""
    if c["codes"] is None:
        c["codes"] = pd.util.hash_array(np.asarray(c["values"], dtype=object), categorize=False)
    return c["codes"]


def sorted_codes(c):
    if "sorted" not in c:
        c["sorted"] = np.sort(codes(c))
    return c["sorted"]


def numbers(c):
    """c's distinct values as whole numbers, sorted: integers, or text written in digits ("007"
    is 7); None for other text and datetimes (computed once)."""
    if "numbers" not in c:
        whole = codes(c) if c["domain"] == "integer" else digit_numbers(c["values"]) if c["domain"] == "text" else None
        c["numbers"] = None if whole is None else np.unique(whole)
    return c["numbers"]


def distinct_values(s, many=True):
    """The distinct non-missing values of s as a NumPy array: datetimes with a time zone in UTC,
    categories as their values, pandas' nullable types as NumPy's. Numbers with many distinct
    values are sorted rather than hashed (np.unique: several times faster on a million values)."""
    if isinstance(s.dtype, np.dtype):
        values = s.to_numpy()
        if many and s.dtype.kind in "iufM":
            return np.unique(values[~np.isnan(values)] if s.dtype.kind in "fM" else values)
        values = pd.unique(values)
        return values[~pd.isna(values)] if s.dtype.kind in "fmMO" else values
    values = pd.Series(pd.unique(s)).dropna()
    if isinstance(values.dtype, pd.CategoricalDtype):
        values = values.astype(values.cat.categories.dtype)
    if isinstance(values.dtype, pd.DatetimeTZDtype):
        values = values.dt.tz_convert("UTC").dt.tz_localize(None)
    dtype = getattr(values.dtype, "numpy_dtype", None)  # Int64, Float64, boolean
    if dtype is None and not isinstance(values.dtype, np.dtype):
        dtype = object  # text of pandas' string type
    return values.to_numpy(dtype=dtype)


def list_values(texts):
    """(lists, elements) when every text is a JSON list (as the loader keeps lists), else None:
    each text's elements without missing ones, and the distinct elements (None when a list
    holds lists or objects)."""
    if not len(texts) or not all(t[:1] == "[" and t[-1:] == "]" for t in texts):
        return None
    lists = []
    for t in texts:
        try:
            parsed = json.loads(t)
        except ValueError:
            return None
        if not isinstance(parsed, list):
            return None
        lists.append([e for e in parsed if e is not None])
    flat = [e for lst in lists for e in lst]
    if any(isinstance(e, (list, dict)) for e in flat):
        return lists, None
    return lists, pd.unique(np.fromiter(flat, dtype=object, count=len(flat)))


def describe_values(c, values):
    """Fills in how c's distinct values compare (see comparable); a column of lists is compared by
    the elements of its lists."""
    c.update(list=False, values=values, domain=None, reason=None)
    if values.dtype == object and pd.api.types.infer_dtype(values) == "string":
        lists = list_values(values)
        if lists is not None:
            c.update(list=True, texts=values, lists=lists[0], values=lists[1])
            if lists[1] is None or not len(lists[1]):
                c["reason"] = "lists of lists or objects" if lists[1] is None else "empty lists only"
                c["values"] = values[:0]
                return
    for cached in ("sorted", "numbers"):
        c.pop(cached, None)
    try:
        c["domain"], c["codes"], c["reason"] = comparable(c["values"])
    except (OverflowError, TypeError, ValueError) as e:  # integers past int64, unhashable elements
        c["domain"], c["codes"], c["reason"] = None, None, f"values not comparable ({type(e).__name__})"


def column_values(table, name, s):
    """The column as the check first sees it: the distinct values of every k-th row (SAMPLE_ROWS
    in all), which rule most columns out as keys (a value repeated or missing) without hashing
    every row. Columns not ruled out are read further (read_keys, read_to_compare), so the
    result is the same as reading every column whole."""
    c = {"table": table, "column": name, "series": s, "key": False, "many": False}
    read(c, len(s) // SAMPLE_ROWS)
    if c["list"] or c["reason"] == "no values":  # lists are parsed whole; a sample without values says nothing
        read(c, 1)
    c["many"] = len(c["values"]) > c["read"] // 2  # most values differ: sorted rather than hashed
    return c


def read(c, step):
    """Reads every step-th row of c: its distinct values, how they compare, whether it may be a key."""
    step = max(1, step)
    part = c["series"].iloc[::step] if step > 1 else c["series"]
    try:
        values = distinct_values(part, c["many"])
    except TypeError:  # Python lists or dicts in cells (the loader keeps them as JSON text): not hashable
        values = None
    if values is None:
        c.update(list=False, values=np.array([], dtype=object), domain=None, codes=None,
                 reason="values that are not comparable (lists or objects)", read=len(part), whole=True, maybe_key=False)
        return
    describe_values(c, values)
    if c["domain"] == "datetime" and isinstance(c["series"].dtype, pd.DatetimeTZDtype):
        c["domain"] = "datetime (UTC)"  # a join does not match times with a zone to times without
    c.update(read=len(part), whole=step == 1)
    # A key candidate so far: no value repeated or missing in the rows read.
    c["maybe_key"] = (c["domain"] is not None and not c["list"] and len(c["series"]) >= 2
                      and len(c["values"]) == len(part))


def in_sorted(values, sorted_keys):
    """Which of values are in sorted_keys (sorted, same dtype): a boolean mask, by binary search."""
    if not len(sorted_keys):
        return np.zeros(len(values), dtype=bool)
    at = np.searchsorted(sorted_keys, values)
    return sorted_keys[np.minimum(at, len(sorted_keys) - 1)] == values


def chance_bound(a, b, matched, n):
    """An upper bound (Chernoff's) on how likely `matched` of a's n distinct values would be keys of
    b if a's values were spread at random over their range: p is the share of the whole numbers
    from a's 5th to 95th percentile value that are keys of b. None for text, which does not
    fall on keys by chance the way numbers in a range do; 1 for datetimes (tables of one period
    share their dates)."""
    if a["domain"].startswith("datetime"):
        return 1.0
    mine, keys = numbers(a), numbers(b)
    if mine is None or keys is None:
        return None
    cut = int(0.05 * (len(mine) - 1))
    lo, hi = mine[cut], mine[len(mine) - 1 - cut]
    inside = int(np.searchsorted(keys, hi, "right") - np.searchsorted(keys, lo, "left"))
    p = min(1.0, max(inside, 1) / (float(hi) - float(lo) + 1))
    q = matched / n
    if q <= p:
        return 1.0
    divergence = q * math.log(q / p) + ((1 - q) * math.log((1 - q) / (1 - p)) if q < 1 else 0.0)
    return math.exp(-n * divergence)


def shown(value, domain):
    """A value as the report shows it: whole numbers without ".0", datetimes in ISO form."""
    if domain == "integer":
        return str(int(value))
    if domain.startswith("datetime"):
        return pd.Timestamp(value).isoformat()
    return str(value)


def qualified(table, column):
    return f"{table}.{column}"


def rows_in(s, values):
    """Which rows of s hold one of values (distinct values as distinct_values gives them)."""
    if isinstance(s.dtype, pd.DatetimeTZDtype):
        s = s.dt.tz_convert("UTC").dt.tz_localize(None)
    return s.isin(values)


def ranked(counts, domain, rows):
    """The ORPHAN_SAMPLE values with the most rows ({value: rows}), ties in text order."""
    items = sorted(((shown(v, domain), int(n)) for v, n in counts.items() if n > 0), key=lambda x: (-x[1], x[0]))
    return [{"value": v, "count": n, "share": n / rows} for v, n in items[:ORPHAN_SAMPLE]]


def list_orphans(a, orphan_values):
    """(rows with elements, orphan rows, sample) of a column of lists: a row is an orphan when one
    of its elements is not a key; the sample counts the rows holding each orphan element."""
    per_text = a["series"].value_counts(sort=False).reindex(a["texts"]).to_numpy()
    rows = int(sum(n for n, lst in zip(per_text, a["lists"]) if lst))
    unknown, counts = set(orphan_values.tolist()), {}
    for n, lst in zip(per_text, a["lists"]):
        for e in unknown.intersection(lst):
            counts[e] = counts.get(e, 0) + n
    orphan_rows = int(sum(n for n, lst in zip(per_text, a["lists"]) if unknown.intersection(lst)))
    return rows, orphan_rows, ranked(counts, a["domain"], rows)


def orphans(a, found):
    """(rows with a value, orphan rows, sample) of a's rows whose value is not a key (found: which of
    a's distinct values are)."""
    orphan_values = a["values"][~found]
    if a["list"]:
        return list_orphans(a, orphan_values)
    s = a["series"]
    rows = int(s.count())
    if not len(orphan_values):
        return rows, 0, []
    hit = rows_in(s, orphan_values)
    return rows, int(hit.sum()), ranked(s[hit].value_counts(), a["domain"], rows)


def link(a, b, matched, n, chance):
    """The entry of a relationship, a coincidence or a type mismatch: from a to b, matched of n values."""
    return {"from": a["table"], "from_column": a["column"], "to": b["table"], "to_column": b["column"],
            "list": a["list"], "distinct": n, "matched_distinct": matched, "share_distinct": matched / n,
            "chance": chance}


def compare(a, b, found):
    """The relationship a -> b when its evidence holds; else the coincidence it may be (None when
    a's values are not MATCH_SHARE keys of b)."""
    n, matched = len(found), int(found.sum())
    if matched < MATCH_SHARE * n:
        return None
    chance = chance_bound(a, b, matched, n)
    by_values = chance is None or chance <= CHANCE
    by_names = names_agree(a["column"], b["table"], b["column"])
    entry = link(a, b, matched, n, chance)
    if not (by_values or by_names):
        entry["reason"] = "chance: numbers that could be keys by chance, under names that do not say so"
        return "coincidence", entry
    rows, orphan_rows, sample = orphans(a, found)
    entry.update(rows=rows, matched_rows=rows - orphan_rows, share_rows=(rows - orphan_rows) / rows if rows else 1.0,
                 orphan_rows=orphan_rows, orphan_values=n - matched, orphan_sample=sample,
                 evidence="values and names" if by_values and by_names else "values" if by_values else "names")
    return "relationship", entry


def mismatch(a, b):
    """a's values as whole numbers are keys of b when one side is text written in digits and the
    other numbers ("007" and 7): a join on them as they are finds nothing. The entry, or None."""
    if {a["domain"], b["domain"]} != {"text", "integer"} or numbers(a) is None or numbers(b) is None:
        return None
    found = in_sorted(numbers(a), numbers(b))
    n, matched = len(found), int(found.sum())
    if n < MIN_DISTINCT or matched < MATCH_SHARE * n:
        return None
    chance = chance_bound(a, b, matched, n)
    if chance > CHANCE and not names_agree(a["column"], b["table"], b["column"]):
        return None
    return link(a, b, matched, n, chance)


def table_entry(name, frame, columns):
    """What the relationships say of one table: its size, keys, columns of lists, columns not compared."""
    return {"name": name, "rows": len(frame), "columns": len(frame.columns),
            "keys": [c["column"] for c in columns if c["key"]],
            "list_columns": [{"column": c["column"], "elements": c["domain"] or c["reason"]}
                             for c in columns if c["list"]],
            "not_compared": [{"column": c["column"], "reason": c["reason"]} for c in columns
                             if c["domain"] is None and not c["list"]]}


def broken_alert(r):
    listed = ", ".join(f"{o['value']!r} ({o['count']:,})" for o in r["orphan_sample"])
    what = "an element" if r["list"] else "a value"
    return {"type": "broken_relationship", "tables": [r["from"], r["to"]], "columns": [r["from_column"], r["to_column"]],
            "value": r["share_rows"],
            "message": f"{qualified(r['from'], r['from_column'])} → {qualified(r['to'], r['to_column'])}: "
                       f"{r['orphan_rows']:,} of {r['rows']:,} rows ({1 - r['share_rows']:.1%}) have {what} that is not "
                       f"a key of {r['to']} ({r['orphan_values']:,} of {r['distinct']:,} distinct values), such as {listed}"}


def mismatch_alert(m, a_is_text):
    text, number = (m["from"], m["from_column"]), (m["to"], m["to_column"])
    if not a_is_text:
        text, number = number, text
    return {"type": "type_mismatch", "tables": [m["from"], m["to"]], "columns": [m["from_column"], m["to_column"]],
            "value": m["share_distinct"],
            "message": f"{qualified(*text)} holds whole numbers written as text and {qualified(*number)} numbers; "
                       f"read as numbers, {m['matched_distinct']:,} of {m['distinct']:,} distinct values of "
                       f"{qualified(m['from'], m['from_column'])} are keys of {m['to']}, but a join on them as they "
                       f"are matches nothing: convert the text first, e.g. "
                       f"tables[{text[0]!r}][{text[1]!r}].astype(\"int64\") (\"007\" becomes 7)"}


def may_refer(a, b):
    """Whether a's values may be keys of b, from what is known of a so far (its sample's
    distinct values are some of its distinct values)."""
    if b is a or a["domain"] is None:
        return False
    if a["domain"] == b["domain"]:
        return len(a["values"]) * MATCH_SHARE <= len(b["values"])
    return {a["domain"], b["domain"]} == {"text", "integer"} and numbers(a) is not None and numbers(b) is not None


def read_keys(columns):
    """The keys among columns: a column whose sample may be one is read whole."""
    for c in columns:
        if c["maybe_key"] and not c["whole"]:
            read(c, 1)
        c["key"] = c["maybe_key"]
    return [c for c in columns if c["key"]]


def read_to_compare(a, keys):
    """The keys a may refer to, a read far enough to say: a sample of twice the rows needed to
    show more distinct values than the largest of them has (when most of a's values differ),
    then every row."""
    targets = [b for b in keys if may_refer(a, b)]
    if targets and not a["whole"] and a["many"]:
        needed = 2 * max(len(b["values"]) for b in targets) / MATCH_SHARE
        read(a, int(len(a["series"]) // needed))
        targets = [b for b in targets if may_refer(a, b)]
    if targets and not a["whole"]:
        read(a, 1)
        targets = [b for b in targets if may_refer(a, b)]
    return targets if len(a["values"]) >= MIN_DISTINCT else []


def most_general(relationships):
    """(kept, implied): when A.x refers to both B.y and C.z, and C.z refers to B.y but not back
    (C.z's values are some of B.y's), C.z is a column about B's things and A.x refers to B.y:
    A.x -> C.z is implied, not kept (payments.mcc -> merchants.mcc, when merchants.mcc -> mccs.mcc)."""
    pairs = {(r["from"], r["from_column"], r["to"], r["to_column"]) for r in relationships}
    kept, implied = [], []
    for r in relationships:
        source, target = (r["from"], r["from_column"]), (r["to"], r["to_column"])
        via = [(s["to"], s["to_column"]) for s in relationships if (s["from"], s["from_column"]) == source
               and (target + (s["to"], s["to_column"])) in pairs and ((s["to"], s["to_column"]) + target) not in pairs]
        if via:
            entry = {k: r[k] for k in ("from", "from_column", "to", "to_column", "list", "distinct",
                                       "matched_distinct", "share_distinct", "chance")}
            implied.append(dict(entry, reason=f"implied: {qualified(*target)} refers to {qualified(*via[0])}"))
        else:
            kept.append(r)
    return kept, implied


def find_relationships(frames):
    """The relationships among the frames ({name: DataFrame}), with keys, orphans and alerts."""
    columns, per_table = [], []
    for name, frame in frames.items():
        mine = [column_values(name, str(frame.columns[i]), frame.iloc[:, i]) for i in range(len(frame.columns))]
        per_table.append((name, frame, mine))
        columns += mine
    keys = read_keys(columns)
    found = {"relationship": [], "coincidence": [], "mismatch": []}
    for i, a in enumerate(columns):
        progress_log.info(f"compared {i:,} of {len(columns):,} columns with the keys",
                          extra={"done": i, "total": len(columns), "unit": "columns"})
        for b in read_to_compare(a, keys):
            if a["domain"] != b["domain"]:
                m = mismatch(a, b)
                if m is not None:
                    found["mismatch"].append(mismatch_alert(m, a["domain"] == "text"))
                continue
            kind_entry = compare(a, b, in_sorted(codes(a), sorted_codes(b)))
            if kind_entry is not None:
                found[kind_entry[0]].append(kind_entry[1])
    relationships_, implied = most_general(found["relationship"])
    alerts = [broken_alert(r) for r in relationships_ if r["orphan_rows"]] + found["mismatch"]
    return {"tables": [table_entry(*t) for t in per_table], "relationships": relationships_,
            "not_counted": implied + found["coincidence"], "alerts": alerts,
            "rule": {"match_share": MATCH_SHARE, "min_distinct": MIN_DISTINCT, "chance": CHANCE}}


def link_text(r):
    elements = " (the elements of its lists)" if r["list"] else ""
    return (f"{qualified(r['from'], r['from_column'])}{elements} → {qualified(r['to'], r['to_column'])}: "
            f"{r['matched_distinct']:,} of {r['distinct']:,} distinct {'elements' if r['list'] else 'values'} "
            f"({r['share_distinct']:.1%}) are keys")


def capped(lines, n, where):
    """The first n lines, and a line that says how many more there are in where."""
    return lines[:n] + ([f"- and {len(lines) - n:,} more (in {where})"] if len(lines) > n else [])


def listed_names(items, n=PRINTED_NAMES):
    return ", ".join(str(i) for i in items[:n]) + (f" and {len(items) - n:,} more" if len(items) > n else "")


def table_lines(rel):
    lines = []
    for t in rel["tables"]:
        keys = "key " + listed_names(t["keys"]) if t["keys"] else "no single-column key"
        lists = listed_names([f"{c['column']} ({c['elements']})" for c in t["list_columns"]])
        lines.append(f"- {t['name']}: {t['rows']:,} rows × {t['columns']:,} columns; {keys}"
                     + (f"; lists in {lists}" if lists else ""))
    return lines


def relationship_line(r):
    rows = f"{r['matched_rows']:,} of {r['rows']:,} {'rows with elements' if r['list'] else 'rows with a value'} " \
           f"({r['share_rows']:.1%}) match"
    orphans_ = ", ".join(f"{o['value']!r} ({o['count']:,})" for o in r["orphan_sample"])
    return (f"- {link_text(r)}; {rows}" + (f"; {r['orphan_rows']:,} orphan rows, such as {orphans_}" if r["orphan_rows"]
                                           else "") + f". Evidence: {r['evidence']}.")


def describe_relationships(rel):
    """The relationships in words, for the reader of the notebook (long lists are cut: the JSON
    below and the variable relationships hold them all)."""
    lines = ["Tables (a key is a column whose values are all different and never missing):"]
    lines += capped(table_lines(rel), PRINTED_LINES, "relationships['tables']")
    lines.append("\nRelationships (A.x → B.key: the values of A.x are keys of B):" if rel["relationships"]
                 else "\nNo relationships: no column's values are keys of another column by the rule above.")
    lines += capped([relationship_line(r) for r in rel["relationships"]], PRINTED_LINES, "relationships['relationships']")
    if rel["not_counted"]:
        lines.append("\nNot counted: values that are keys by chance (numbers in the same range, names that do not say "
                     "so), or through another key:")
        lines += capped([f"- {link_text(c)}; " + (f"chance up to {c['chance']:.2g}" if c["reason"].startswith("chance")
                                                   else c["reason"]) for c in rel["not_counted"]],
                        NOT_COUNTED_SHOWN, "relationships['not_counted']")
    if rel["alerts"]:
        lines.append("\nAlerts:")
        lines += capped([f"- {a['type']}: {a['message']}" for a in rel["alerts"]], PRINTED_LINES, "relationships['alerts']")
    skipped = [f"- {t['name']}: " + "; ".join(
        f"{reason}: " + listed_names([c["column"] for c in t["not_compared"] if c["reason"] == reason])
        for reason in dict.fromkeys(c["reason"] for c in t["not_compared"])) for t in rel["tables"] if t["not_compared"]]
    if skipped:
        lines.append("\nNot compared (values no key is made of):")
        lines += capped(skipped, PRINTED_LINES, "relationships['tables']")
    return "\n".join(lines)


missing_tables = [name for name in RELATIONSHIP_TABLES if name not in tables]
if missing_tables:
    raise KeyError(f"tables has no {', '.join(map(repr, missing_tables))}: load each table into tables[name] first")
relationships = find_relationships({name: tables[name] for name in RELATIONSHIP_TABLES})
print(describe_relationships(relationships))
