{{SOURCE}}
# Text values that mean "no value": a value equal to one of these, ignoring case and the
# spaces around it, becomes missing ("" stands for empty or only spaces). analyst's
# --na-values flag (config key na-values) sets this list; edit it here to re-run with another.
NA_VALUES = {{NA_VALUES}}


class AnalystDataError(Exception):
    """The file cannot be read as a table; the message says what is wrong and what to do."""


HEAD_BYTES = {{HEAD_KB}} * 1024  # how much of the file the loader looks at to decide how to read it
DELIMITERS = [",", ";", "\t", "|"]  # the delimiters the loader tries, in order of preference
DATE_SHARE = {{DATE_SHARE}}  # a text column becomes dates when at least this share of its values parse
# Date formats tried, in order; the first that parses the most sampled values wins.
# Explicit formats are fast on millions of rows (no per-value guessing).
DATE_FORMATS = [
    "%Y-%m-%d", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M",
    "%Y-%m-%dT%H:%M:%S.%f", "%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%d %H:%M:%S%z", "%Y-%m-%dT%H:%M:%S.%f%z",
    "%Y-%m-%dT%H:%M%z", "%Y/%m/%d", "%Y/%m/%d %H:%M:%S",
    "%d/%m/%Y", "%m/%d/%Y", "%d/%m/%Y %H:%M", "%m/%d/%Y %H:%M",
    "%d/%m/%Y %H:%M:%S", "%m/%d/%Y %H:%M:%S", "%d.%m.%Y", "%d.%m.%Y %H:%M",
    "%d-%m-%Y", "%m-%d-%Y", "%d %b %Y", "%d %B %Y", "%b %d, %Y", "%B %d, %Y", "%Y-%m",
]
# Dates with a UTC offset (+01:00) or Z are converted to UTC: the column holds UTC times.
ZONED = r"\d:\d\d(?::\d\d(?:\.\d+)?)?\s*(Z|[+-]\d\d:?\d\d)$"  # the group is the offset
DATE_LIKE = r"\s*(\d{1,4}[-/.]\d{1,2}([-/.]\d{1,4})?|\d{1,2} [A-Za-z]{3,9} \d{4}|[A-Za-z]{3,9} \d{1,2}, \d{4})"
# File signatures the loader recognises, and what to say about them.
SIGNATURES = [
    (b"%PDF", "a PDF document, not a table; export the table as CSV"),
    (b"\x89PNG", "a PNG image, not a table"),
    (b"\xff\xd8\xff", "a JPEG image, not a table"),
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


def amount(n, total):
    """n bytes in the unit the file's size is shown in: MiB from 1 MiB up (with a decimal
    below 10, so that the first chunks of a small file do not read as 0), else bytes."""
    if total < 2**20:
        return f"{n:,}"
    return f"{n / 2**20:,.1f}" if n < 10 * 2**20 else f"{n / 2**20:,.0f}"


class ProgressFile(io.RawIOBase):
    """The file at path, read as pandas would read it, logging to progress_log how much of it
    has been read (and, for uncompressed text, about how many rows, at the head's bytes per
    line), then, once it is all read, that pandas is converting the columns. The reading itself
    is unchanged."""

    def __init__(self, path, head, compressed):
        super().__init__()
        self.file = open(path, "rb")
        self.total = os.path.getsize(path)
        self.line_bytes = None if compressed or b"\n" not in head else len(head) / head.count(b"\n")
        self.size = f"{amount(self.total, self.total)} " + ("MiB" if self.total >= 2**20 else "bytes")
        self.finished = False

    def readable(self):
        return True

    def readinto(self, buffer):
        n = self.file.readinto(buffer)
        done = self.file.tell()
        rows = f", about {done / self.line_bytes:,.0f} rows" if self.line_bytes else ""
        if n:
            progress_log.info(f"read {amount(done, self.total)} of {self.size} ({done / self.total:.0%}){rows}",
                              extra={"done": done, "total": self.total, "unit": "bytes"})
        elif not self.finished:  # the end: pandas now turns the text into typed columns, silently
            self.finished = True
            progress_log.info(f"read all {self.size}{rows}; converting the text into columns",
                              extra={"done": done, "total": done, "unit": "bytes"})
        return n

    def close(self):
        self.file.close()
        super().close()


def log_columns(step, done, total):
    """Logs to progress_log how many of the text columns a cleaning step has done."""
    progress_log.info(f"{step}: {done:,} of {total:,} text columns",
                      extra={"done": done, "total": total, "unit": "columns"})


def skipped_rows(reported):
    """(line, fields expected, fields found) of each row pandas reported skipping, read from the
    text of its warnings (on_bad_lines="warn")."""
    return [tuple(map(int, row)) for row in re.findall(r"Skipping line (\d+): expected (\d+) fields?, saw (\d+)", reported)]


def ragged_rows_note(skipped):
    """The load note on the rows skipped for having more fields than the header."""
    lines = ", ".join(str(line) for line, _, _ in skipped[:10]) + (", ..." if len(skipped) > 10 else "")
    return (f"{len(skipped):,} ragged row(s) with more fields than the header ({skipped[0][1]}) were "
            f"skipped: line(s) {lines}")


def read_delimited(path, head, compression, encoding, info):
    text = head.decode(encoding, errors="replace")
    # Classic Mac OS ends lines with a carriage return alone; pandas must be told.
    lineterminator = "\r" if "\r" in text and "\n" not in text else None
    if lineterminator:
        text = text.replace("\r", "\n")
        info["notes"].append("lines end with a carriage return only (as classic Mac OS wrote them)")
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
    # Only empty fields are missing at this point: clean_missing_markers applies NA_VALUES
    # afterwards, so that it can count the markers it finds.
    # Later rows with more fields than the header are skipped (their values cannot be placed
    # in columns); pandas reports each one and the loader records them in the notes.
    # Rows with fewer fields are kept, their missing trailing fields left empty.
    def read(encoding):
        # Under copy-on-write, pandas makes the frame from the parsed columns as they are; else it
        # first copies them into one block per type (seconds on millions of rows). The option is
        # on only while reading: the values, types and behaviour of df are the same either way.
        with ProgressFile(path, head, compression) as data, pd.option_context("mode.copy_on_write", True):
            return pd.read_csv(data, sep=delimiter, encoding=encoding, compression=compression or None,
                               decimal=decimal, thousands=thousands, header=None if no_header else "infer",
                               names=names, index_col=index_col, on_bad_lines="warn", low_memory=False,
                               lineterminator=lineterminator, keep_default_na=False, na_values=[""])

    messages = io.StringIO()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stderr(messages):
        warnings.simplefilter("always")
        try:
            df = read(encoding)
        except UnicodeDecodeError:
            if encoding not in ("utf-8", "utf-8-sig"):
                raise
            # The sample was UTF-8 but a later part of the file is not.
            encoding = "latin-1"
            info["notes"].append("the file is not valid UTF-8 after its first 64 KB; "
                                 "it was read as Latin-1 (ISO-8859-1)")
            df = read(encoding)
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
    skipped = skipped_rows(reported)
    if skipped:
        info["notes"].append(ragged_rows_note(skipped))
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
    # Lists and objects inside cells cannot be counted or compared; keep them as JSON text
    # (json.loads gives them back), and say in json_columns which columns hold them.
    for column in df.columns[df.dtypes == object]:
        nested = df[column].map(lambda v: isinstance(v, (list, dict)))
        if nested.any():
            kinds = set(df[column][nested].map(lambda v: "lists" if isinstance(v, list) else "objects"))
            info.setdefault("json_columns", {})[str(column)] = " and ".join(sorted(kinds))
            df[column] = df[column].where(~nested, df[column][nested].map(json.dumps))
            info["notes"].append(f"column {column!r} holds lists or objects; they are kept as JSON text")
    return df


def date_format(values):
    """(format, share): the DATE_FORMATS entry that parses the largest share of the values."""
    values = values.dropna()
    if values.empty or not all(isinstance(v, str) for v in values):
        return None, 0.0
    if values.str.match(DATE_LIKE).mean() < 0.5:
        return None, 0.0
    # Times with a UTC offset or Z are tried only with the formats that read the offset.
    zoned = values.str.extract(ZONED)[0].notna().mean() >= 0.5
    best, best_share = None, 0.0
    for fmt in [f for f in DATE_FORMATS if ("%z" in f) == zoned]:
        share = to_dates(values, fmt).notna().mean()
        if share > best_share:
            best, best_share = fmt, share
    return best, best_share


def to_dates(values, fmt):
    """The values as dates in format fmt, missing where they do not parse; times with
    a UTC offset (%z) in UTC, since one column can hold several offsets."""
    return pd.to_datetime(values, format=fmt, errors="coerce", utc="%z" in fmt)


def column_dates(s, fmt):
    """to_dates(s, fmt) of a whole column. When the loader kept the column's codes, each distinct
    text is parsed once and the dates are placed by the codes (what pandas' own cache of
    to_datetime does, after hashing the column again)."""
    kept = kept_factorization(s)
    if kept is None:
        return to_dates(s, fmt)
    codes, uniques, _ = kept
    dates = to_dates(pd.Series(uniques, dtype=object), fmt).array
    return pd.Series(dates.take(codes, allow_fill=True), index=s.index, name=s.name)


def spaced_sample(s, n):
    """Up to n non-missing values spread evenly over the column (not just its first rows):
    s.dropna().iloc[::step][:n], taken by position so that the column is not copied."""
    present = present_mask(s)
    count = int(present.sum())
    step = max(1, count // n)
    if count == len(s):
        return s.iloc[:: step].iloc[:n]
    return s.iloc[np.flatnonzero(present)[:: step][:n]]


def first_present(s, n):
    """The first n non-missing values of s: s.dropna().head(n), without copying the column."""
    k = 8 * n
    while True:
        values = s.iloc[:k].dropna()
        if len(values) >= n or k >= len(s):
            return values.head(n)
        k *= 8


def parse_dates(df, info):
    """Text columns whose values are mostly dates (>= DATE_SHARE) become datetime columns."""
    columns = df.columns[df.dtypes == object]
    for i, column in enumerate(columns):
        log_columns("looked for dates", i, len(columns))
        fmt, share = date_format(spaced_sample(df[column], 500))
        if share < DATE_SHARE:
            continue
        present = present_mask(df[column]).sum()
        parsed = column_dates(df[column], fmt)
        if parsed.notna().sum() < DATE_SHARE * present:
            continue
        if "%z" in fmt:
            zones = sorted(set(spaced_sample(df[column], 2000).str.extract(ZONED)[0].dropna()))
            info["notes"].append(f"the times in {column!r} carry UTC offsets ({', '.join(zones[:6])}); they were "
                                 "converted to UTC, so the column holds UTC times")
        df[column] = parsed
        FACTORIZED.pop(column, None)
        info["parsed_dates"].append(str(column))
        failed = present - parsed.notna().sum()
        if failed:
            info["notes"].append(f"{failed:,} value(s) of {column!r} are not dates in the format "
                                 f"{fmt} and became missing")
        swapped = fmt.replace("%d", "%_").replace("%m", "%d").replace("%_", "%m")
        if swapped != fmt and swapped in DATE_FORMATS and (parsed.dt.day.dropna() <= 12).all():
            info["notes"].append(f"the dates in {column!r} could be day/month or month/day "
                                 f"(no day is above 12); they were read as {fmt}")
    log_columns("looked for dates", len(columns), len(columns))


# ---- Text as spreadsheets and exports write it --------------------------------------
NUMBER_SHARE = {{NUMBER_SHARE}}  # a text column becomes numeric when at least this share of its values are numbers
NUMBER_HINT_SHARE = {{NUMBER_HINT_SHARE}}  # from this share up to NUMBER_SHARE it stays text, with an alert
# A number as exports write it: a sign, a currency symbol before or after it, digits grouped
# by ',' '.' spaces or apostrophes, a decimal part, a trailing % (divided by 100), and
# accounting parentheses for negatives: (1,234.50) is -1234.5.
NUMBER_TEXT = re.compile(
    r"^\s*(?P<open>\(?)\s*(?P<sign>[-+\u2212]?)\s*(?P<cur1>[$€£¥₹]?)\s*(?P<sign2>[-+\u2212]?)\s*"
    r"(?P<digits>\d[\d.,'’ \u00a0\u202f]*)\s*(?P<pct>%?)\s*(?P<cur2>[$€£¥₹]?)\s*(?P<close>\)?)\s*$")
GROUP = r"[,'’ \u00a0\u202f]"  # thousands separators beside the decimal point
POINT_DECIMAL = re.compile(r"\d{1,3}(?:" + GROUP + r"\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")  # 12,500.50
COMMA_DECIMAL = re.compile(r"\d{1,3}(?:[.'’ \u00a0\u202f]\d{3})+(?:,\d+)?|\d+(?:,\d+)?")  # 12.500,50
# Integer columns whose name says time and whose every value is a Unix time of 2001-2033
# become UTC timestamps; without such a name they stay numbers, with an alert.
EPOCH_RANGES = {"s": (1e9, 2e9), "ms": (1e12, 2e12)}
EPOCH_NAME = re.compile(r"time|date|epoch|unix|stamp|(^|_)ts$|_at$|created|updated|modified", re.I)


# ---- Text columns, hashed once ----------------------------------------------------
# Hashing millions of text values is the slow part of cleaning and profiling them, so the
# loader factorizes each text column (every value a str) once (pd.factorize: a code per row, -1 where missing, and
# the distinct values in order of first appearance) and keeps the result here, by column name,
# for the profile: missing counts, frequencies and memory come from the codes. An entry knows
# the values it was made from (by a weak reference: it does not keep a replaced column alive),
# so a column replaced since (df[c] = ...) is factorized afresh, and the profile checks the
# values against the codes first (drop_stale_codes), so that a cell that changed values in
# place between the load and the profile is seen too.
FACTORIZED = {}


def values_key(values):
    """(weak reference to the array that owns values' memory, address, shape): equal keys with a
    live owner mean the very same values."""
    owner = values
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    return weakref.ref(owner), values.__array_interface__["data"][0], values.shape


def factorized(s, keep=True):
    """(codes, uniques, counts) of the text column s, computed once and kept in FACTORIZED
    (unless keep is False):
    codes as pd.factorize gives them (int32, -1 where missing), the distinct non-missing
    values in order of first appearance, and counts[0] missing values, counts[1 + i] of uniques[i]."""
    kept = kept_factorization(s)
    if kept is None:
        values = s.to_numpy()
        codes, uniques = pd.factorize(values)
        codes = codes.astype(np.int32) if len(uniques) < 2**31 - 1 else codes
        kept = (codes, uniques, np.bincount(codes + 1, minlength=len(uniques) + 1))
        if keep:
            FACTORIZED[s.name] = (values_key(values), *kept)
    return kept


def kept_factorization(s):
    """factorized(s) if it was kept for these very values of s, else None."""
    kept = FACTORIZED.get(s.name) if s.dtype == object else None
    if kept is None:
        return None
    (owner, address, shape), now = kept[0], values_key(s.to_numpy())
    if owner() is None or owner() is not now[0]() or (address, shape) != now[1:]:  # replaced since
        return None
    return kept[1:]


def drop_stale_codes(frame):
    """Forget the kept codes of every text column of frame whose values are no longer the ones
    the codes name: replaced (which the weak reference sees) or changed in place, as
    df.loc[rows, column] = value does (which it cannot see). One comparison of each value with
    the value its code names: O(n), about 0.25 s a column at 8 million rows, against the three
    hashing passes (missing values, frequencies, memory) the kept codes spare the profile."""
    for name in list(FACTORIZED):
        s = frame[name] if name in frame.columns else None
        kept = kept_factorization(s) if isinstance(s, pd.Series) else None
        if kept is not None:
            codes, uniques = kept[0], np.asarray(kept[1], dtype=object)
            values = s.to_numpy()
            present = codes >= 0
            try:
                with np.errstate(all="ignore"):
                    same = bool(pd.isna(values[~present]).all()) and (
                        len(uniques) == 0 or bool(np.all((uniques.take(np.maximum(codes, 0)) == values) | ~present)))
            except (TypeError, ValueError):  # values that do not compare as one value each
                same = False
            if same:
                continue
        FACTORIZED.pop(name, None)


def present_mask(s):
    """s.notna() as a NumPy array; for a text column, from its kept codes (no pass over the text)."""
    kept = kept_factorization(s)
    return s.notna().to_numpy() if kept is None else kept[0] >= 0


def text_values(s, uniques=None):
    """The distinct non-missing values of s as a Series of text, or None if s is not text
    (uniques: s's distinct values when they are known already)."""
    if s.dtype != object:
        return None
    values = pd.Series(pd.unique(s.to_numpy()) if uniques is None else uniques, dtype=object)
    values = values[values.notna()].reset_index(drop=True)
    if not values.map(type).eq(str).all():
        return None
    return values


def clean_missing_markers(df, info, keep_codes=False):
    """Values in NA_VALUES (ignoring case and surrounding spaces) become missing, counted per column.
    keep_codes: keep each text column's factorization for the profile (see FACTORIZED)."""
    markers = {str(m).strip().casefold() for m in NA_VALUES}
    columns = df.columns[df.dtypes == object]
    for i, column in enumerate(columns):
        log_columns("looked for missing-value markers", i, len(columns))
        values = text_values(df[column], factorized(df[column], keep_codes)[1])
        if values is None:  # not text (numbers or lists among the values): nothing kept
            FACTORIZED.pop(column, None)
            continue
        if not markers:
            continue
        found = values[values.str.strip().str.casefold().isin(markers)]
        if found.empty:
            continue
        hit = df[column].isin(found)
        counts = df[column][hit].value_counts()
        df[column] = df[column].mask(hit)
        FACTORIZED.pop(column, None)  # the codes were of the values before
        if keep_codes:
            factorized(df[column])
        info["missing_markers"][column] = [{"value": v, "count": int(n)} for v, n in counts.items()]
        listed = ", ".join(f"{v!r} ({n:,})" for v, n in counts.head(8).items())
        info["notes"].append(f"{int(hit.sum()):,} value(s) of {column!r} are missing-value markers "
                             f"and became missing: {listed}")
    log_columns("looked for missing-value markers", len(columns), len(columns))


def number_match(text):
    """The NUMBER_TEXT match of text if it is one number (one sign, one currency, balanced
    parentheses), else None."""
    m = NUMBER_TEXT.match(text)
    if m is None or (m["open"] == "(") != (m["close"] == ")"):
        return None
    if (m["open"] and (m["sign"] or m["sign2"])) or (m["sign"] and m["sign2"]) or (m["cur1"] and m["cur2"]):
        return None
    return m


def numbers_from_text(values, decimal):
    """(numbers, rule): the distinct text values read as numbers as exports write them (NaN
    where they are not), and the rule applied, in words ("" when they are plain numbers).

    A loop over the distinct values: columns repeat values, and for a few thousand of them
    plain Python is faster than pandas' string methods.
    """
    matches = [number_match(v) for v in values]
    digits = [m["digits"].strip() if m else "" for m in matches]
    point = sum(1 for m, d in zip(matches, digits) if m and POINT_DECIMAL.fullmatch(d))
    comma = sum(1 for m, d in zip(matches, digits) if m and COMMA_DECIMAL.fullmatch(d))
    # Which convention: the one more values fit; on a tie (1,189 fits both), the file's.
    use_comma = comma > point or (comma == point and decimal == ",")
    shape, grouping = (COMMA_DECIMAL, r"[.'’ \u00a0\u202f]") if use_comma else (POINT_DECIMAL, GROUP)
    numbers, grouped, decimal_comma, symbols, percent, parentheses = [], False, False, set(), False, False
    for m, d in zip(matches, digits):
        if m is None or not shape.fullmatch(d):
            numbers.append(np.nan)
            continue
        plain = re.sub(grouping, "", d)
        grouped = grouped or plain != d
        if use_comma:
            decimal_comma = decimal_comma or "," in plain
            plain = plain.replace(",", ".")
        x = float(plain)
        if m["open"] or m["sign"] in ("-", "\u2212") or m["sign2"] in ("-", "\u2212"):
            x = -x
        if m["pct"]:
            x /= 100
        numbers.append(x)
        symbols.update({m["cur1"], m["cur2"]} - {""})
        percent = percent or bool(m["pct"])
        parentheses = parentheses or bool(m["open"])
    rule = []
    if use_comma and (grouped or decimal_comma):
        rule.append("',' is the decimal mark and '.' or spaces group thousands (1.189,50 = 1189.5)")
    elif grouped:
        rule.append("'.' is the decimal mark and ',' or spaces group thousands (12,500.50 = 12500.5)")
    if symbols:
        rule.append("currency symbols " + " ".join(sorted(symbols)) + " removed")
    if percent:
        rule.append("values with % divided by 100 (26.7% = 0.267)")
    if parentheses:
        rule.append("values in parentheses are negative ((1,234) = -1234)")
    return pd.Series(numbers, index=values.index, dtype=float), "; ".join(rule)


def convert_number_text(df, info):
    """Text columns whose values are mostly numbers as exports write them become numeric.

    At least NUMBER_SHARE of the non-missing values must convert; those that do not become
    missing and are counted and listed in the notes. Between NUMBER_HINT_SHARE and
    NUMBER_SHARE the column stays text (the profile alerts on it).
    """
    columns = df.columns[df.dtypes == object]
    for i, column in enumerate(columns):
        log_columns("looked for numbers written as text", i, len(columns))
        sample = df[column].iloc[:: max(1, len(df) // 2000)].dropna().head(1000)  # cheap: no copy of the column
        if sample.empty or not sample.map(type).eq(str).all():
            continue
        if sample.str.match(NUMBER_TEXT).mean() < NUMBER_HINT_SHARE:
            continue  # cheap test first: most text columns stop here
        values = text_values(df[column], factorized(df[column], keep=False)[1])
        numbers, rule = numbers_from_text(values, info["decimal"])
        converted = df[column].map(pd.Series(numbers.to_numpy(), index=values.to_numpy()))
        present = int(df[column].notna().sum())
        share = converted.notna().sum() / present
        failed = df[column][df[column].notna() & converted.isna()].value_counts()
        examples = [{"value": v, "count": int(n)} for v, n in failed.head(10).items()]
        listed = ", ".join(f"{v!r} ({n:,})" for v, n in failed.head(5).items())
        if share < NUMBER_SHARE:
            if share >= NUMBER_HINT_SHARE and rule:  # plain numbers mixed with text: mixed_types says so
                info["numbers_as_text"][column] = {"share": share, "failed": int(failed.sum()), "examples": examples}
            continue
        if converted.notna().all() and (converted % 1 == 0).all():
            converted = converted.astype("int64")
        df[column] = converted
        FACTORIZED.pop(column, None)
        info["converted_numbers"][column] = {"rule": rule, "converted": int(converted.notna().sum()),
                                             "failed": int(failed.sum()), "failed_values": examples}
        if rule:
            info["notes"].append(f"{column!r} held numbers as text and was converted: {rule}")
        if len(failed):
            info["notes"].append(f"{int(failed.sum()):,} value(s) of {column!r} are not numbers and became "
                                 f"missing: {listed}")
    log_columns("looked for numbers written as text", len(columns), len(columns))


def epoch_unit(s):
    """'s' or 'ms' when every value of the numeric column s is a whole number that, read as
    Unix time in that unit, falls in 2001-2033; else None."""
    if not pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
        return None
    values = s.dropna()
    if values.empty:
        return None
    low, high = values.min(), values.max()
    for unit, (start, end) in EPOCH_RANGES.items():
        if start <= low and high < end and (pd.api.types.is_integer_dtype(values) or (values % 1 == 0).all()):
            return unit
    return None


def parse_epochs(df, info):
    """Integer columns named like times whose values are all Unix times become UTC timestamps."""
    for column in df.columns:
        unit = epoch_unit(df[column]) if EPOCH_NAME.search(column) else None
        if unit is None:
            continue
        df[column] = pd.to_datetime(df[column], unit=unit, utc=True)
        info["parsed_dates"].append(column)
        word = {"s": "seconds", "ms": "milliseconds"}[unit]
        info["notes"].append(f"{column!r} holds Unix times in {word} (its name says time and every value "
                             f"falls in 2001-2033 read so); converted to UTC timestamps")


def new_load_info():
    """load_info before the file is read: how it was read, filled in as the loader decides."""
    return {"format": "", "compression": "", "encoding": "", "bom": False, "delimiter": "",
            "decimal": ".", "sheet": "", "sheets": [], "table": "", "tables": [],
            "parsed_dates": [], "na_values": NA_VALUES,
            "missing_markers": {}, "converted_numbers": {}, "numbers_as_text": {}, "notes": []}

{{LOAD_FORMATS}}

def load_table(path, sheet=None, table=None):
    """Reads a CSV/TSV (optionally compressed), JSON, JSON Lines file, or one of TABLE_FORMATS
    (spreadsheets, SPSS, Stata, SAS, SQLite, Parquet) into a DataFrame.

    Returns the DataFrame and a dict saying how it was read (load_info).
    """
    info = new_load_info()
    if not os.path.isfile(path):
        raise AnalystDataError(f"{path} does not exist or is not a file; set DATA_PATH to the data file.")
    if os.path.getsize(path) == 0:
        raise AnalystDataError("the file is empty (0 bytes): it has no header and no rows. Check "
                               "that the export that wrote it finished.")
    head, compression = read_head(path)
    info["compression"] = compression
    fmt = table_format(path, head)
    if fmt and compression:
        raise AnalystDataError(f"the file is {compression}-compressed {fmt}; decompress it first.")
    fmt = fmt or detect_format(path, head)
    if fmt in FORMAT_NAMES:
        df = read_table_format(fmt, path, info, sheet, table)
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
    clean_missing_markers(df, info, keep_codes=True)
    convert_number_text(df, info)
    parse_dates(df, info)
    parse_epochs(df, info)
    return df, info


{{CALL}}
