# The folder of the data, as analyst's kernel sees it (mounted read-only): each table is read
# from it below into tables[NAME], and how it was read into load_infos[NAME].
# To re-run this notebook elsewhere, change DATA_DIR to where the folder is.
DATA_DIR = "data"
SHEET = None  # spreadsheets: the first sheet of each is read
TABLE = None  # SQLite: each database's only table is read (or its first, with a note)
# Parquet: the folder analyst converted the file into (see read_converted_columns), per table.
CONVERTED_PATH = None
