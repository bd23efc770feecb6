# The profile's cells, as one piece of code that profiles df with load_info (the tables past the
# first FOLDER_SECTIONS are profiled by it, one cell each, without a section of their own).
PROFILE_SOURCE = ""
PROFILED = ["rows", "column_info", "value_counts", "profile"]  # what a table's profile computed that the stages after it read
PROFILE_CODE = compile(PROFILE_SOURCE, "<profile>", "exec")


def load_and_profile(name, path, converted=None):
    """Reads DATA_DIR/path into tables[name] as its own load section would, then profiles it with
    the profile's cells, df and load_info naming it while they run; the profile is displayed."""
    global df, load_info
    load_into_tables(name, path, converted=converted)
    df, load_info = tables[name], load_infos[name]
    exec(PROFILE_CODE, globals())
    profiled[name] = {key: globals()[key] for key in PROFILED}


def other_tables_summary(names):
    """One row per table: its rows, columns and alerts, as their profiles found them."""
    rows = [(n, profiled[n]["rows"], len(profiled[n]["column_info"]), len(profiled[n]["profile"]["alerts"]))
            for n in names]
    with pd.option_context("display.max_rows", None):
        display(pd.DataFrame(rows, columns=["table", "rows", "columns", "alerts"]).set_index("table"))
