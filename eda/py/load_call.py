df, load_info = load_table(DATA_PATH, SHEET, TABLE)
delimiter = f", delimiter {load_info['delimiter']!r}" if load_info["delimiter"] else ""
encoding = f", {load_info['encoding']}" if load_info["encoding"] else ""
print(f"Loaded {len(df):,} rows × {len(df.columns):,} columns from {os.path.basename(DATA_PATH)} "
      f"({load_info['format']}{encoding}{delimiter})")
for note in load_info["notes"]:
    print("Note:", note)
