# The baseline's sketch, as the run that wrote it kept it: embedded here, so that this notebook
# re-runs without the baseline's files.
BASELINE_RUN = {{RUN}}
BASELINE = json.loads(r'''{{SKETCH}}''')

# How each change is judged: (warn at, fail at) of each check's measure (None: never), and the level
# of each schema change; the config file's `baseline:` settings are in place of the defaults.
THRESHOLDS = {{THRESHOLDS}}
COLUMN_THRESHOLDS = {{COLUMN_THRESHOLDS}}
SEVERITIES = {{SEVERITIES}}
COLUMN_SEVERITIES = {{COLUMN_SEVERITIES}}
SIGNIFICANCE = {{SIGNIFICANCE}}  # family-wise: each test's p-value must be below SIGNIFICANCE / number of tests
ID_MIN_ROWS = {{ID_MIN_ROWS}}  # an all-distinct integer or text column of at least this many rows is an identifier
FEW_VALUES = {{FEW_VALUES}}  # numeric columns with at most this many distinct values are compared as categories
RENAME_DISTANCE = {{RENAME_DISTANCE}}  # a removed and an added column this alike are one column renamed
GAP_MIN_ROWS = {{GAP_MIN_ROWS}}  # gaps are looked for only where each period is expected at least this many rows
CATEGORIES_LISTED = 20  # new or vanished values listed one by one per column; the rest are counted
UNIT_WORDS = {"h": "hour", "D": "day", "W": "week", "M": "month", "Y": "year"}
print(f"Baseline: {BASELINE_RUN['manifest']}, data {BASELINE_RUN['data']} (sha256 {BASELINE_RUN['sha256'][:12]}), "
      f"{BASELINE['rows']:,} rows × {len(BASELINE['columns']):,} columns")
