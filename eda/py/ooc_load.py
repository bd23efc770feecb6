import tempfile

# ---- Out of core: the file is read CHUNK_ROWS rows at a time, never whole ----------------
CHUNK_ROWS = 200_000  # rows per chunk: fixed, so every run reads the same chunks in the same order
PLAN_BYTES = 8_388_608  # the first whole lines up to this size decide each column's type and cleaning
SAMPLE_ROWS = 10_000  # rows of the uniform sample kept in memory as df
SAMPLE_SEED = 20240601  # seed of the sample's random keys: same file, same sample


def plan_head(path, compression):
    """The first whole lines of the file, up to PLAN_BYTES, decompressed."""
    opener = {"": open, "gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}[compression]
    with opener(path, "rb") as f:
        raw = f.read(PLAN_BYTES)
    return raw[: raw.rindex(b"\n") + 1] if len(raw) == PLAN_BYTES and b"\n" in raw else raw


def read_plan(path):
    """How to read the file chunk by chunk: the loader reads its first lines (PLAN_BYTES) with
    all its rules (delimiter, encoding, decimal comma, header, missing-value markers, numbers
    as text, dates, Unix times); every chunk is then read and cleaned the same way."""
    info = new_load_info()
    if not os.path.isfile(path):
        raise AnalystDataError(f"{path} does not exist or is not a file; set DATA_PATH to the data file.")
    head, compression = read_head(path)
    fmt = table_format(path, head) or detect_format(path, head)
    if fmt != "csv":
        raise AnalystDataError(f"the file is {fmt}, but out-of-core reading handles CSV and TSV files only "
                               "(optionally gzip, bz2 or xz compressed). Give the kernel more memory "
                               "(--memory) to load it whole, or export it as CSV.")
    encoding, bom = detect_encoding(head, info["notes"])
    info.update(encoding=encoding, bom=bom, compression=compression)
    name = os.path.basename(path)
    for ext in (".gz", ".bz2", ".xz"):
        name = name[: -len(ext)] if name.lower().endswith(ext) else name
    with tempfile.TemporaryDirectory() as folder:
        first = os.path.join(folder, name)
        with open(first, "wb") as f:
            f.write(plan_head(path, compression))
        frame = read_delimited(first, head, "", encoding, info)
    if "row_label" in frame.columns and any("row names" in n for n in info["notes"]):
        raise AnalystDataError("the header has one name fewer than the rows have fields (R's row names); "
                               "out-of-core reading does not handle that. Give the kernel more memory (--memory).")
    frame.columns = [str(c) for c in frame.columns]
    raw_text = {c: frame[c] for c in frame.columns[frame.dtypes == object]}
    clean_columns(frame, info, keep_codes=False)  # a totals row is looked for only in a table read whole
    dates = dict(info["date_formats"])  # text read as dates: the format that read the first lines
    epochs = {c: epoch_unit(pd.to_numeric(raw_text.get(c, frame[c]), errors="coerce")) or "s"
              for c in info["parsed_dates"] if c not in dates}
    no_header = info.get("no_header", False)
    info["notes"].append(f"read out of core, {CHUNK_ROWS:,} rows at a time; column types decided from the "
                         f"first {len(frame):,} rows")
    return {
        "path": path, "compression": compression, "encoding": info["encoding"], "delimiter": info["delimiter"],
        "escapechar": info.get("escapechar"), "comment": info.get("comment"),
        "decimal": info["decimal"], "header": None if no_header else info.get("header_row", 0),
        "columns": list(frame.columns), "info": info,
        "text": list(raw_text),  # read as text, then cleaned
        "numeric": [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])
                    and not pd.api.types.is_bool_dtype(frame[c]) and c not in info["parsed_dates"]],
        "numbers": list(info["converted_numbers"]), "dates": dates, "epochs": epochs,
    }


def clean_chunk(chunk, plan, found):
    """The chunk read and cleaned as the plan says; found adds up the missing-value markers and
    the values that did not convert, per column."""
    info = {"missing_markers": {}, "notes": []}
    clean_missing_markers(chunk, info)
    for column, markers in info["missing_markers"].items():
        for m in markers:
            key = (column, "marker", m["value"])
            found[key] = found.get(key, 0) + m["count"]
    for column in chunk.columns:
        s = chunk[column]
        if column in plan["numbers"]:
            values = text_values(s.astype(object).where(s.notna()))
            converted = s.map(pd.Series(numbers_from_text(values, plan["decimal"])[0].to_numpy(),
                                        index=values.to_numpy())) if values is not None else s
        elif column in plan["dates"]:
            converted = to_dates(s, plan["dates"][column])
        elif column in plan["epochs"]:
            converted = pd.to_datetime(pd.to_numeric(s, errors="coerce"), unit=plan["epochs"][column], utc=True)
        elif column in plan["numeric"] and s.dtype == object:
            converted = pd.to_numeric(s, errors="coerce")
        else:
            continue
        for value, n in s[s.notna() & converted.isna()].value_counts().items():
            key = (column, "failed", str(value))
            found[key] = found.get(key, 0) + int(n)
        chunk[column] = converted
    return chunk


def read_chunks(plan, columns=None, found=None, skipped=None):
    """The file's rows as cleaned DataFrames of CHUNK_ROWS rows, in file order, indexed by row
    number (0 is the first data row); only columns, if given. Rows with more fields than the
    header are skipped, as the loader skips them, and appended to skipped as (line, expected
    fields, fields) when it is given."""
    found = {} if found is None else found
    # Text columns by an interning converter, not dtype=object: as in read_delimited (load.py),
    # a dtype mapping makes pandas box every numeric value of each chunk while it builds the
    # chunk, and without interning each field would be a string object of its own.
    text = [c for c in plan["text"] if columns is None or c in columns]
    reader = pd.read_csv(plan["path"], **split_options(plan["delimiter"], plan["escapechar"]), comment=plan["comment"],
                         encoding=plan["encoding"],
                         compression=plan["compression"] or None, decimal=plan["decimal"],
                         header=plan["header"], names=plan["columns"],
                         usecols=columns, index_col=False, converters=dict.fromkeys(text, sys.intern) or None,
                         keep_default_na=False, na_values=[""], on_bad_lines="warn", chunksize=CHUNK_ROWS)
    with reader:
        while True:
            # pandas reports each skipped row (a ParserWarning, or stderr in some versions) while
            # it reads the chunk: caught around the read only, so that warnings of the code that
            # consumes the chunks still reach it.
            messages = io.StringIO()
            with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stderr(messages):
                warnings.simplefilter("always")
                chunk = next(reader, None)
            reported = messages.getvalue()
            for w in caught:
                if issubclass(w.category, pd.errors.ParserWarning):
                    reported += "\n" + str(w.message)
                else:
                    warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
            if skipped is not None:
                skipped.extend(skipped_rows(reported))
            if chunk is None:
                return
            yield clean_chunk(chunk, plan, found)


class FullData:
    """The whole data file, streamed chunk by chunk: aggregates over every row, where df holds
    only a sample. where is a DataFrame.query string or a function of a chunk giving a boolean mask."""

    def __init__(self, plan):
        self.plan = plan

    def chunks(self, columns=None, where=None):
        """Every row, CHUNK_ROWS at a time (only columns, if given; rows where holds, if given)."""
        for chunk in read_chunks(self.plan, None if where is not None else columns):
            if where is not None:
                chunk = chunk.query(where) if isinstance(where, str) else chunk[where(chunk)]
                chunk = chunk if columns is None else chunk[columns]
            yield chunk

    def count(self, where=None):
        """The number of rows (where holds)."""
        return sum(len(c) for c in self.chunks(self.plan["columns"][:1], where))

    def value_counts(self, column, where=None, dropna=True):
        """Exact counts of each value of column over every row, most frequent first."""
        total = pd.Series(dtype="int64")
        for chunk in self.chunks([column], where):
            total = total.add(chunk[column].value_counts(dropna=dropna), fill_value=0)
        return total.astype("int64").sort_values(ascending=False, kind="stable").rename("count")

    def aggregate(self, by, column, funcs=("count", "sum", "mean", "min", "max"), where=None):
        """count, sum, mean, min, max of column per group of by (a column or a list; None: one
        row for all the data), exact over every row. Missing values are left out, as pandas does."""
        keys = [] if by is None else [by] if isinstance(by, str) else list(by)
        parts = []
        for chunk in self.chunks(keys + [column], where):
            grouped = chunk.groupby(keys if keys else np.zeros(len(chunk), dtype=int), dropna=True)[column]
            parts.append(grouped.agg(["count", "sum", "min", "max"]))
        if not parts:
            return pd.DataFrame(columns=list(funcs))
        stacked = pd.concat(parts)
        level = list(range(stacked.index.nlevels))
        result = stacked.groupby(level=level).agg({"count": "sum", "sum": "sum", "min": "min", "max": "max"})
        result["mean"] = result["sum"] / result["count"]
        if not keys:
            result.index = ["all rows"]
        return result[list(funcs)]


plan = read_plan(DATA_PATH)
load_info = plan["info"]
full = FullData(plan)
print(f"Reading {os.path.basename(DATA_PATH)} out of core: {len(plan['columns']):,} columns "
      f"({load_info['format']}, {load_info['encoding']}, delimiter {load_info['delimiter']!r}), "
      f"{CHUNK_ROWS:,} rows at a time")
for note in load_info["notes"]:
    print("Note:", note)
