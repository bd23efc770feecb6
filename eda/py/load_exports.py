

# ---- Tables as reports and spreadsheets lay them out ----------------------------------------
# Each rule below reads the evidence of the file itself; each has a counter-case in
# eda/py/tests/test_load_exports.py and is listed in docs/loading-data.md.


def sheet_cell_text(value):
    """A sheet cell as a CSV field: "" for an empty cell, whole numbers without ".0"."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def sheet_table_start(first):
    """(row, column) where the table of a sheet starts: its header's row and its first column,
    found in the sheet's first rows (first, as the cells hold them, no header) as find_header
    finds them in CSV: title rows above the table are skipped, and so are empty columns left of
    it (a table that does not start at A1). (0, 0) for a table at A1."""
    filled = first.notna()
    if not filled.values.any():
        return 0, 0
    left = int(np.flatnonzero(filled.any(axis=0).to_numpy())[0])
    lines, rows = [], []
    for i, row in enumerate(first.iloc[:, left:].itertuples(index=False)):
        cells = [sheet_cell_text(v) for v in row]
        if any(cells):
            rows.append(i)
            out = io.StringIO()
            csv.writer(out, lineterminator="\n").writerow(cells)
            lines.append(out.getvalue())
        else:
            lines.append("\n")
    index, _ = find_header("".join(lines), ",")
    return rows[index], left


def first_filled_sheet(book, sheets, name, info):
    """The first sheet holding any cell, when the first sheet is empty (the default sheet, no
    --sheet given); a note says which was read. Every sheet empty is an error naming them."""
    for i, sheet in enumerate(book.sheet_names):
        if book.parse(sheet, header=None, nrows=200).notna().values.any():
            if i:
                info["notes"].append(f"the first sheet, {sheets[0]!r}, is empty; {sheets[i]!r} (sheet {i + 1}) "
                                     "was read instead (choose another with --sheet)")
            return sheets[i]
    raise AnalystDataError(f"{name}: every sheet is empty ({', '.join(map(repr, sheets))}); there is nothing "
                           "to analyse.")


def sheet_preamble_note(first, start, left, info):
    """Says which rows and columns above and left of a sheet's table were skipped."""
    if not start and not left:
        return
    above = [" ".join(sheet_cell_text(v) for v in row if sheet_cell_text(v)) for row in
             first.iloc[:start].itertuples(index=False)]
    above = [line for line in above if line]
    where = f"row {start + 1}" + (f", column {left + 1}" if left else "")
    said = (": " + ", ".join(repr(clip_text(line, 60)) for line in above[:5])) if above else ""
    info["notes"].append(f"the table starts at {where} of the sheet; {len(above)} title line(s) above it were "
                         f"skipped{said}")
    info["header_row"] = start
