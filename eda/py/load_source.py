# The data file, as analyst's kernel sees it (mounted read-only).
# To re-run this notebook elsewhere, change DATA_PATH to where the file is.
DATA_PATH = {{DATA_PATH}}
SHEET = {{SHEET}}  # spreadsheets: the sheet to read, by name or number from 1 (None: the first)
TABLE = {{TABLE}}  # SQLite: the table to read (None: the only one)
# Parquet: the folder analyst converted the file into (see read_converted_columns).
CONVERTED_PATH = {{CONVERTED_PATH}}
