# The baseline's sketch, as the run that wrote it kept it: embedded here, so that this notebook
# re-runs without the baseline's files.
BASELINE_RUN = {"manifest": "", "data": "", "sha256": ""}
BASELINE = json.loads(r'''{"version": 1, "rows": 0, "columns": []}''')

# How each change is judged: (warn at, fail at) of each check's measure (None: never), and the level
# of each schema change; the config file's `baseline:` settings are in place of the defaults.
THRESHOLDS = {"category-shift": (0.1, 0.3), "distinct": (None, None), "gaps": (1.0, None), "missing": (0.01, 0.1), "new-category": (0.01, 0.5), "numeric-shift": (0.1, 0.5), "rows": (1.5, 3.0), "vanished-category": (0.01, 0.5)}
COLUMN_THRESHOLDS = {}
SEVERITIES = {"added": "info", "duplicates": "warn", "removed": "fail", "renamed": "warn", "type": "fail"}
COLUMN_SEVERITIES = {}
SIGNIFICANCE = 0.05  # family-wise: each test's p-value must be below SIGNIFICANCE / number of tests
ID_MIN_ROWS = 100  # an all-distinct integer or text column of at least this many rows is an identifier
FEW_VALUES = 5  # numeric columns with at most this many distinct values are compared as categories
RENAME_DISTANCE = 0.1  # a removed and an added column this alike are one column renamed
GAP_MIN_ROWS = 20  # gaps are looked for only where each period is expected at least this many rows
CATEGORIES_LISTED = 20  # new or vanished values listed one by one per column; the rest are counted
UNIT_WORDS = {"h": "hour", "D": "day", "W": "week", "M": "month", "Y": "year"}
print(f"Baseline: {BASELINE_RUN['manifest']}, data {BASELINE_RUN['data']} (sha256 {BASELINE_RUN['sha256'][:12]}), "
      f"{BASELINE['rows']:,} rows × {len(BASELINE['columns']):,} columns")
