# Text values that mean "no value": a value equal to one of these, ignoring case and the
# spaces around it, becomes missing ("" stands for empty or only spaces). analyst's
# --na-values flag (config key na-values) sets this list; edit it here to re-run with another.
NA_VALUES = [
    "", "-", "--", "?", "n/a", "na", "#n/a", "nan", "null", "none", "nil",
    "unknown", "missing",
]


class AnalystDataError(Exception):
    """The file cannot be read as a table; the message says what is wrong and what to do."""


HEAD_BYTES = 64 * 1024  # how much of the file the loader looks at to decide how to read it
DELIMITERS = [",", ";", "\t", "|"]  # the delimiters the loader tries, in order of preference
DATE_SHARE = 0.9  # a text column becomes dates when at least this share of its values parse
# Date formats tried, in order; the first that parses the most sampled values wins.
# Explicit formats are fast on millions of rows (no per-value guessing).
DATE_FORMATS = [
    "%Y-%m-%d", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M",
    "%Y-%m-%dT%H:%M:%S.%f", "%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%d %H:%M:%S%z", "%Y-%m-%dT%H:%M:%S.%f%z",
    "%Y-%m-%dT%H:%M%z", "%Y/%m/%d", "%Y/%m/%d %H:%M:%S",
    "%d/%m/%Y", "%m/%d/%Y", "%d/%m/%Y %H:%M", "%m/%d/%Y %H:%M",
    "%d/%m/%Y %H:%M:%S", "%m/%d/%Y %H:%M:%S", "%d.%m.%Y", "%d.%m.%Y %H:%M",
    "%d-%m-%Y", "%m-%d-%Y", "%d %b %Y", "%d %B %Y", "%b %d, %Y", "%B %d, %Y", "%Y-%m",
    # As databases and pandas' own to_csv write them: fractions of a second after a space
    # (PostgreSQL's +01 offsets are read by %z), day-month-year with a time, two-digit years.
    "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S.%f%z", "%d-%m-%Y %H:%M:%S", "%m-%d-%Y %H:%M:%S",
    "%d/%m/%y", "%m/%d/%y", "%d-%b-%y", "%d-%b-%Y",
    # Two-digit years after dashes, with or without a time; 12-hour clocks (AM/PM) as US
    # exports write them; year-first dates with dots (2004.12.13; %Y takes four digits, so
    # version numbers such as 1.2.20 stay text).
    "%d-%m-%y", "%m-%d-%y", "%d-%m-%y %H:%M:%S", "%m-%d-%y %H:%M:%S",
    "%m/%d/%Y %I:%M:%S %p", "%d/%m/%Y %I:%M:%S %p", "%m-%d-%Y %I:%M:%S %p", "%d-%m-%Y %I:%M:%S %p",
    "%m-%d-%y %I:%M:%S %p", "%d-%m-%y %I:%M:%S %p", "%Y.%m.%d", "%Y.%m.%d %H:%M:%S",
    # Two-digit years with dots, day first (13.12.04, as German exports write them) or year
    # first (04.12.13): the values decide (see DOTTED_PAIRS), only when every field has two digits.
    "%d.%m.%y", "%y.%m.%d", "%d.%m.%y %H:%M:%S", "%y.%m.%d %H:%M:%S",
    # UTC or GMT after a space, as BigQuery exports write timestamps.
    "%Y-%m-%d %H:%M:%S %Z", "%Y-%m-%d %H:%M:%S.%f %Z",
]
# Formats that read the same values two ways: {format: the other}. When both read a column's
# sample alike, the first in DATE_FORMATS wins and an ambiguous_dates entry says so.
DOTTED_PAIRS = {"%d.%m.%y": "%y.%m.%d", "%d.%m.%y %H:%M:%S": "%y.%m.%d %H:%M:%S"}
DOTTED_PAIRS.update({v: k for k, v in DOTTED_PAIRS.items()})
PADDED_DOTS = r"\s*\d\d\.\d\d\.\d\d(?:\s|$)"  # 04.12.13, not a version number such as 1.2.20
# A time of day (14:15:30, 9:05, 23:59:59.5): pandas has no type for it; such columns stay text
# and a note names them.
TIME_OF_DAY = r"\s*(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?\s*"
# Dates with a UTC offset (+01:00) or Z are converted to UTC: the column holds UTC times.
# The group is the offset: +01 as PostgreSQL writes it, or UTC/GMT after a space as BigQuery does.
ZONED = r"\d:\d\d(?::\d\d(?:\.\d+)?)?\s*(Z|[+-]\d\d(?::?\d\d)?|UTC|GMT)$"
DATE_LIKE = r"\s*(\d{1,4}[-/.]\d{1,2}([-/.]\d{1,4})?|\d{1,2}-[A-Za-z]{3}-\d{2,4}|\d{1,2} [A-Za-z]{3,9} \d{4}|[A-Za-z]{3,9} \d{1,2}, \d{4})"
HEADER_STABLE_SHARE = 0.9  # the header: the first row after which this share of the sampled rows has its field count
# A number written with a zero before another digit (02134, 000552, 01.50): as a number it would
# lose the zeros, which make it a code (ZIP codes, zero-padded identifiers), so it stays text.
LEADING_ZEROS = re.compile(r"\s*0\d+(?:[.,]\d+)?\s*")
# A phone number in international form (E.164: + and 9-15 digits, +318855443322): nobody writes
# a plus sign before a quantity that long, so it is a code and stays text (+12 is a number).
PHONE_NUMBER = re.compile(r"\s*\+\d{9,15}\s*")
# Column names that say the column holds codes or identifiers, not measures: the name's last
# word is one of CODE_WORDS (customer_id, ZipCode, "Postal code", phone), or one of NUMBER_WORDS
# after another word (account_number, order_no). A name with another last word is not one
# (account_balance, phone_calls, num_orders).
CODE_WORDS = [
    "id", "code", "zip", "zipcode", "postal", "postcode", "postalcode", "plz",
    "fips", "phone", "telephone", "tel", "fax", "account", "acct", "sku", "isbn",
    "ean", "upc", "gtin", "iban", "ssn", "uuid", "guid",
]
NUMBER_WORDS = ["number", "no", "nr", "num"]
# Codes written with leading zeros: columns so named are read as text whatever the first
# lines hold (a file sorted by state may reach the ZIP codes that start with 0 late).
PADDED_CODE_WORDS = ["zip", "zipcode", "postal", "postcode", "postalcode", "plz", "fips"]


def name_words(name):
    """The words of a column name, lowercase: snake_case, camelCase, spaces and punctuation split."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", str(name))
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    return [w.casefold() for w in re.findall(r"[^\W\d_]+", spaced)]


def padded_code(name):
    """True when name says its column holds codes written with leading zeros (zip_code, PLZ)."""
    return code_word(name) is not None and any(w in PADDED_CODE_WORDS for w in name_words(name))


def code_word(name):
    """The word of name that says its column holds codes or identifiers, or None."""
    words = name_words(name)
    if words and (words[-1] in CODE_WORDS or (words[-1] in NUMBER_WORDS and len(words) > 1)):
        return words[-1]
    return None


# File signatures the loader recognises, and what to say about them.
SIGNATURES = [
    (b"%PDF", "a PDF document, not a table; export the table as CSV"),
    (b"\x89PNG", "a PNG image, not a table"),
    (b"\xff\xd8\xff", "a JPEG image, not a table"),
    (b"7z\xbc\xaf", "a 7-Zip archive; extract the table first"),
]
COMPRESSIONS = {b"\x1f\x8b": "gzip", b"BZh": "bz2", b"\xfd7zXZ\x00": "xz"}
# A last row labelled so (any case, a trailing colon) may hold the column totals: left out of
# the table when each of its numbers is the sum of the rows above (see clean_table).
TOTAL_LABELS = [
    "total", "totals", "grand total", "sum", "overall", "all", "gesamt", "summe",
    "gesamtsumme", "insgesamt", "totale", "total général", "totaal", "totalt",
    "summa", "suma",
]


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
    try:  # Japanese Shift-JIS (Windows' cp932): proven by bytes that decode as kana, never by default
        japanese = head.decode("cp932")
        if re.search(r"[\u3040-\u30ff]", japanese):
            notes.append("the file is not UTF-8; it was read as Japanese Shift-JIS (cp932): its bytes decode so "
                         "into kana")
            return "cp932", False
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


NO_QUOTES = ""  # the escape character of a file whose quotes are text, not quoting (see sniff_dialect)
# The escape character of a file whose quoted fields follow spaces after the delimiter
# (1970,  73, "Hi, Mom!"): quotes doubled, the spaces before each field skipped (see sniff_dialect).
SPACED_QUOTES = " "
# The escape character of a file whose values are quoted with single quotes ('a, b'; quotes
# doubled inside them), as DuckDB's sniffer also tries (see sniff_dialect).
SINGLE_QUOTES = "'"


def quote_options(escapechar):
    """The options of csv.reader and pandas.read_csv for quotes: escaped by escapechar (None:
    doubled), NO_QUOTES: no quoting at all, SPACED_QUOTES: doubled, after spaces,
    SINGLE_QUOTES: single quotes, doubled."""
    if escapechar == NO_QUOTES:
        return {"quoting": csv.QUOTE_NONE, "escapechar": None}
    if escapechar == SPACED_QUOTES:
        return {"escapechar": None, "skipinitialspace": True}
    if escapechar == SINGLE_QUOTES:
        return {"escapechar": None, "quotechar": "'"}
    return {"escapechar": escapechar}


def split_options(delimiter, escapechar=None):
    """The options of csv.reader (and pandas.read_csv) that split rows as the loader decided:
    the delimiter, the quotes (see quote_options), and for a space delimiter runs of spaces
    read as one."""
    return {"delimiter": delimiter, "skipinitialspace": delimiter == " ", **quote_options(escapechar)}


def split_rows(text, delimiter, escapechar=None, limit=200):
    """The first limit non-blank rows of text split by delimiter, quotes respected (and
    escaped by escapechar, if given); None when the csv module cannot split them."""
    try:
        reader = csv.reader(io.StringIO(text), **split_options(delimiter, escapechar))
        return [r for r in itertools.islice(reader, limit) if r]
    except csv.Error:
        return None


def split_fit(text, delimiter, escapechar=None, limit=200):
    """(share of the first limit non-blank rows of text that have the most common field count
    and whose quotes fit the split, that count); (0, 0) for no rows. A row's quotes do not fit
    when a quoted field does not end at a delimiter ("Doe, Jane" quoted in a tab-separated
    file, split at its comma): the csv module's strict mode rejects that row."""
    reader = csv.reader(io.StringIO(text), strict=True, **split_options(delimiter, escapechar))
    widths = []
    while len(widths) < limit:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error:
            widths.append(None)  # quotes that do not fit this split
            continue
        if row and not commented(row):  # comment lines (# ...) say nothing of the delimiter
            widths.append(len(row))
    fitting = [w for w in widths if w is not None]
    if not fitting:
        return 0.0, 0
    width = max(set(fitting), key=lambda w: (fitting.count(w), w))
    return fitting.count(width) / len(widths), width


def sniff_dialect(text, prefer_tab):
    """(delimiter, escape character of quotes or None): the candidate delimiter that splits the
    sampled lines most consistently into > 1 fields, and how its quoted fields escape quotes.

    Each candidate splits the first 200 lines (quotes respected: a row whose quoted fields do
    not end at the candidate does not count for it); the winner has the highest share of lines
    with the most common field count, then a header of that width, then the file's extension
    (.tsv), then the most fields, then the order of DELIMITERS. A space is a delimiter only when
    it splits at least HEADER_STABLE_SHARE of the lines into the same number (> 1) of fields,
    better than every other candidate, and the file shows fields between its spaces
    (space_fields: files aligned with spaces; runs of spaces count as one).
    No candidate: one column. Quotes are escaped with a backslash when the sample holds \\" and
    reading it so splits the rows more consistently than doubled quotes (RFC 4180, the
    default) do, as MySQL and many scripts write them. Quotes are text, not quoting
    (NO_QUOTES), when a candidate splits fewer than HEADER_STABLE_SHARE of the lines alike with
    quoting and at least that share without (a tab file of titles such as "Weird Al" Yankovic);
    when the first quote comes after the first 200 lines, the lines from it on are split too
    (lines_from_late_quote), so that quotes first met there decide as early ones do.
    Spaces between the delimiter and a quote are skipped (SPACED_QUOTES) when the sample holds
    them and reading so splits the lines at least as consistently (1970,  73, "Hi, Mom!"): a
    quote that is text there (an inch mark) leaves a quoted field open, which splits worse.
    Values are quoted with single quotes (SINGLE_QUOTES) when a field of the sample starts with
    one and reading so splits the lines more consistently than double quotes do ('te<TAB>xt2' in
    a tab file): an apostrophe that starts a field ('twas) leaves a quoted field open or ends
    one inside a word, which splits worse or no better.
    """
    best, best_score = (",", None), None
    backslash = '\\"' in text
    late_quotes = lines_from_late_quote(text)
    for d in DELIMITERS + [" "]:
        (share, width), escape = split_fit(text, d), None
        if backslash:
            escaped = split_fit(text, d, "\\")
            if escaped[0] > share:
                (share, width), escape = escaped, "\\"
        if escape is None and d != " " and re.search(re.escape(d) + ' +"', text):
            spaced = split_fit(text, d, SPACED_QUOTES)
            if spaced[0] >= share and spaced[1] >= 2:
                (share, width), escape = spaced, SPACED_QUOTES
        late = late_quotes is not None and split_fit(late_quotes, d, escape)[0] < HEADER_STABLE_SHARE
        if '"' in text and (share < HEADER_STABLE_SHARE or late):
            unquoted = split_fit(text, d, NO_QUOTES)
            if unquoted[0] >= HEADER_STABLE_SHARE and unquoted[1] >= 2 and (
                    not late or split_fit(late_quotes, d, NO_QUOTES)[0] >= HEADER_STABLE_SHARE):
                (share, width), escape = unquoted, NO_QUOTES
        if escape is None and re.search("(^|" + re.escape(d) + ")'", text, re.M):
            single = split_fit(text, d, SINGLE_QUOTES)
            if single[0] > share and single[1] >= 2:
                (share, width), escape = single, SINGLE_QUOTES
        if width < 2 or (d == " " and (share < HEADER_STABLE_SHARE or not space_fields(text))):
            continue
        header = split_rows(text, d, escape, limit=1)
        score = (share, bool(header) and len(header[0]) == width, prefer_tab and d == "\t", width)
        if best_score is None or (score[0] > best_score[0] if d == " " else score > best_score):
            best, best_score = (d, escape), score
    return best


GROUPED_NUMBER = re.compile(r"[-+]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?")


def grouped_number_lines(text):
    """True when every line of text is one number, some grouped with commas (100,000.00), and
    the commas split the lines unevenly (fewer than HEADER_STABLE_SHARE alike): one column of
    numbers. Lines the commas split evenly (1,234 on every line) are fields."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return (any("," in line for line in lines) and all(GROUPED_NUMBER.fullmatch(line) for line in lines)
            and split_fit(text, ",")[0] < HEADER_STABLE_SHARE)


def lines_from_late_quote(text, limit=200):
    """text from the line of its first quote on, when that line is not among the first limit
    lines (those split_fit reads); else None: the first lines show the quotes already."""
    at = text.find('"')
    if at < 0 or text.count("\n", 0, at) < limit:
        return None
    return text[text.rfind("\n", 0, at) + 1:]


def space_fields(text):
    """True when spaces in text separate fields, not words of values: runs of spaces align
    columns, or a field split at spaces (below the first line) is a number or a date. Lines
    of words with single spaces (DELIVER IN PERSON, {"duck": 1}) are values with spaces."""
    if re.search(r"\S {2,}\S", text):
        return True
    rows = split_rows(text, " ", limit=50) or []
    return any(field_kind(f) in ("number", "date") for r in rows[1:] for f in r)


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


def ambiguous_decimal_comma(rows, info):
    """A note and an alert (layout_alerts: ambiguous_numbers) when the decimal comma that
    sniff_decimal found rests only on values such as 123,000 (one to three digits, a comma, three
    digits), which read as well with ',' grouping thousands (123000)."""
    example = None
    for row in rows[1:]:
        for field in row:
            field = field.strip()
            if re.fullmatch(r"[-+]?\d{1,3},\d{3}", field):
                example = example or field
            elif re.fullmatch(r"[-+]?(\d{1,3}(\.\d{3})+|\d+),\d+", field):
                return  # 3,5 or 1.234,5: a decimal comma beyond doubt
    if example is None:
        return
    whole, part = example.lstrip("+-").split(",")
    message = (f"numbers such as {example!r} were read with a decimal comma ({whole}.{part}), but each number with "
               f"a comma in the file's first lines could as well group thousands ({whole}{part}): nothing else "
               "decides. If ',' groups thousands, read the column as text and remove the commas")
    info.setdefault("layout_alerts", []).append({"type": "ambiguous_numbers", "message": message})
    info["notes"].append(message)


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


RAGGED_SHARE = 0.01  # more than this share of the rows skipped as ragged is an alert, not only a note


def ragged_rows_alert(skipped, kept, text, delimiter, escapechar, info):
    """When more than RAGGED_SHARE of the rows were skipped for having more fields than the
    header, load_info's ragged_rows names the likely cause (ragged_cause)."""
    share = len(skipped) / (len(skipped) + kept)
    if share <= RAGGED_SHARE:
        return
    cause = ragged_cause(text, delimiter, escapechar)
    info["ragged_rows"] = {"rows": len(skipped), "share": share, "cause": cause,
                           "message": f"{len(skipped):,} rows ({share:.1%}) were skipped for having more fields "
                                      f"than the header; the likely cause: {cause}. Check the file's delimiter "
                                      "and quoting; these rows are not in the analysis"}


def cut_rows_alert(rows, text, delimiter, escapechar, info):
    """When pandas kept rows longer than the header but dropped their extra fields (it does so
    for rows as long as the first data row, when that is longer), and more than RAGGED_SHARE of
    the sampled rows (rows: header first) are so long, load_info's ragged_rows says so and names
    the likely cause: the values lost their ends, which no note alone may hide."""
    longer = sum(len(r) > len(rows[0]) for r in rows[1:])
    share = longer / max(len(rows) - 1, 1)
    if share <= RAGGED_SHARE:
        return
    cause = ragged_cause(text, delimiter, escapechar)
    info["ragged_rows"] = {"rows": longer, "share": share, "cause": cause,
                           "message": f"{longer:,} of the first {len(rows) - 1:,} rows ({share:.1%}) have more fields "
                                      f"than the header; their extra fields were dropped; the likely cause: {cause}. "
                                      "Check the file's delimiter and quoting; those values are cut short"}


def ragged_cause(text, delimiter, escapechar):
    """The likely cause of rows longer than the header, from the sampled text: quotes escaped
    with a backslash that were not read so, comment lines, or another delimiter (one that splits
    the lines more evenly than the one read)."""
    lines = [line for line in text.splitlines() if line.strip()]
    others = [d for d in DELIMITERS + [" "] if d != delimiter and split_fit(text, d)[1] > 1]
    if '\\"' in text and escapechar != "\\":
        return "quotes escaped with a backslash (\\\") inside quoted fields"
    if sum(line.lstrip().startswith("#") for line in lines[1:]):
        return "comment lines (starting with #) between the rows"
    if others:
        return f"another delimiter: {others[0]!r} also splits the lines"
    return f"values holding the delimiter {delimiter!r} without quotes around them"


def row_width(fields):
    """The fields of a row up to its last non-empty one (Excel pads a title row with delimiters)."""
    return max((i + 1 for i, f in enumerate(fields) if f.strip()), default=0)


def find_header(text, delimiter, escapechar=None):
    """(index, preamble): the header's index among the first 200 non-blank rows of text, and
    the rows before it (as text) when the file starts with a title or comment block; (0, [])
    when the first row is the header.

    The header is the first row with the table's field count (the most common one) that holds
    two names or more, one of them not a number, and after which at least HEADER_STABLE_SHARE
    of the sampled rows have its field count; below rows that are all as wide as the table, it
    must also name with a word a column where the rows below hold numbers (when some do). The
    rows before it are a preamble only if each is
    a comment (# ...) or has fewer fields (not counting empty ones at its end: Excel pads a
    title with delimiters). A single shorter row right above the rows is a header, not a
    preamble (R's row names, lines ending with a delimiter), unless it has one field or a
    blank line follows it.
    """
    rows, blank_after = [], []
    try:
        for fields in itertools.islice(csv.reader(io.StringIO(text), **split_options(delimiter, escapechar)), 200):
            if fields:
                rows.append(fields)
                blank_after.append(False)
            elif rows:
                blank_after[-1] = True
    except csv.Error:  # pandas will say what is wrong with the file
        return 0, []
    widths = trailing_delimiter(rows, [None if commented(r) else len(r) for r in rows])  # comment lines: None
    counted = [w for w in widths if w is not None]
    # The table's width: the most common; on a tie the widest (a short table below a report
    # preamble of as many lines).
    width = max(set(counted), key=lambda w: (counted.count(w), w)) if counted else 0
    width = table_below(rows, widths, width)
    if len(rows) < 3 or width < 2:
        return 0, []

    def header_like(i):
        names = [f for f in rows[i] if f.strip()]
        rest = [w for w in widths[i + 1:] if w is not None]
        return (widths[i] == width and len(names) >= 2 and not all(is_number(f) for f in names)
                and rest.count(width) >= HEADER_STABLE_SHARE * len(rest)
                and (i == 0 or any(len(r) < width for r in rows[:i]) or names_numbers(i))
                and not padded_title(rows, i, width))

    def names_numbers(i):
        # Below rows as wide as the table (a title padded with delimiters, or a header with one
        # name), a header names its numeric columns with words: where the rows below hold
        # numbers, it holds text (France,12 under Country, is data, not a header).
        below = [r for r in rows[i + 1:] if len(r) == width]
        numeric = [j for j in range(width) if sum(is_number(r[j]) for r in below) > len(below) / 2]
        return not numeric or any(rows[i][j].strip() and not is_number(rows[i][j]) for j in numeric)
    index = next((i for i in range(len(rows) - 1) if header_like(i)), 0)
    before = rows[:index]
    comment = [r[0].lstrip().startswith("#") for r in before]
    if not index or not all(c or row_width(r) < width for c, r in zip(comment, before)):
        lead = leading_comments(rows)
        return lead, [delimiter.join(r[: row_width(r)]) for r in rows[:lead]]
    if index == 1 and not comment[0] and row_width(before[0]) >= 2 and not blank_after[0] and len(before[0]) < width:
        return 0, []
    return index, [delimiter.join(r[: row_width(r)]) for r in before]  # an empty row is ""


def trailing_delimiter(rows, widths):
    """widths, without the empty field that ends every row below a header when the lines end
    with a delimiter: the rows after the first row of width W (not a comment) are all W + 1
    wide with their last field empty. Below a preamble (Vendor Name<TAB>Test above an
    18-column table whose rows end with a tab) as at the top of the file, where row_labels
    drops that field. Rows whose extra field holds a value anywhere are ragged, and R's row
    names fill it at the start: neither changes."""
    for i, width in enumerate(widths):
        below = [(r, w) for r, w in zip(rows[i + 1:], widths[i + 1:]) if w is not None]
        if width is not None and below and all(w == width + 1 and not r[-1].strip() for r, w in below):
            return widths[: i + 1] + [None if w is None else width for w in widths[i + 1:]]
    return widths


def table_below(rows, widths, width):
    """The table's width: width (the most common), or that of a wider block of rows that ends
    the sample below every row of that width, when the block starts with a header (two rows at
    least, the first naming every column with text that is not a number): a table below a
    longer preamble (Vendor Name<TAB>Test, Start Date<TAB>06/02/2024). Wider rows at the end
    of a table that start with data are ragged rows, not a table."""
    last = max((i for i, w in enumerate(widths) if w == width), default=-1)
    below = [(i, w) for i, w in enumerate(widths) if i > last and w is not None]
    if len(below) < 2 or below[0][1] <= width or any(w != below[0][1] for _, w in below):
        return width
    names = rows[below[0][0]]
    return below[0][1] if all(f.strip() and not is_number(f) for f in names) else width


def leading_comments(rows):
    """How many comment lines of one field (# ..., no delimiter) start the rows, when a row
    that names two columns or more follows them: a header wider than the rows below it (which
    are kept, their missing fields empty). 0 otherwise: a header #,units,revenue is a header."""
    lead = 0
    while lead < len(rows) and commented(rows[lead]) and row_width(rows[lead]) <= 1:
        lead += 1
    names = [f for f in rows[lead] if f.strip()] if lead < len(rows) else []
    return lead if lead and len(names) >= 2 and not any(is_number(f) for f in names) else 0


def padded_title(rows, i, width):
    """True when rows[i] is a title padded with delimiters to the table's width (Report:,Sales by
    region,): its last fields are empty, the next row names every column with text that is not a
    number, and the rows below fill the columns the title leaves empty. A header with an empty
    last name above a first row of data (region,sales, above north,10,5) is a header."""
    filled = row_width(rows[i])
    if filled >= width or i + 2 >= len(rows) or len(rows[i + 1]) != width:
        return False
    names = rows[i + 1]
    if not all(f.strip() and not is_number(f) for f in names):
        return False
    below = [r for r in rows[i + 2:] if len(r) == width]
    return sum(any(f.strip() for f in r[filled:]) for r in below) > len(below) / 2


def text_columns(text, delimiter, skip, names, escapechar=None):
    """The positions of the columns pandas must read as text, not numbers: those whose values
    in the first lines (text, after its first skip non-blank rows) have leading zeros a number
    would lose (02134, 000552) or are phone numbers (+318855443322), and those named like codes that are written with them (zip,
    postal code: PADDED_CODE_WORDS), wherever in the file their zeros are."""
    keep = {i for i, name in enumerate(names) if padded_code(name)}
    rows = (r for r in csv.reader(io.StringIO(text), **split_options(delimiter, escapechar)) if r)
    try:
        for row in itertools.islice(rows, skip, None):
            for i, field in enumerate(row):
                if i not in keep and (field[:1] in "0 " and LEADING_ZEROS.fullmatch(field)
                                      or field[:1] in "+ " and PHONE_NUMBER.fullmatch(field)):
                    keep.add(i)
    except csv.Error:  # the lines read so far decide; pandas will say what is wrong with the file
        pass
    return sorted(keep)


def delimited_layout(path, text, info):
    """How to read the delimited text: (the text as pandas will read it (cut at mid-line
    comments), delimiter, escape character of quotes or None, the first 200 non-blank rows from
    the header on, the header's index among the non-blank rows, decimal mark)."""
    prefer_tab = os.path.basename(path).lower().split(".")[-1] in ("tsv", "tab") or ".tsv." in path.lower()
    delimiter, escapechar = sniff_dialect(text, prefer_tab)
    if delimiter == "," and grouped_number_lines(text):
        delimiter, escapechar = next(d for d in DELIMITERS if d not in text), None  # one column
        info["notes"].append("every line is one number grouped with commas (300,000,000.40), which the commas "
                             "split unevenly: the file is one column of numbers, not fields")
    if escapechar == SPACED_QUOTES:
        info["notes"].append("quoted fields follow spaces after the delimiter (a, \"b\"); the spaces before each "
                             "field were skipped, so that the quotes are read as quoting")
    elif escapechar == SINGLE_QUOTES:
        info["notes"].append("values are quoted with single quotes ('a, b'), not double quotes: read so, the lines "
                             "split into the same number of fields; the file was read so")
    elif escapechar:
        info["notes"].append("quotes inside quoted fields are escaped with a backslash (\\\"), not doubled; "
                             "the file was read so")
    if delimiter == " ":
        info["notes"].append("the columns are separated by spaces (a run of spaces counts as one)")
    if escapechar == NO_QUOTES:
        info["notes"].append("quotes in this file are part of the values, not quoting (read as quoting, they would "
                             "join lines and fields); the file was read without quote processing")
    cut = mid_line_comments(text, delimiter, escapechar)
    if cut is not None:
        text = cut  # the layout is found in the lines as pandas reads them with comment="#"
        info["notes"].append("'#' starts a comment inside lines: cut at it, the lines split into fields more evenly "
                             "than whole; the text from each '#' to the end of its line was skipped, in every line "
                             "of the file")
    header_index, preamble = find_header(text, delimiter, escapechar)
    rows = split_rows(text, delimiter, escapechar) or []  # none: pandas will say what is wrong
    comment = "#" if cut is not None else sniff_comment(rows, header_index)
    if comment and cut is None:
        lines = sum(1 for r in rows[header_index:] if commented(r))  # a file without a header may start with one
        info["notes"].append(f"lines starting with {comment} between the rows are comments ({lines:,} in the first "
                             f"{len(rows):,} lines), not data; they were skipped")
        # pandas skips comment lines as it skips blank ones: the header's index counts neither
        header_index -= sum(1 for r in rows[:header_index] if commented(r))
        rows = [r for r in rows if not commented(r)]
    rows = rows[header_index:]
    info.update(comment=comment, header_row=header_index)
    if preamble:
        info.update(preamble=preamble)
        shown = [line for line in preamble if line]
        listed = ", ".join(repr(clip_text(line, 60)) for line in shown[:5]) + (", ..." if len(shown) > 5 else "")
        info["notes"].append(f"the file starts with {len(preamble)} line(s) before the header (a title or comments, "
                             f"not data), which were skipped: {listed}")
    # The decimal mark only: pandas is never given a thousands separator, since it would
    # strip it from any value (14.12.2024 becomes 14122024, 1.5 becomes 15); grouped numbers
    # are read as text and converted by convert_number_text, which checks the grouping.
    decimal, thousands = sniff_decimal(rows) if delimiter != "," else (".", None)
    info.update(format="tsv" if delimiter == "\t" else "csv", delimiter=delimiter, escapechar=escapechar, decimal=decimal)
    if decimal == ",":
        info["notes"].append("numbers use a decimal comma (3,5 = 3.5)"
                             + ("; '.' groups thousands" if thousands else ""))
        ambiguous_decimal_comma(rows, info)
    return text, delimiter, escapechar, rows, header_index, decimal


def mid_line_comments(text, delimiter, escapechar):
    """text with each line cut at its first # (a line that starts with one left empty) when a #
    inside lines starts a trailing comment (1;3#note): the cut lines split into fields more
    evenly than the lines as they are (DuckDB's comments/mid_line*.csv). Else None: a # in
    values that fit the columns either way is data (#1 as a rank, #ff0000 as a colour), and
    so is one inside quotes that cutting would leave open."""
    if not any("#" in line.lstrip()[1:] for line in text.splitlines()):
        return None
    cut = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    return cut if split_fit(cut, delimiter, escapechar)[0] > split_fit(text, delimiter, escapechar)[0] else None


def commented(row):
    """True for a row that is a comment line: its first field starts with #."""
    return row[0].lstrip().startswith("#")


def sniff_comment(rows, header_index):
    """"#" when rows below the header (rows: the sampled rows, split) are comment lines: they
    start with #, most of them are not as wide as the header, and no
    field of the other rows holds a #, so that no value is cut at one. Else None: values that
    start with # (colours such as #ff0000 in a first column) are data. Comments above the header
    are a preamble (see find_header)."""
    below = [r for r in rows[header_index + 1:] if commented(r)]
    # A file without a header may start with a comment line: the first row that is not one
    # is the width the comments are measured against.
    first = next((r for r in rows[header_index:] if not commented(r)), None)
    if not below or first is None:
        return None
    below = [r for r in rows[header_index:] if commented(r)] if commented(rows[header_index]) else below
    if 2 * sum(len(r) == len(first) for r in below) >= len(below):
        return None
    if any("#" in f for r in rows if not commented(r) for f in r):
        return None
    return "#"


# What a field's text is, for telling a header from a first data row: a number, a date or time,
# or (neither) text.
DATE_FIELD = re.compile(r"\d{1,4}([-/.])\d{1,2}\1\d{1,4}(?:[ T]\d{1,2}:\d\d(?::\d\d(?:\.\d+)?)?\S*)?|\d{1,2}:\d\d(?::\d\d(?:\.\d+)?)?")


def field_kind(field):
    """"number", "date" or "text" for a field's text; None for an empty one."""
    field = field.strip()
    if not field:
        return None
    if is_number(field) or GROUPED_NUMBER.fullmatch(field):
        return "number"
    return "date" if DATE_FIELD.fullmatch(field) else "text"


def first_row_evidence(rows):
    """(data, why): whether the first of the sampled rows is data rather than the header, and
    the evidence in words. The evidence, in order:
    - types: in a column whose values below are all numbers (or all dates), a header holds a
      name that is not one (amount above 12.5); a first data row holds one more (7 above 12.5);
    - repeated values: in columns of text only, a first-row value that recurs below in its
      column is a value (Berlin above Berlin), since a column's name is not one of its values;
    - otherwise the first row is the header (names and values both text: a note says so when
      the first row has no field that looks like a name, such as 40 characters or more).
    A single row is data when a field is a number or a date (1,2,3; 1,StreetA), a header
    otherwise (a,b,c: a header without rows)."""
    first = rows[0]
    body = rows[1:]
    repeats = sum(r == first for r in body)
    if sum(1 for f in first if f.strip()) >= 2 and 0 < repeats < len(body) / 2:
        body = [r for r in body if r != first]  # the header repeated below (each page of a report) is no value
    if not body:
        data = any(field_kind(f) in ("number", "date") for f in first)
        return data, "the file's only row holds a number or a date, as records do and names do not" if data else ""
    typed = 0
    for j, name in enumerate(first):
        values = {field_kind(r[j]) for r in body if j < len(r)} - {None}
        if len(values) != 1 or values == {"text"} or field_kind(name) is None:
            continue
        kind = values.pop()
        if field_kind(name) != kind:
            return False, f"{name!r} is a name above {kind}s"
        typed += 1
    if typed:
        return True, (f"its fields are of the same types as the values below in {typed} column(s) and no field "
                      "is a name above numbers or dates")
    for j, value in enumerate(first):
        below = {r[j] for r in body if j < len(r)}
        if value.strip() and value in below:
            return True, f"its value {value!r} recurs below in its column, as values do and names do not"
    return False, ""


def clip_text(text, n):
    """text cut to n characters, with … where it was cut."""
    return text if len(text) <= n else text[: n - 1] + "…"


def row_labels(rows, delimiter, info):
    """index_col for pandas, from the header (rows[0]) and the rows below it: never let pandas
    guess that the first columns are an index (False), except for R's row names: a header one
    field shorter than the rows (None): at least HEADER_STABLE_SHARE of the sampled rows, since one
    long first row among rows as wide as the header is a ragged row, not row names. Lines that all
    end with a delimiter have an empty last field, which is dropped."""
    header, first = rows[0], rows[1] if len(rows) > 1 else []
    if len(first) <= len(header):
        return False
    if sum(len(r) <= len(header) for r in rows[1:]) > (1 - HEADER_STABLE_SHARE) * (len(rows) - 1):
        return False  # a few long rows among rows as wide as the header: skipped as ragged, not row names
    longer = [r for r in rows[1:] if len(r) > len(header)]
    if all(not f.strip() for r in longer for f in r[len(header):]):
        info["notes"].append("lines end with a delimiter; the empty field after it was ignored")
        return False
    if len(first) == len(header) + 1:
        info["notes"].append("the header has one name fewer than the rows have fields (as R's "
                             "write.csv writes row names); the first field of each row was read "
                             "into the column row_label")
        return None
    raise AnalystDataError(f"the header names {len(header)} columns but the first data row has "
                           f"{len(first)} fields (delimiter {delimiter!r}); check the file's "
                           "delimiter and quoting.")


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
    text, delimiter, escapechar, rows, header_index, decimal = delimited_layout(path, text, info)
    header = rows[0] if rows else []
    # Header or data: the evidence of the first rows decides (see first_row_evidence).
    no_header, why = first_row_evidence(rows) if rows and not header_index else (False, "")
    names = None
    info["no_header"] = no_header
    if no_header:
        names = [f"column_{i + 1}" for i in range(len(header))]
        info["notes"].append(f"the file has no header row: its first row was read as data ({why}); "
                             "the columns are named column_1, column_2, ...")
    as_text = text_columns(text, delimiter, header_index + (0 if no_header else 1), [] if no_header else header,
                           escapechar)
    index_col = False if no_header or not rows else row_labels(rows, delimiter, info)
    blank_values = blank_lines_are_values(text, rows, no_header, info)
    # Only empty fields are missing at this point: clean_missing_markers applies NA_VALUES
    # afterwards, so that it can count the markers it finds.
    # Later rows with more fields than the header are skipped (their values cannot be placed
    # in columns); pandas reports each one and the loader records them in the notes.
    # Rows with fewer fields are kept, their missing trailing fields left empty.
    # The text columns are kept as the strings read (a converter, not dtype=object): given any
    # dtype mapping, even an empty one, pandas 2.2 wraps every parsed column in a Series and boxes
    # each value of the numeric ones into a Python object while it builds the frame (2-3 s at 3
    # million rows). The converter interns: pandas gives it a new string per field, and the
    # column would hold one object per row instead of one per distinct value, as pandas' own
    # reading of text does (50 bytes more per row and column).
    converters = dict.fromkeys(as_text, sys.intern) or None

    def read(encoding):
        # Under copy-on-write, pandas makes the frame from the parsed columns as they are; else it
        # first copies them into one block per type (seconds on millions of rows). The option is
        # on only while reading: the values, types and behaviour of df are the same either way.
        opener = NulStripped if info.get("nul_padding") else ProgressFile
        with opener(path, head, compression) as data, pd.option_context("mode.copy_on_write", True):
            return pd.read_csv(data, **split_options(delimiter, escapechar),
                               encoding=encoding, compression=compression or None,
                               comment=info["comment"], decimal=decimal, header=None if no_header else header_index,
                               names=names,
                               index_col=index_col, converters=converters, on_bad_lines="warn",
                               low_memory=False, lineterminator=lineterminator, keep_default_na=False, na_values=[""],
                               skip_blank_lines=not blank_values)

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
    if blank_values:
        df = blank_line_values(df, info)
    if info["comment"]:
        df = indented_comment_rows(df, text)
    if index_col is None:
        df = df.rename_axis("row_label").reset_index()
    reported = messages.getvalue() + "\n".join(str(w.message) for w in caught)
    skipped = skipped_rows(reported)
    if skipped:
        info["notes"].append(ragged_rows_note(skipped))
        ragged_rows_alert(skipped, len(df), text, delimiter, escapechar, info)
    if escapechar != NO_QUOTES and '"' in text:  # only a quote joins lines
        joined_lines(df, delimiter, info)
    if "loss of data" in reported:
        info["notes"].append("some rows have more fields than the header; their extra fields were dropped")
        cut_rows_alert(rows, text, delimiter, escapechar, info)
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


def json_empty_values(df, info):
    """Columns of JSON numbers or booleans that write a missing value as "" (or spaces) get
    missing values there, and the type of the others (float, int with missing as float,
    boolean): "" among numbers is no value, as an empty CSV field is."""
    for column in df.columns[df.dtypes == object]:
        s = df[column]
        empty = s.map(lambda v: isinstance(v, str) and not v.strip())
        others = s[~empty & s.notna()]
        if not empty.any() or others.empty:
            continue
        kinds = set(others.map(lambda v: "bool" if isinstance(v, bool) else "number" if isinstance(v, (int, float)) else "other"))
        if len(kinds) != 1 or "other" in kinds:
            continue
        df[column] = s.mask(empty).infer_objects() if kinds == {"bool"} else pd.to_numeric(s.mask(empty))
        info["notes"].append(f"{int(empty.sum()):,} value(s) of {column!r} are empty strings among "
                             f"{'booleans' if kinds == {'bool'} else 'numbers'}; they became missing")


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
    except RecursionError:
        # [[[[... a hundred thousand deep: bad data, not a failed cell.
        raise AnalystDataError("the JSON is nested too deeply to read (more levels of [ and { than Python's recursion "
                               "limit); flatten it into records first, e.g. with jq") from None
    json_empty_values(df, info)
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
    values = values.str.strip().reset_index(drop=True)  # stripped once here: to_dates need not retry
    # A format that reads none of a few values spread over the sample is not tried on all of
    # them: most of the formats, for most columns (about 2 ms each on 500 values).
    few = values.iloc[:: max(1, len(values) // 16)]
    best, best_share = None, 0.0
    for fmt in [f for f in DATE_FORMATS if zoned_format(f) == zoned]:
        if not to_dates(few, fmt).notna().any():
            continue
        share = to_dates(values, fmt).notna().mean()
        if share > best_share:
            best, best_share = fmt, share
    return best, best_share


def zoned_format(fmt):
    """True for a DATE_FORMATS entry that reads a UTC offset (%z) or a zone's name (%Z: UTC, GMT)."""
    return "%z" in fmt or "%Z" in fmt


def to_dates(values, fmt):
    """The values as dates in format fmt, missing where they do not parse; times with
    a UTC offset (%z) in UTC, since one column can hold several offsets. Spaces around a
    value (fixed-width and quoted-and-padded exports: "  2000-01-01 ") are not part of it: the
    values that do not parse are tried again without them (only those, so that clean columns
    cost no second pass)."""
    dates = pd.to_datetime(values, format=fmt, errors="coerce", utc=zoned_format(fmt))
    if values.dtype != object:
        return dates
    failed = dates.isna().to_numpy() & values.notna().to_numpy()
    if failed.any():
        retried = values[failed]
        stripped = retried.str.strip()
        padded = (stripped != retried).to_numpy()
        if padded.any():
            failed[failed] = padded
            dates[failed] = pd.to_datetime(stripped[padded], format=fmt, errors="coerce", utc=zoned_format(fmt)).array
    if fmt in DOTTED_PAIRS:
        dates = dates.where(values.str.match(PADDED_DOTS).to_numpy(dtype=bool))
    return dates


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


def spaced_sample(s, n, missing=None):
    """Up to n non-missing values spread evenly over the column (not just its first rows):
    s.dropna().iloc[::step][:n], taken by position so that the column is not copied.
    missing: how many values of s are missing, when the caller knows (the profile counted them);
    0 spares the pass over the column that finds them (0.1-0.4 s a text column at 3M rows)."""
    if missing == 0:
        return s.iloc[:: max(1, len(s) // n)].iloc[:n]
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
    """Text columns whose values are mostly dates (>= DATE_SHARE) become datetime columns; the
    order of day and month is the one the values prove (see date_orders)."""
    columns = df.columns[df.dtypes == object]
    found = {}
    for i, column in enumerate(columns):
        log_columns("looked for dates", i, len(columns))
        sample = spaced_sample(df[column], 500)
        fmt, share = date_format(sample)
        if share >= DATE_SHARE or (fmt and share >= 0.5 and either_order_share(sample, fmt) >= DATE_SHARE):
            found[column] = fmt
    for column, fmt in found.items():
        dotted_order_note(column, spaced_sample(df[column], 500), fmt, info)
    for column, fmt in date_orders(df, found, info).items():
        present = present_mask(df[column]).sum()
        parsed = column_dates(df[column], fmt)
        if parsed.notna().sum() < DATE_SHARE * present:
            info["dates_kept_text"][column] = {"format": fmt, "share": float(parsed.notna().sum() / present)}
            continue
        if zoned_format(fmt):
            zones = sorted(set(spaced_sample(df[column], 2000).str.extract(ZONED)[0].dropna()))
            info["notes"].append(f"the times in {column!r} carry UTC offsets ({', '.join(zones[:6])}); they were "
                                 "converted to UTC, so the column holds UTC times")
        df[column] = parsed
        FACTORIZED.pop(column, None)
        info["parsed_dates"].append(str(column))
        info["date_formats"][column] = fmt
        failed = present - parsed.notna().sum()
        if failed:
            info["notes"].append(f"{failed:,} value(s) of {column!r} are not dates in the format "
                                 f"{fmt} and became missing")
    log_columns("looked for dates", len(columns), len(columns))


def dotted_order_note(column, sample, fmt, info):
    """An ambiguous_dates entry and a note when fmt (a DOTTED_PAIRS format) and its other reading
    read the same share of column's sample: 04.12.13 is 4 December 2013 or 13 December 2004."""
    other = DOTTED_PAIRS.get(fmt)
    if other is None or to_dates(sample, other).notna().mean() < to_dates(sample, fmt).notna().mean():
        return
    message = (f"the dates in {column!r} could be day first or year first (04.12.13): no value has a first or last "
               f"number above 31; they were read {fmt}, as most who write dates with dots do. If they are year "
               f"first, read them with format {other!r}")
    info["ambiguous_dates"][column] = {"kept_text": False, "message": message, "value": 0}
    info["notes"].append(message)


def times_of_day(df, info):
    """Text columns whose values are mostly times of day (>= DATE_SHARE of a sample) stay text,
    and a note and an alert (layout_alerts: times_as_text) name them: pandas has no time-of-day
    type (and hh:mm:ss could be a duration)."""
    for column in df.columns[df.dtypes == object]:
        sample = spaced_sample(df[column], 500)
        if sample.empty or not sample.map(type).eq(str).all() or sample.str.fullmatch(TIME_OF_DAY).mean() < DATE_SHARE:
            continue
        info["times_of_day"].append(str(column))
        message = (f"{column!r} holds times of day or durations (such as {sample.iloc[0].strip()!r}); kept as text, as "
                   "pandas has no time-of-day type: they sort in time order but do not compute (pd.to_timedelta reads "
                   "hh:mm:ss as the time since midnight)")
        info["notes"].append(message)
        # An alert too: a reader of the profile sees a text column where a typed reader shows a time.
        info.setdefault("layout_alerts", []).append({"type": "times_as_text", "column": str(column), "message": message})


def either_order_share(values, fmt):
    """The share of values that are dates in fmt or in fmt with day and month swapped: dates
    written in both orders are dates, whose order date_orders finds ambiguous."""
    swapped = swapped_order(fmt)
    if swapped is None:
        return 0.0
    values = values.dropna()
    return float((to_dates(values, fmt).notna() | to_dates(values, swapped).notna()).mean())


def swapped_order(fmt):
    """The DATE_FORMATS entry that is fmt with day and month swapped (%d/%m/%Y: %m/%d/%Y), or None."""
    swapped = fmt.replace("%d", "%_").replace("%m", "%d").replace("%_", "%m")
    return swapped if swapped != fmt and swapped in DATE_FORMATS else None


def distinct_counts(s):
    """(values, counts): the distinct non-missing values of s and how many rows hold each; from
    the loader's kept codes when it has them (no pass over the column)."""
    kept = kept_factorization(s)
    if kept is None:
        counts = s.value_counts()
        return pd.Series(counts.index, dtype=object), counts.to_numpy()
    return pd.Series(kept[1], dtype=object), kept[2][1:]


def order_evidence(s):
    """For text dates that start with two numbers (25/12/2024, 12-25-2024): {"day": (rows,
    example), "month": (rows, example)}, the values whose first number is above 12, which only a
    day can be, and those whose second number is; over every distinct value of s."""
    values, counts = distinct_counts(s)
    fields = values.str.extract(r"^\s*(\d{1,2})[-/](\d{1,2})[-/]").astype(float)
    first, second = fields[0].to_numpy(), fields[1].to_numpy()
    found = {}
    for order, proof in (("day", (first > 12) & (second <= 12)), ("month", (second > 12) & (first <= 12))):
        found[order] = (int(counts[proof].sum()), values[proof].iloc[0] if proof.any() else None)
    return found


def date_orders(df, found, info):
    """{column: format} for the date columns found ({column: format that read its sample best}),
    day and month in the order the values prove. A first number above 12 proves day first
    (25/12/2024), a second above 12 month first (12/25/2024). A column with proofs of both stays
    text (left out). A column with none takes the order the file's other date columns prove (an
    export writes its dates one way); with none there either, day first, as most of the world
    writes dates. The notes state the evidence."""
    evidence = {c: order_evidence(df[c]) for c, fmt in found.items() if swapped_order(fmt)}
    proven = {order: [(c, e[order]) for c, e in evidence.items() if e[order][0] and not e[other][0]]
              for order, other in (("day", "month"), ("month", "day"))}
    orders = {}
    for column, fmt in found.items():
        if column not in evidence:
            orders[column] = fmt
            continue
        swapped = swapped_order(fmt)
        formats = dict(zip(("day", "month"), (fmt, swapped) if fmt.index("%d") < fmt.index("%m") else (swapped, fmt)))
        order = date_order_note(column, evidence[column], proven, formats, info)
        if order is not None:
            orders[column] = formats[order]
    return orders


def date_order_note(column, evidence, proven, formats, info):
    """The order ("day" or "month") to read column's dates in, from evidence (its own, see
    order_evidence) and proven (the file's columns that prove one order); None for proofs of
    both. Adds the note saying why, and an ambiguous_dates entry when the values do not decide."""
    (day_rows, day_example), (month_rows, month_example) = evidence["day"], evidence["month"]
    if day_rows and month_rows:
        message = (f"{column!r} holds dates in both orders, so it was kept as text: {day_rows:,} value(s) have a first "
                   f"number above 12 (day first, such as {day_example!r}) and {month_rows:,} a second number above 12 "
                   f"(month first, such as {month_example!r}); no one format reads them all")
        info["ambiguous_dates"][column] = {"kept_text": True, "message": message, "value": day_rows + month_rows}
        info["notes"].append(message)
        return None
    if day_rows or month_rows:
        order, rows, example = ("month", month_rows, month_example) if month_rows else ("day", day_rows, day_example)
        place, other = ("second", "first") if order == "month" else ("first", "second")
        info["notes"].append(f"the dates in {column!r} are {order} first ({formats[order]}): {rows:,} value(s) have a "
                             f"{place} number above 12, such as {example!r}, and none a {other} number above 12")
        return order
    if bool(proven["day"]) != bool(proven["month"]):
        order = "day" if proven["day"] else "month"
        other_column, (rows, example) = proven[order][0]
        info["notes"].append(f"the dates in {column!r} could be day/month or month/day (no number above 12), so they "
                             f"were read {order} first ({formats[order]}), as {other_column!r} proves for this file "
                             f"({rows:,} value(s) such as {example!r})")
        return order
    why = "since the file's other date columns prove both orders" if proven["day"] else "as most of the world writes dates"
    message = (f"the dates in {column!r} could be day/month or month/day: no value has a number above 12 in "
               f"either place; they were read day first ({formats['day']}), {why}. If they are month first, "
               f"read them with format {formats['month']!r}")
    info["ambiguous_dates"][column] = {"kept_text": False, "message": message, "value": 0}
    info["notes"].append(message)
    return "day"


# ---- Text as spreadsheets and exports write it --------------------------------------
NUMBER_SHARE = 0.9  # a text column becomes numeric when at least this share of its values are numbers
NUMBER_HINT_SHARE = 0.5  # from this share up to NUMBER_SHARE it stays text, with an alert
# A number as exports write it: a sign, a currency symbol before or after it, digits grouped
# by ',' '.' spaces or apostrophes, a decimal part, a trailing % (divided by 100), and
# accounting parentheses for negatives: (1,234.50) is -1234.5.
NUMBER_TEXT = re.compile(
    r"^\s*(?P<open>\(?)\s*(?P<sign>[-+\u2212]?)\s*(?P<cur1>[$€£¥₹]?)\s*(?P<sign2>[-+\u2212]?)\s*"
    r"(?P<digits>\d[\d.,'’ \u00a0\u202f]*)\s*(?P<pct>%?)\s*(?P<cur2>[$€£¥₹]?)\s*(?P<close>\)?)\s*$")
GROUP = r"[,'’ \u00a0\u202f]"  # thousands separators beside the decimal point
# India's grouping: thousands, then lakhs and crores in pairs of digits (₹1,02,74,233.00).
INDIAN_GROUPS = r"\d{1,2}(?:,\d\d)+,\d{3}(?:\.\d+)?"
POINT_DECIMAL = re.compile(INDIAN_GROUPS + r"|\d{1,3}(?:" + GROUP + r"\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")  # 12,500.50
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


MARKER_EVIDENCE = 3  # distinct other values a column needs before their shape can make a marker a value


def value_shape(text, runs=False):
    """The shape of a text: each capital letter A, small letter a, digit 9, other characters as
    they are (NA and DE: AA; 02134: 99999); runs=True counts a run of one class once (NONE
    and LOW: A)."""
    shape = re.sub(r"\d", "9", re.sub(r"[^\W\d_]", lambda m: "A" if m[0].isupper() else "a", text))
    return re.sub(r"(.)\1+", r"\1", shape) if runs else shape


def markers_as_values(found, others):
    """The values of found (missing-value markers of a column) that are values of the column,
    by the evidence of its other distinct values (at least MARKER_EVIDENCE of them): at least
    NUMBER_SHARE of them have the marker's exact shape (NA among two-letter country codes), or,
    for a marker of letters of one case, the same letters-only shape (NONE among LOW, HIGH)."""
    if found.empty or len(others) < MARKER_EVIDENCE:  # (the shapes of many values take seconds)
        return []
    exact = others.map(value_shape).value_counts(normalize=True)
    runs = others.map(lambda v: value_shape(v, runs=True)).value_counts(normalize=True)
    kept = []
    for marker in found:
        if not marker.strip():
            continue
        same = exact.get(value_shape(marker), 0.0)
        if value_shape(marker, runs=True) in ("A", "a"):
            same = max(same, runs.get(value_shape(marker, runs=True), 0.0))
        if same >= NUMBER_SHARE:
            kept.append(marker)
    return kept


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
        kept = markers_as_values(found, values.drop(found.index))
        if kept:
            found = found[~found.isin(kept)]
            shown = ", ".join(repr(v) for v in kept)
            info.setdefault("kept_markers", {})[column] = kept
            info["notes"].append(f"{shown} in {column!r} {'was' if len(kept) == 1 else 'were'} kept as "
                                 f"{'a value' if len(kept) == 1 else 'values'}, not made missing: the column's "
                                 "other values have the same shape (such as two capital letters: Namibia's ISO code NA)")
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

    A value with leading zeros (02134) is not a number: see LEADING_ZEROS; nor is a phone
    number (PHONE_NUMBER).

    A loop over the distinct values: columns repeat values, and for a few thousand of them
    plain Python is faster than pandas' string methods.
    """
    matches = [None if LEADING_ZEROS.fullmatch(v) or PHONE_NUMBER.fullmatch(v) else number_match(v) for v in values]
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
        rule.append("'.' is the decimal mark and ',' or spaces group thousands (12,500.50 = 12500.5)"
                    + ("; ',' also groups lakhs and crores (1,02,74,233 = 10274233)"
                       if any(re.fullmatch(INDIAN_GROUPS, d) for d in digits) else ""))
    if symbols:
        rule.append("currency symbols " + " ".join(sorted(symbols)) + " removed")
    if percent:
        rule.append("values with % divided by 100 (26.7% = 0.267)")
    if parentheses:
        rule.append("values in parentheses are negative ((1,234) = -1234)")
    return pd.Series(numbers, index=values.index, dtype=float), "; ".join(rule)


def kept_leading_zeros(column, values, counts, info):
    """True, with a note, when some of the distinct text values of column (counts[1 + i] rows
    hold values[i]) are numbers with leading zeros: the column stays text, keeping them."""
    zeros = values.str.fullmatch(LEADING_ZEROS).to_numpy(dtype=bool)
    if not zeros.any():
        return False
    rows = int(counts[1:][zeros].sum())
    examples = ", ".join(repr(v.strip()) for v in values[zeros].head(3))
    info["leading_zeros"][column] = {"rows": rows, "examples": list(values[zeros].head(10))}
    info["notes"].append(f"{column!r} keeps its leading zeros: {rows:,} value(s) such as {examples} would lose them "
                         "as numbers, so the column stays text (codes such as ZIP codes or padded identifiers)")
    return True


def kept_phone_numbers(column, values, info):
    """True, with a note, when most of the distinct text values of column are phone numbers
    (PHONE_NUMBER): the column stays text."""
    phones = values.str.fullmatch(PHONE_NUMBER).to_numpy(dtype=bool)
    if phones.mean() < NUMBER_SHARE:
        return False
    examples = ", ".join(repr(v.strip()) for v in values[phones].head(3))
    info["notes"].append(f"{column!r} holds phone numbers in international form (a + and 9-15 digits, such as "
                         f"{examples}); it stays text, as codes do")
    return True


DECIMAL_COMMA_VALUE = re.compile(r"\s*[-+]?\d+,\d+\s*")  # 5,5: a decimal comma, no grouping
GROUPED_COMMA_VALUE = re.compile(r"\s*[-+]?\d{1,3}(?:\.\d{3})+,\d+\s*|\s*[-+]?\d{1,3}(?:\.\d{3}){2,}\s*")  # 1.234,5
ONE_DOTTED_GROUP = re.compile(r"\s*[-+]?\d{1,3}\.\d{3}\s*")  # 5.555: 5555, or 5.555 with a decimal point


def ambiguous_grouping(column, values, info):
    """A note and an alert (layout_alerts: ambiguous_numbers) when column's distinct text values
    mix decimal commas (5,5) with values such as 5.555, read as 5555 ('.' grouping thousands),
    and no value groups with dots beyond doubt (1.234,5 or 1.234.567)."""
    def some(pattern):
        return values.str.fullmatch(pattern).to_numpy(dtype=bool)
    dotted = some(ONE_DOTTED_GROUP)
    if not dotted.any() or not some(DECIMAL_COMMA_VALUE).any() or some(GROUPED_COMMA_VALUE).any():
        return
    example = values[dotted].iloc[0].strip()
    message = (f"{column!r} mixes decimal commas with values such as {example!r}, read as "
               f"{example.replace('.', '')} ('.' grouping thousands); they could as well be {example} with a "
               "decimal point: no value of the column decides")
    info.setdefault("layout_alerts", []).append({"type": "ambiguous_numbers", "column": str(column), "message": message})
    info["notes"].append(message)


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
        codes, uniques, counts = factorized(df[column], keep=False)
        values = text_values(df[column], uniques)
        if values is None or kept_leading_zeros(column, values, counts, info) or kept_phone_numbers(column, values, info):
            continue
        numbers, rule = numbers_from_text(values, info["decimal"])
        # Placed by the codes (-1, missing, takes the NaN appended): no pass hashing the text again.
        converted = pd.Series(np.append(numbers.to_numpy(), np.nan)[codes], index=df.index, name=column)
        present = int(len(codes) - counts[0])
        share = (present - counts[1:][numbers.isna().to_numpy()].sum()) / present
        failed = pd.Series(counts[1:][numbers.isna().to_numpy()], dtype="int64",  # as value_counts() orders them
                           index=pd.Index(values[numbers.isna()].to_numpy(), dtype=object)).sort_values(ascending=False)
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
            ambiguous_grouping(column, values, info)
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


def new_load_info() -> dict:
    """load_info before the file is read: how it was read, filled in as the loader decides."""
    return {"format": "", "compression": "", "encoding": "", "bom": False, "delimiter": "",
            "decimal": ".", "sheet": "", "sheets": [], "table": "", "tables": [],
            "parsed_dates": [], "na_values": NA_VALUES,
            "missing_markers": {}, "converted_numbers": {}, "numbers_as_text": {}, "leading_zeros": {},
            "date_formats": {}, "dates_kept_text": {}, "ambiguous_dates": {}, "times_of_day": [], "notes": []}


def load_table(path: str, sheet: str | int | None = None, table: str | None = None) -> tuple[pd.DataFrame, dict]:
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
        head = nul_padding(head, compression, info)
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
    df = clean_table(export_layout(df, info), info)
    if df.columns.is_unique:  # the hints below look at each column by its name
        forward_fill_hint(df, info)
        excel_serial_dates(df, info)
    return df, info


def clean_columns(df: pd.DataFrame, info: dict, keep_codes: bool = True) -> None:
    """The cleaning steps, in order (see the notes above the load cell)."""
    clean_missing_markers(df, info, keep_codes=keep_codes)
    convert_number_text(df, info)
    parse_dates(df, info)
    times_of_day(df, info)
    parse_epochs(df, info)


def clean_table(df: pd.DataFrame, info: dict, keep_codes: bool = True) -> pd.DataFrame:
    """df cleaned (clean_columns), without its last row when that row holds the column totals:
    labelled so (TOTAL_LABELS) with each of its numbers the sum of the rows above. A row so
    labelled whose numbers are not the sums stays, and a note says why."""
    label = totals_label(df)
    if label is None:
        clean_columns(df, info, keep_codes)
        return df
    before = {k: v.copy() if isinstance(v, (dict, list)) else v for k, v in info.items()}
    last, body = df.iloc[-1], df.iloc[:-1].copy(deep=False)
    clean_columns(body, info, keep_codes)  # as the file would be without the row
    sums, other = totals_check(body, last, info["decimal"])
    where = f"the last row ({label[1]!r} in {label[0]!r})"
    if sums and not other:
        listed = ", ".join(f"{c!r} {v:,.10g}" for c, v, _ in sums[:5])
        info["totals_row"] = {"label": label[1], "column": label[0], "sums": [c for c, _, _ in sums]}
        info["notes"].append(f"{where} holds the column totals ({listed}: each the sum of the rows above); it was "
                             f"left out of the table, which has {len(body):,} rows")
        return body
    info.clear()
    info.update(before)
    clean_columns(df, info, keep_codes)
    why = (f"its {other[0][0]!r} ({other[0][1]:,.10g}) is not the sum of the rows above ({other[0][2]:,.10g})"
           if other else "it holds no numbers to check against the sums of the rows above")
    info["notes"].append(f"{where} is labelled like a totals row but was kept as data: {why}")
    return df


def totals_label(df):
    """(column, value) of a value of df's last row that labels it a totals row (TOTAL_LABELS,
    ignoring case, surrounding spaces and a trailing colon), or None."""
    if len(df) < 3:
        return None
    for column, value in df.iloc[-1].items():
        if isinstance(value, str) and value.strip().rstrip(":").strip().casefold() in TOTAL_LABELS:
            return column, value
    return None


def totals_check(body, last, decimal):
    """(sums, other): the numeric columns of body where the row last (as read, before cleaning)
    holds a number, as (column, number, sum of body's values), split by whether the number is
    the sum: equal up to half a unit of its last decimal (its last whole digit, for columns with
    fractions), or up to floating-point rounding between whole numbers."""
    sums, other = [], []
    for column in body.columns:
        s = body[column]
        if not pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s) or pd.isna(last[column]):
            continue
        raw = last[column]
        value = numbers_from_text(pd.Series([raw], dtype=object), decimal)[0].iloc[0] if isinstance(raw, str) else raw
        if pd.isna(value):
            continue
        value, total = float(value), float(s.sum())
        text = repr(value)
        places = len(text.split(".")[1]) if "." in text and "e" not in text and not value.is_integer() else 0
        if isinstance(raw, str) and "%" in raw:
            places = max(places, 2)  # 100% is 1.0 to the percent: 2 places
        fractions = pd.api.types.is_float_dtype(s) and not (s.dropna() % 1 == 0).all()
        tolerance = 0.5 * 10.0 ** -places if places or fractions else 0.0
        close = abs(value - total) <= tolerance + 1e-9 * max(1.0, abs(total))
        (sums if close else other).append((column, value, total))
    return sums, other
