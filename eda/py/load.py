# The data file, as analyst's kernel sees it (mounted read-only).
# To re-run this notebook elsewhere, change DATA_PATH to where the file is.
DATA_PATH = {{DATA_PATH}}


class AnalystDataError(Exception):
    """The file cannot be read as a table; the message says what is wrong and what to do."""


HEAD_BYTES = 64 * 1024  # how much of the file the loader looks at to decide how to read it
DELIMITERS = [",", ";", "\t", "|"]  # the delimiters the loader tries, in order of preference
DATE_SHARE = 0.9  # a text column becomes dates when at least this share of its values parse
# Date formats tried, in order; the first that parses the most sampled values wins.
# Explicit formats are fast on millions of rows (no per-value guessing).
DATE_FORMATS = [
    "%Y-%m-%d", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M",
    "%Y-%m-%dT%H:%M:%S.%f", "%Y-%m-%dT%H:%M:%SZ", "%Y/%m/%d", "%Y/%m/%d %H:%M:%S",
    "%d/%m/%Y", "%m/%d/%Y", "%d/%m/%Y %H:%M", "%m/%d/%Y %H:%M",
    "%d/%m/%Y %H:%M:%S", "%m/%d/%Y %H:%M:%S", "%d.%m.%Y", "%d.%m.%Y %H:%M",
    "%d-%m-%Y", "%m-%d-%Y", "%d %b %Y", "%d %B %Y", "%b %d, %Y", "%B %d, %Y", "%Y-%m",
    # With a UTC offset (pandas 2 parses exactly the format given); read as UTC.
    "%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%d %H:%M:%S%z", "%Y-%m-%dT%H:%M:%S.%f%z",
]
DATE_LIKE = r"\s*(\d{1,4}[-/.]\d{1,2}([-/.]\d{1,4})?|\d{1,2} [A-Za-z]{3,9} \d{4}|[A-Za-z]{3,9} \d{1,2}, \d{4})"
# File signatures the loader recognises, and what to say about them.
SIGNATURES = [
    (b"PAR1", "a Parquet file: reading Parquet needs pyarrow, which the analysis kernel does not "
              "have. Convert it to CSV first, for example with DuckDB: "
              "COPY (SELECT * FROM 'file.parquet') TO 'file.csv' (HEADER)"),
    (b"\xd0\xcf\x11\xe0", "an old Excel (.xls) or other OLE file, which the kernel cannot read; "
                          "save it as .xlsx or CSV"),
    (b"%PDF", "a PDF document, not a table; export the table as CSV"),
    (b"\x89PNG", "a PNG image, not a table"),
    (b"\xff\xd8\xff", "a JPEG image, not a table"),
    (b"SQLite format 3\x00", "an SQLite database; export a table as CSV "
                              "(sqlite3 -header -csv FILE 'select * from TABLE' > table.csv)"),
    (b"7z\xbc\xaf", "a 7-Zip archive; extract the table first"),
]
COMPRESSIONS = {b"\x1f\x8b": "gzip", b"BZh": "bz2", b"\xfd7zXZ\x00": "xz"}


def read_head(path):
    """The first bytes of the file, decompressed, and the compression found by magic bytes."""
    with open(path, "rb") as f:
        raw = f.read(HEAD_BYTES)
    compression = next((c for magic, c in COMPRESSIONS.items() if raw.startswith(magic)), "")
    if compression:
        opener = {"gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}[compression]
        try:
            with opener(path, "rb") as f:
                raw = f.read(HEAD_BYTES)
        except (OSError, EOFError, lzma.LZMAError) as e:
            raise AnalystDataError(f"the file starts like a {compression} archive but cannot be "
                                   f"decompressed ({e}); is it complete?") from None
    return raw, compression


def detect_format(path, head):
    """csv, json, jsonl or xlsx, from the extension and the content."""
    name = os.path.basename(path).lower()
    for suffix in (".gz", ".gzip", ".bz2", ".xz"):
        name = name.removesuffix(suffix)
    ext = os.path.splitext(name)[1]
    for magic, what in SIGNATURES:
        if head.startswith(magic):
            raise AnalystDataError(f"{os.path.basename(path)} is {what}.")
    if head.startswith(b"PK\x03\x04"):
        if ext in (".xlsx", ".xlsm") or b"xl/" in head:
            return "xlsx"
        raise AnalystDataError("the file is a zip archive, not a table; extract the CSV from it "
                               "(or, if it is an Excel workbook, name it .xlsx).")
    if ext in (".xlsx", ".xlsm"):
        raise AnalystDataError(f"{os.path.basename(path)} is named like an Excel workbook but is "
                               "not one (an .xlsx file is a zip archive); re-export it from Excel.")
    if ext == ".xls":
        raise AnalystDataError("old Excel (.xls) files need xlrd, which the kernel does not have; "
                               "save the sheet as .xlsx or CSV.")
    if ext in (".jsonl", ".ndjson"):
        return "jsonl"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if ext == ".json" or (ext not in (".csv", ".tsv", ".tab", ".txt") and text[:1] in (b"{", b"[")):
        first = text.split(b"\n", 1)[0].strip()
        # One JSON object per line is JSON Lines, whatever the extension says.
        if first.startswith(b"{") and first.endswith(b"}") and b"\n{" in text.replace(b"\r\n", b"\n"):
            return "jsonl"
        return "json"
    return "csv"


def detect_encoding(head, notes):
    """(encoding, bom): the encoding pandas should read the file with."""
    if head.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig", True
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16", True
    sample = head[:8192]
    if b"\x00" in sample:
        raise AnalystDataError("the file looks binary (NUL bytes in the first 8 KB); is it really "
                               "a CSV, JSON or Excel file? Export the data as CSV and try again.")
    controls = sum(sample.count(bytes([c])) for c in list(range(0, 9)) + list(range(14, 32)))
    if sample and controls / len(sample) > 0.05:
        raise AnalystDataError("the file looks binary (many control characters in the first 8 KB); "
                               "is it really a CSV, JSON or Excel file? Export the data as CSV.")
    if len(head) == HEAD_BYTES and b"\n" in head:
        head = head[: head.rindex(b"\n")]  # do not judge a character cut at the end of the sample
    try:
        head.decode("utf-8")
        return "utf-8", False
    except UnicodeDecodeError:
        pass
    if any(0x80 <= b <= 0x9F for b in head):
        try:  # Windows' superset of Latin-1: curly quotes and the euro sign live at 0x80-0x9F
            head.decode("cp1252")
            notes.append("the file is not UTF-8; it was read as Windows-1252 (cp1252)")
            return "cp1252", False
        except UnicodeDecodeError:
            pass
    notes.append("the file is not UTF-8; it was read as Latin-1 (ISO-8859-1)")
    return "latin-1", False


def sniff_delimiter(text, prefer_tab):
    """The candidate delimiter that splits the sampled lines most consistently into > 1 fields.

    Each candidate splits the first 200 lines (quotes respected); the winner has the highest
    share of lines with the most common field count, then a header of that width, then the
    file's extension (.tsv), then the order of DELIMITERS. No candidate: one column.
    """
    best, best_score = ",", None
    for d in DELIMITERS:
        try:
            widths = [len(r) for r in itertools.islice(csv.reader(io.StringIO(text), delimiter=d), 200) if r]
        except csv.Error:
            continue
        if not widths:
            continue
        width = max(set(widths), key=widths.count)
        if width < 2:
            continue
        score = (widths.count(width) / len(widths), widths[0] == width, prefer_tab and d == "\t")
        if best_score is None or score > best_score:
            best, best_score = d, score
    return best


def sniff_decimal(rows):
    """(decimal, thousands): "," when numbers in the sample are written like 3,5 or 1.234,5."""
    comma = point = grouped = 0
    for row in rows[1:]:
        for field in row:
            field = field.strip()
            if re.fullmatch(r"[-+]?(\d{1,3}(\.\d{3})+|\d+),\d+", field):
                comma += 1
                grouped += "." in field
            elif re.fullmatch(r"[-+]?\d*\.\d+", field):
                point += 1
    if comma and comma >= point:
        return ",", ("." if grouped else None)
    return ".", None


def is_number(text):
    try:
        float(text.replace(",", "."))
        return True
    except ValueError:
        return False


def read_delimited(path, head, compression, encoding, info):
    text = head.decode(encoding, errors="replace")
    if len(head) == HEAD_BYTES and "\n" in text:
        text = text[: text.rindex("\n")]  # whole lines only
    if not text.strip():
        raise AnalystDataError("the file is empty: it has no header and no rows. Check that the "
                               "export that wrote it finished.")
    prefer_tab = os.path.basename(path).lower().split(".")[-1] in ("tsv", "tab") or ".tsv." in path.lower()
    delimiter = sniff_delimiter(text, prefer_tab)
    rows = [r for r in itertools.islice(csv.reader(io.StringIO(text), delimiter=delimiter), 200) if r]
    decimal, thousands = sniff_decimal(rows) if delimiter != "," else (".", None)
    info.update(format="tsv" if delimiter == "\t" else "csv", delimiter=delimiter, decimal=decimal)
    if decimal == ",":
        info["notes"].append("numbers use a decimal comma (3,5 = 3.5)"
                             + ("; '.' groups thousands" if thousands else ""))
    header = rows[0] if rows else []
    # A first row made only of numbers is data, not column names.
    no_header = len(rows) > 1 and all(is_number(f) for f in header) and all(is_number(f) for f in rows[1])
    names = None
    if no_header:
        names = [f"column_{i + 1}" for i in range(len(header))]
        info["notes"].append("the first row holds only numbers, so it was read as data; "
                             "the columns are named column_1, column_2, ...")
    # Never let pandas guess that the first columns are an index, except for R's row names:
    # a header one field shorter than every row. Lines that all end with a delimiter have
    # an empty last field, which is dropped.
    index_col = False
    first = rows[1] if len(rows) > 1 else []
    if not no_header and len(first) > len(header):
        longer = [r for r in rows[1:] if len(r) > len(header)]
        if all(not f.strip() for r in longer for f in r[len(header):]):
            info["notes"].append("lines end with a delimiter; the empty field after it was ignored")
        elif len(first) == len(header) + 1:
            index_col = None
            info["notes"].append("the header has one name fewer than the rows have fields (as R's "
                                 "write.csv writes row names); the first field of each row was read "
                                 "into the column row_label")
        else:
            raise AnalystDataError(f"the header names {len(header)} columns but the first data row has "
                                   f"{len(first)} fields (delimiter {delimiter!r}); check the file's "
                                   "delimiter and quoting.")
    # Later rows with more fields than the header are skipped (their values cannot be placed
    # in columns); pandas reports each one and the loader records them in the notes.
    # Rows with fewer fields are kept, their missing trailing fields left empty.
    messages = io.StringIO()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stderr(messages):
        warnings.simplefilter("always")
        try:
            df = pd.read_csv(path, sep=delimiter, encoding=encoding, compression=compression or None,
                             decimal=decimal, thousands=thousands, header=None if no_header else "infer",
                             names=names, index_col=index_col, on_bad_lines="warn", low_memory=False)
        except UnicodeDecodeError:
            if encoding not in ("utf-8", "utf-8-sig"):
                raise
            # The sample was UTF-8 but a later part of the file is not.
            encoding = "latin-1"
            info["notes"].append("the file is not valid UTF-8 after its first 64 KB; "
                                 "it was read as Latin-1 (ISO-8859-1)")
            df = pd.read_csv(path, sep=delimiter, encoding=encoding, compression=compression or None,
                             decimal=decimal, thousands=thousands, header=None if no_header else "infer",
                             names=names, index_col=index_col, on_bad_lines="warn", low_memory=False)
        except pd.errors.EmptyDataError:
            raise AnalystDataError("the file is empty: it has no header and no rows. Check that the "
                                   "export that wrote it finished.") from None
        except (pd.errors.ParserError, csv.Error, ValueError) as e:
            raise AnalystDataError(f"the file could not be read as {info['format'].upper()} "
                                   f"(delimiter {delimiter!r}): {e}") from None
    info["encoding"] = encoding
    if index_col is None:
        df = df.rename_axis("row_label").reset_index()
    reported = messages.getvalue() + "\n".join(str(w.message) for w in caught)
    skipped = re.findall(r"Skipping line (\d+): expected (\d+) fields?, saw (\d+)", reported)
    if skipped:
        lines = ", ".join(line for line, _, _ in skipped[:10]) + (", ..." if len(skipped) > 10 else "")
        info["notes"].append(f"{len(skipped):,} ragged row(s) with more fields than the header "
                             f"({skipped[0][1]}) were skipped: line(s) {lines}")
    if "loss of data" in reported:
        info["notes"].append("some rows have more fields than the header; their extra fields were dropped")
    if not no_header and len(header) == len(df.columns):
        renamed = [f"{old!r} → {new!r}" for old, new in zip(header, df.columns) if old != str(new)]
        if renamed:
            info["notes"].append("column names changed while reading (duplicate or empty names): "
                                 + ", ".join(renamed))
    if df.empty and len(df.columns) and not skipped:
        raise AnalystDataError("the file has a header but no data rows; there is nothing to "
                               "analyse. Check that the export that wrote it finished.")
    if df.empty and skipped:
        raise AnalystDataError("no row could be read: every data row has more fields than the "
                               f"header ({skipped[0][1]}); check the file's delimiter and quoting.")
    return df


def table_from_json(obj, info):
    """A DataFrame from parsed JSON: a list of records, or an object holding one."""
    if isinstance(obj, dict):
        tables = [k for k, v in obj.items() if isinstance(v, list) and v and isinstance(v[0], dict)]
        if len(tables) == 1:
            info["notes"].append(f"the records were read from the key {tables[0]!r}")
            obj = obj[tables[0]]
        elif obj and all(isinstance(v, list) for v in obj.values()):
            return pd.DataFrame(obj)  # {"column": [values], ...}
        elif obj and all(isinstance(v, dict) for v in obj.values()):
            return pd.DataFrame.from_dict(obj, orient="index")  # {"row id": {record}, ...}
        else:
            obj = [obj]
    if not isinstance(obj, list):
        raise AnalystDataError("the JSON holds a single value, not a table; give a list of "
                               "records like [{\"a\": 1}, {\"a\": 2}].")
    if obj and any(isinstance(v, dict) for r in obj[:100] if isinstance(r, dict) for v in r.values()):
        info["notes"].append("nested JSON objects were flattened into columns named like parent.child")
        return pd.json_normalize(obj)
    return pd.DataFrame(obj)


def read_json_file(path, fmt, compression, encoding, info):
    opener = {"": open, "gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}[compression]
    with opener(path, "rb") as f:
        text = f.read().decode(encoding)
    if not text.strip():
        raise AnalystDataError("the file is empty: it holds no records.")
    try:
        if fmt == "jsonl":
            df = pd.read_json(io.StringIO(text), lines=True, dtype=False, convert_dates=False)
        else:
            df = table_from_json(json.loads(text), info)
    except ValueError as e:
        kind = "JSON Lines (one JSON object per line)" if fmt == "jsonl" else "JSON"
        raise AnalystDataError(f"the file is not valid {kind}: {e}") from None
    # Lists and objects inside cells cannot be counted or compared; keep them as JSON text.
    for column in df.columns[df.dtypes == object]:
        nested = df[column].map(lambda v: isinstance(v, (list, dict)))
        if nested.any():
            df[column] = df[column].where(~nested, df[column][nested].map(json.dumps))
            info["notes"].append(f"column {column!r} holds lists or objects; they are kept as JSON text")
    return df


def read_excel_file(path, info):
    try:
        book = pd.ExcelFile(path, engine="openpyxl")
        sheet = book.sheet_names[0]
        df = book.parse(sheet)
        header = list(book.parse(sheet, header=None, nrows=1).iloc[0]) if len(df.columns) else []
    except (zipfile.BadZipFile, KeyError, OSError, ValueError) as e:
        raise AnalystDataError(f"the Excel workbook could not be read ({e}); open it in Excel "
                               "and save it again as .xlsx, or export the sheet as CSV.") from None
    info.update(format="xlsx", sheet=sheet, encoding="")
    if len(book.sheet_names) > 1:
        info["notes"].append(f"the workbook has {len(book.sheet_names)} sheets; only the first, "
                             f"{sheet!r}, was read (others: {', '.join(map(repr, book.sheet_names[1:]))})")
    if len(header) == len(df.columns):
        renamed = [f"{old!r} → {new!r}" for old, new in zip(header, df.columns)
                   if not (isinstance(old, str) and old == new)]
        if renamed:
            info["notes"].append("column names changed while reading (duplicate, empty or "
                                 "non-text names): " + ", ".join(renamed))
    return df


def date_format(values):
    """(format, share): the DATE_FORMATS entry that parses the largest share of the values."""
    values = values.dropna()
    if values.empty or not all(isinstance(v, str) for v in values):
        return None, 0.0
    if values.str.match(DATE_LIKE).mean() < 0.5:
        return None, 0.0
    best, best_share = None, 0.0
    for fmt in DATE_FORMATS:
        share = to_dates(values, fmt).notna().mean()
        if share > best_share:
            best, best_share = fmt, share
    return best, best_share


def to_dates(values, fmt):
    """The values as dates in format fmt, missing where they do not parse; times with
    a UTC offset (%z) in UTC, since one column can hold several offsets."""
    return pd.to_datetime(values, format=fmt, errors="coerce", utc="%z" in fmt)


def spaced_sample(s, n):
    """Up to n non-missing values spread evenly over the column (not just its first rows)."""
    values = s.dropna()
    return values.iloc[:: max(1, len(values) // n)].iloc[:n]


def parse_dates(df, info):
    """Text columns whose values are mostly dates (>= DATE_SHARE) become datetime columns."""
    for column in df.columns[df.dtypes == object]:
        fmt, share = date_format(spaced_sample(df[column], 500))
        if share < DATE_SHARE:
            continue
        present = df[column].notna().sum()
        parsed = to_dates(df[column], fmt)
        if parsed.notna().sum() < DATE_SHARE * present:
            continue
        df[column] = parsed
        info["parsed_dates"].append(str(column))
        if "%z" in fmt:
            info["notes"].append(f"the times in {column!r} carry UTC offsets; they were converted to UTC")
        failed = present - parsed.notna().sum()
        if failed:
            info["notes"].append(f"{failed:,} value(s) of {column!r} are not dates in the format "
                                 f"{fmt} and became missing")
        swapped = fmt.replace("%d", "%_").replace("%m", "%d").replace("%_", "%m")
        if swapped != fmt and swapped in DATE_FORMATS and (parsed.dt.day.dropna() <= 12).all():
            info["notes"].append(f"the dates in {column!r} could be day/month or month/day "
                                 f"(no day is above 12); they were read as {fmt}")


def load_table(path):
    """Reads a CSV/TSV (optionally compressed), JSON, JSON Lines or Excel file into a DataFrame.

    Returns the DataFrame and a dict saying how it was read (load_info).
    """
    info = {"format": "", "compression": "", "encoding": "", "bom": False, "delimiter": "",
            "decimal": ".", "sheet": "", "parsed_dates": [], "notes": []}
    if not os.path.isfile(path):
        raise AnalystDataError(f"{path} does not exist or is not a file; set DATA_PATH to the data file.")
    if os.path.getsize(path) == 0:
        raise AnalystDataError("the file is empty (0 bytes): it has no header and no rows. Check "
                               "that the export that wrote it finished.")
    head, compression = read_head(path)
    info["compression"] = compression
    fmt = detect_format(path, head)
    if fmt == "xlsx":
        df = read_excel_file(path, info)
    else:
        encoding, bom = detect_encoding(head, info["notes"])
        info.update(encoding=encoding, bom=bom)
        if fmt == "csv":
            df = read_delimited(path, head, compression, encoding, info)
        else:
            info["format"] = fmt
            df = read_json_file(path, fmt, compression, encoding, info)
    if len(df.columns) == 0:
        raise AnalystDataError("the file holds no columns; there is nothing to analyse.")
    if df.empty:
        raise AnalystDataError("the file has column names but no data rows; there is nothing to analyse.")
    df.columns = [str(c) for c in df.columns]  # analyst refers to columns by their names as text
    parse_dates(df, info)
    return df, info


df, load_info = load_table(DATA_PATH)
delimiter = f", delimiter {load_info['delimiter']!r}" if load_info["delimiter"] else ""
encoding = f", {load_info['encoding']}" if load_info["encoding"] else ""
print(f"Loaded {len(df):,} rows × {len(df.columns):,} columns from {os.path.basename(DATA_PATH)} "
      f"({load_info['format']}{encoding}{delimiter})")
for note in load_info["notes"]:
    print("Note:", note)
