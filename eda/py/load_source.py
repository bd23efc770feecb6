# The data file, as analyst's kernel sees it (mounted read-only).
# To re-run this notebook elsewhere, change DATA_PATH to where the file is.
DATA_PATH = "data.csv"
SHEET = None  # spreadsheets: the sheet to read, by name or number from 1 (None: the first)
TABLE = None  # SQLite: the table to read (None: the only one)
# Parquet: the folder analyst converted the file into (see read_converted_columns).
CONVERTED_PATH = None
