

# Formats read by their own readers rather than as text: spreadsheets, the files of statistics
# packages, SQLite databases and Parquet. Each entry: format, extensions, the magic bytes the
# file starts with (None: only the extension tells), and what the format is called in messages.
TABLE_FORMATS = [
    ("xlsx", (".xlsx", ".xlsm"), b"PK\x03\x04", "an Excel workbook (.xlsx)"),
    ("xls", (".xls",), b"\xd0\xcf\x11\xe0", "an Excel 97-2003 workbook (.xls)"),
    ("ods", (".ods",), b"PK\x03\x04", "an OpenDocument spreadsheet (.ods)"),
    ("sav", (".sav", ".zsav"), b"$FL", "an SPSS data file (.sav)"),
    ("dta", (".dta",), None, "a Stata data file (.dta)"),
    ("sas7bdat", (".sas7bdat",), None, "a SAS data set (.sas7bdat)"),
    ("xpt", (".xpt",), b"HEADER RECORD*******LIB", "a SAS transport file (.xpt)"),
    ("sqlite", (".sqlite", ".sqlite3", ".db"), b"SQLite format 3\x00", "an SQLite database"),
    ("parquet", (".parquet", ".pq"), b"PAR1", "a Parquet file"),
]
FORMAT_NAMES = {fmt for fmt, _, _, _ in TABLE_FORMATS}
# A SAS data set's first 32 bytes.
SAS7BDAT_MAGIC = (b"\x00" * 12 + b"\xc2\xea\x81\x60\xb3\x14\x11\xcf\xbd\x92\x08\x00\x09\xc7\x31\x8c\x18\x1f\x10\x11")


def table_format(path: str, head: bytes) -> str | None:
    """The TABLE_FORMATS entry the file is in, by magic bytes first, then by extension; None
    for text formats (CSV, JSON). A file named like a format but not in it is an error."""
    name = os.path.basename(path)
    ext = os.path.splitext(name.lower())[1]
    for fmt, extensions, magic, what in TABLE_FORMATS:
        if ext not in extensions:
            continue
        if magic is not None and not head.startswith(magic):
            raise AnalystDataError(f"{name} is named like {what} but is not one (it does not start "
                                   "like one); re-export it, or rename it to what it is.")
        if fmt == "sas7bdat" and not head.startswith(SAS7BDAT_MAGIC):
            raise AnalystDataError(f"{name} is named like {what} but is not one; re-export it from SAS.")
        return fmt
    for fmt, extensions, magic, what in TABLE_FORMATS:
        if magic is not None and fmt not in ("xlsx", "ods") and head.startswith(magic):
            return fmt
    if head.startswith(SAS7BDAT_MAGIC):
        return "sas7bdat"
    return None


def read_table_format(fmt: str, path: str, info: dict, sheet: str | int | None = None,
                      table: str | None = None) -> pd.DataFrame:
    """Reads a file in one of TABLE_FORMATS; info says how."""
    info.update(format=fmt, encoding="")
    if fmt in ("xlsx", "xls", "ods"):
        return read_spreadsheet(path, fmt, sheet, info)
    if fmt == "sqlite":
        return read_sqlite(path, table, info)
    if fmt == "parquet":
        return read_parquet_file(path, info)
    import struct
    name = os.path.basename(path)
    try:
        if fmt == "sav":
            import pyreadstat  # as pd.read_spss does, but with every SPSS date format read as dates
            df, _ = pyreadstat.read_sav(path, apply_value_formats=True, dates_as_pandas_datetime=True)
            labelled = [str(c) for c in df.columns if isinstance(df[c].dtype, pd.CategoricalDtype)]
            if labelled:
                info["notes"].append("SPSS value labels became categories in " + ", ".join(labelled))
        elif fmt == "dta":
            df = pd.read_stata(path)
        else:
            df = read_sas_file(path, fmt)
    except (ValueError, OSError, KeyError, IndexError, UnicodeDecodeError, struct.error) as e:
        what = next(w for f, _, _, w in TABLE_FORMATS if f == fmt)
        raise AnalystDataError(f"{name} could not be read as {what} ({type(e).__name__}: {e}); "
                               "is the file complete? Re-export it from the program that wrote it.") from None
    except Exception as e:  # the readers of these formats raise their own exception types
        if type(e).__module__.split(".")[0] not in ("pyreadstat", "pandas"):
            raise
        what = next(w for f, _, _, w in TABLE_FORMATS if f == fmt)
        raise AnalystDataError(f"{name} could not be read as {what} ({type(e).__name__}: {e}); "
                               "is the file complete? Re-export it from the program that wrote it.") from None
    return df


def read_sas_file(path, fmt):
    """SAS files with pyreadstat where it is installed (it turns every SAS date and datetime format
    into dates; pandas.read_sas knows fewer, and none in transport files), else pandas.read_sas."""
    try:
        import pyreadstat
    except ImportError:
        kind = "xport" if fmt == "xpt" else "sas7bdat"
        try:
            return pd.read_sas(path, format=kind, encoding="utf-8")
        except UnicodeDecodeError:
            return pd.read_sas(path, format=kind, encoding="latin-1")
    read = pyreadstat.read_xport if fmt == "xpt" else pyreadstat.read_sas7bdat
    df, _ = read(path, dates_as_pandas_datetime=True)
    return df


def choose_sheet(sheets, sheet, name):
    """The sheet asked for by name or number (counting from 1); the first when none is."""
    if sheet is None:
        return sheets[0]
    if sheet in sheets:
        return sheet
    if sheet.isdigit() and 1 <= int(sheet) <= len(sheets):
        return sheets[int(sheet) - 1]
    raise AnalystDataError(f"{name} has no sheet {sheet!r}; its sheets are "
                           f"{', '.join(f'{i}: {s!r}' for i, s in enumerate(sheets, 1))}. "
                           "Choose one with --sheet NAME or --sheet NUMBER (from 1).")


def read_spreadsheet(path, fmt, sheet, info):
    engine = {"xlsx": "openpyxl", "xls": "xlrd", "ods": "odf"}[fmt]
    import struct
    name = os.path.basename(path)
    try:
        book = pd.ExcelFile(path, engine=engine)
        sheets = [str(s) for s in book.sheet_names]
    except (zipfile.BadZipFile, KeyError, OSError, ValueError, AssertionError, IndexError, struct.error) as e:
        raise AnalystDataError(f"{name}: the spreadsheet could not be read ({type(e).__name__}: {e}); open it "
                               "and save it again, or export the sheet as CSV.") from None
    except Exception as e:  # xlrd and odfpy raise their own exception types
        if type(e).__module__.split(".")[0] not in ("xlrd", "odf"):
            raise
        raise AnalystDataError(f"{name}: the spreadsheet could not be read ({type(e).__name__}: {e}); open it "
                               "and save it again, or export the sheet as CSV.") from None
    # The kernel lives for the whole run: the workbook's file is closed here, not when the
    # collector finds it (an open-file warning at a random later moment).
    with book:
        return read_sheet(book, sheets, sheet, name, info)


def read_sheet(book, sheets, sheet, name, info):
    """The table of the sheet asked for (or the first filled one) of an open workbook."""
    if not sheets:
        raise AnalystDataError(f"{name} has no sheets; there is nothing to analyse.")
    chosen = choose_sheet(sheets, sheet, name) if sheet is not None else first_filled_sheet(book, sheets, name, info)
    # The first rows as the cells hold them: text cells stay text, so that codes written with
    # leading zeros (02134) are seen before pandas would read them as numbers.
    first = book.parse(book.sheet_names[sheets.index(chosen)], header=None, nrows=200, dtype=object)
    start, left = sheet_table_start(first)
    sheet_preamble_note(first, start, left, info)
    first = first.iloc[start:, left:]
    header = list(first.iloc[0]) if len(first) else []
    text = [left + i for i in text_cells(first)]
    df = book.parse(book.sheet_names[sheets.index(chosen)], header=start, dtype=dict.fromkeys(text, object))
    df = df.iloc[:, left:]
    info.update(sheet=chosen, sheets=sheets)
    if len(sheets) > 1:
        others = [s for s in sheets if s != chosen]
        info["notes"].append(f"the workbook has {len(sheets)} sheets; {chosen!r} was read "
                             f"(others: {', '.join(map(repr, others))}; choose one with --sheet)")
    if len(header) == len(df.columns):
        renamed = [f"{old!r} → {new!r}" for old, new in zip(header, df.columns)
                   if not (isinstance(old, str) and old == new)]
        if renamed:
            info["notes"].append("column names changed while reading (duplicate, empty or "
                                 "non-text names): " + ", ".join(renamed))
    return df


def text_cells(first):
    """The positions of the columns of a sheet whose first rows (first: the header, then data,
    as the cells hold them) are text cells of codes: numbers with leading zeros, or any text in
    a column named like codes written with them (PADDED_CODE_WORDS)."""
    keep = []
    for i in range(first.shape[1]):
        values = first.iloc[1:, i].dropna()
        text = values[values.map(type).eq(str)]
        if text.empty:
            continue
        if text.str.fullmatch(LEADING_ZEROS).any() or padded_code(first.iloc[0, i]):
            keep.append(i)
    return keep


def read_sqlite(path, table, info):
    """One table (or view) of an SQLite database, opened read-only."""
    import sqlite3
    import urllib.parse
    name = os.path.basename(path)
    try:
        con = sqlite3.connect(f"file:{urllib.parse.quote(path)}?mode=ro&immutable=1", uri=True)
    except sqlite3.Error as e:
        raise AnalystDataError(f"{name} could not be opened as an SQLite database ({e}).") from None
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
                                            "AND name NOT LIKE 'sqlite_%' ORDER BY type, name")]
        if not tables:
            raise AnalystDataError(f"{name} is an SQLite database with no tables; there is nothing to analyse.")
        if table is None and len(tables) > 1:
            raise AnalystDataError(f"{name} holds {len(tables)} tables: {', '.join(tables)}. "
                                   "Choose one with --table NAME.")
        if table is not None and table not in tables:
            raise AnalystDataError(f"{name} has no table {table!r}; its tables are {', '.join(tables)}. "
                                   "Choose one with --table NAME.")
        chosen = table if table is not None else tables[0]
        df = pd.read_sql_query('SELECT * FROM "' + chosen.replace('"', '""') + '"', con)
    except sqlite3.DatabaseError as e:
        raise AnalystDataError(f"{name} could not be read as an SQLite database ({e}); is the file "
                               "complete?") from None
    finally:
        con.close()
    info.update(table=chosen, tables=tables)
    if len(tables) > 1:
        info["notes"].append(f"the database has {len(tables)} tables; {chosen!r} was read")
    return df


def read_parquet_file(path, info):
    """Parquet, from the columns analyst converted it into (CONVERTED_PATH) if they are there,
    else with pandas.read_parquet (which needs pyarrow, as in most Jupyter installations)."""
    if CONVERTED_PATH and os.path.isfile(os.path.join(CONVERTED_PATH, "schema.json")):
        return read_converted_columns(CONVERTED_PATH, info)
    try:
        df = pd.read_parquet(path)
    except ImportError:
        raise AnalystDataError(f"{os.path.basename(path)} is Parquet, and this Python has no Parquet "
                               "reader (pyarrow); install pyarrow, or run the notebook with analyst, "
                               "which converts the file first.") from None
    info["notes"].append("read with pandas.read_parquet")
    return df


def read_converted_columns(folder, info):
    """A DataFrame from analyst's conversion of a Parquet file: one .npy file per column plus
    schema.json (names, kinds, time zones, category lists). Nothing is unpickled."""
    with open(os.path.join(folder, "schema.json"), encoding="utf-8") as f:
        schema = json.load(f)
    columns = {}
    for c in schema["columns"]:
        values = np.load(os.path.join(folder, c["file"]), allow_pickle=False)
        if c["kind"] == "datetime":
            s = pd.Series(values.view("datetime64[ns]"))
            if c.get("tz"):
                s = s.dt.tz_localize("UTC").dt.tz_convert(c["tz"])
        elif c["kind"] in ("string", "category"):
            with open(os.path.join(folder, c["categories"]), encoding="utf-8") as f:
                categories = json.load(f)
            if c["kind"] == "category":
                s = pd.Series(pd.Categorical.from_codes(values, categories=categories, ordered=c.get("ordered", False)))
            else:  # code -1 (missing) picks the None at the end
                s = pd.Series(np.array(categories + [None], dtype=object)[values])
        elif c.get("mask"):
            s = pd.Series(values.astype(object))
            s[np.load(os.path.join(folder, c["mask"]), allow_pickle=False)] = None
        else:
            s = pd.Series(values)
        columns[c["name"]] = s
    info["notes"].append(f"Parquet was converted before the run by {schema['converter']} into one NumPy "
                         f"file per column ({os.path.basename(folder)}/), read here with numpy.load; "
                         "with pyarrow, pandas.read_parquet(DATA_PATH) reads the original")
    info["notes"].extend(schema["notes"])
    return pd.DataFrame(columns)
