tables = {}  # each table of the folder, by name, as the cells below read it
load_infos = {}  # how each was read, by name (load_info of the table)
profiled = {}  # what each table's profile computed, by name, until the main table is chosen


def load_into_tables(name: str, path: str, converted: str | None = None) -> None:
    """Reads DATA_DIR/path into tables[name] (how: load_infos[name]) and says what it read;
    converted is the folder a Parquet file was converted into."""
    global CONVERTED_PATH
    CONVERTED_PATH = converted
    table, info = load_table(os.path.join(DATA_DIR, path), SHEET, TABLE)
    tables[name], load_infos[name] = table, info
    delimiter = f", delimiter {info['delimiter']!r}" if info["delimiter"] else ""
    encoding = f", {info['encoding']}" if info["encoding"] else ""
    print(f"Loaded {len(table):,} rows × {len(table.columns):,} columns from {path} "
          f"({info['format']}{encoding}{delimiter}) into tables[{name!r}]")
    for note in info["notes"]:
        print("Note:", note)
