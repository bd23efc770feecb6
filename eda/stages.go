package eda

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/nbformat"
)

// Tags of the cells other layers look for.
const (
	// ProfileTag tags the cell whose output holds the profile (mime nbformat.MimeProfile).
	ProfileTag = "profile-json"
	// TagSetup and TagLoadData tag the cells that import the libraries and
	// load the data (`kernel exec --load` runs them).
	TagSetup    = "setup"
	TagLoadData = "load-data"
)

// Stage names, as the notebook tags them ("stage:NAME").
const (
	StageSetup         = "setup"
	StageLoad          = "load"
	StageProfile       = "profile"
	StageDistributions = "distributions"
)

var (
	// loadPy is the loader: the text formats' code, then the other formats'
	// (kept apart to keep each simple), between where the data is and the
	// lines that call it.
	loadPy        = pyFileWhole("load.py")
	loadFormatsPy = pyFileWhole("load_formats.py")
	loadExportsPy = pyFileWhole("load_exports.py") // the layouts of reports and spreadsheets
	loadSourcePy  = pyFile("load_source.py")       // where a file's data is
	loadCallPy    = pyFile("load_call.py")         // the lines that read it into df
	setupPy       = pyFile("setup.py")
	// The profile of the columns: the helpers, the pass over the columns,
	// the overview table and the summary line (out of core, the helpers
	// and the overview with its own pass and summary).
	profileHelpersPy  = pyFileWhole("profile_helpers.py")
	profileColumnsPy  = pyFileWhole("profile_columns.py")
	profileOverviewPy = pyFileWhole("profile_overview.py")
	profileSummaryPy  = pyFileWhole("profile_summary.py")
	profileAlertsPy   = pyFileWhole("profile_alerts.py")
	profileJSONPy     = pyFileWhole("profile_json.py")
	profileShowPy     = pyFileWhole("profile_show.py")
)

// The one-line summaries of the plumbing cells (see Plumbing).
const (
	summarySetup          = "Setup: the imports and display settings of the cells below."
	summaryLoad           = "Loader: reads the data file into df as the text above says; load_info records each decision."
	summaryProfileColumns = "Profile: each column's type, missing and distinct counts, samples and summary numbers."
	summaryProfileAlerts  = "Profile alerts: the thresholds above, applied to each column."
	summaryProfileJSON    = "The profile as JSON, which analyst reads for the report and the model."
	summaryChartHelpers   = "Chart helpers: the drawing code the charts below share."
	summarySketch         = "The data's sketch as JSON, which run.json keeps to compare a later run with."
)

// Setup imports what the later stages use and sets display options. The
// notebook imports everything it uses itself, so it re-runs in plain
// Jupyter.
func Setup() Stage {
	return Stage{Name: StageSetup, Title: "Setup", Cells: []Cell{
		Markdown("Imports the libraries the analysis uses and sets how pandas shows tables: floats with six " +
			"significant digits (the data keeps full precision). Matplotlib keeps its default settings, so charts " +
			"look the same when this notebook is re-run in Jupyter."),
		Plumbing(summarySetup, Code(setupPy, TagSetup)),
	}}
}

// DefaultNAValues are the text values the loader reads as missing (compared
// ignoring case and surrounding spaces; "" is also any value made only of
// spaces). Pandas' own list is not used, so that the loader can count the
// markers it finds and the list is the same in every pandas version.
var DefaultNAValues = []string{"", "-", "--", "?", "n/a", "na", "#n/a", "nan", "null", "none", "nil", "unknown", "missing"}

// LoadOptions tune how the data file is read.
type LoadOptions struct {
	// NAValues are the missing-value markers; nil: DefaultNAValues, empty
	// and not nil: none (only empty fields are missing).
	NAValues []string
}

// Source is the data file as the kernel sees it, and how to read it.
type Source struct {
	Path  string // in the kernel, such as /data/sales.csv
	Sheet string // spreadsheets: a sheet's name or number from 1; "": the first
	Table string // SQLite: the table; "": the only one
	// Converted is the folder (in the kernel) a Parquet file was converted
	// into, and Converter what converted it; see internal/parquetnpy.
	Converted, Converter string
	LoadOptions
}

// Load reads the data file at dataPath (its path inside the kernel, such as
// /data/sales.csv) into df with the default options (see LoadFrom).
func Load(dataPath string) Stage { return LoadFrom(Source{Path: dataPath}) }

// LoadWith is Load with options.
func LoadWith(dataPath string, opts LoadOptions) Stage {
	return LoadFrom(Source{Path: dataPath, LoadOptions: opts})
}

// LoadFrom reads src into df, with load_info saying how it was read, then
// cleans text as exports write it (missing-value markers, numbers as text,
// UTC offsets, Unix times). A file it cannot read raises AnalystDataError
// (DataErrorName).
func LoadFrom(src Source) Stage {
	name := path.Base(src.Path)
	intro := "The loader below reads " + mdCode(name) + ". From the first " + strconv.Itoa(headKB) + " KB of the file it decides how: " +
		"compression by its magic bytes (gzip, bz2, xz); format by magic bytes, extension and content (CSV or TSV, JSON, " +
		"JSON Lines; Excel .xlsx, Excel 97-2003 .xls, OpenDocument .ods; SPSS .sav, Stata .dta, SAS .sas7bdat and .xpt; " +
		"SQLite; Parquet); for text, its encoding (UTF-8, UTF-8 with a byte-order mark, otherwise Shift-JIS when its bytes decode into Japanese kana, Windows-1252 when its " +
		"typographic characters appear, else Latin-1); the " +
		"delimiter (whichever of `,` `;` tab `|`, or a space, splits the lines into the same number of fields most " +
		"consistently, quotes respected), whether quotes are escaped with a backslash or are text, not quoting; NUL bytes that pad lines; whether the first row is a " +
		"header (the types of the values below it decide); comment lines (`#`) between the rows; and a decimal comma " +
		"(numbers written like 3,5).\n\n" +
		"Rows with more fields than the header are skipped and listed in the notes (more than " + percent(raggedShare) +
		" of the rows is a `ragged_rows` alert naming the likely cause); rows with fewer are kept " +
		"with their last fields missing. Renamed duplicate column names are noted too. Report layouts are read as tables: " +
		"title rows above a sheet's table (or a table that does not start at A1), a second header line (joined to the names), " +
		"header lines repeated on each page and footer notes (left out), apostrophes that force text (removed), each noted; " +
		"a group column left blank below its labels gets a note offering the forward fill. A text column becomes " +
		"a date column when at least " + percent(dateShare) + " of its values are dates in one of the formats listed in the code. " +
		"A file that cannot be read as a table stops the analysis with an `AnalystDataError` that says why " +
		"and what to do.\n\n" + loadCleaningMd
	if src.Converted != "" {
		intro += "\n\n**Parquet, converted.** The kernel's pandas has no Parquet reader (Debian packages no pyarrow), so " +
			"before the run " + src.Converter + " read " + mdCode(name) + " and wrote each column to a NumPy `.npy` file, " +
			"with `schema.json` for the names, types, time zones, category lists and missing values, in " +
			mdCode(src.Converted) + " (mounted read-only). The loader rebuilds the typed DataFrame from those files " +
			"with `numpy.load` (no pickle): integers, floats and booleans as they were (integers with missing values " +
			"as floats with NaN, as `pandas.read_parquet` does), timestamps as `datetime64[ns]` in their time zone, " +
			"text as `object`, categoricals as `category`, dates as `datetime64[ns]`, decimals as `float64`. " +
			"To re-run this notebook in a Jupyter that has pyarrow, set `CONVERTED_PATH = None`: the loader then " +
			"reads the original with `pd.read_parquet(DATA_PATH)`."
	}
	return Stage{Name: StageLoad, Title: "Load the data", Cells: []Cell{
		Markdown(intro),
		Plumbing(summaryLoad, Code(loader(loadSource(src), loadCallPy, naValues(src.NAValues)), TagLoadData)),
		Markdown("The first rows, as loaded."),
		Code("df.head()"),
	}}
}

// loader is the load cell's code: the loader's functions between source
// (where the data is) and call (the lines that read it), with the
// missing-value markers na.
func loader(source, call string, na []string) string {
	return loaderFunctions(source, na) + "\n\n" + call + "\n"
}

// loaderFunctions is the loader without the lines that call it: where the
// data is, the thresholds, the functions.
func loaderFunctions(source string, na []string) string {
	return source + "\n" + constants(loadPy, loadConstants(na)...) + "\n\n" + loadFormatsPy + loadExportsPy
}

// loadConstants are the loader's thresholds and word lists, as
// name-value pairs for constants.
func loadConstants(na []string) []string {
	return []string{"NA_VALUES", pyList(na), "HEAD_BYTES", strconv.Itoa(headKB) + " * 1024",
		"DATE_SHARE", pyFloat(dateShare), "NUMBER_SHARE", pyFloat(numberShare),
		"NUMBER_HINT_SHARE", pyFloat(numberHintShare), "HEADER_STABLE_SHARE", pyFloat(headerStableShare),
		"CODE_WORDS", pyList(codeWords), "NUMBER_WORDS", pyList(numberWords),
		"PADDED_CODE_WORDS", pyList(paddedCodeWords), "TOTAL_LABELS", pyList(totalLabels),
		"RAGGED_SHARE", pyFloat(raggedShare)}
}

// loadSource is where src's data is: the first lines of its load cell.
func loadSource(src Source) string {
	return constants(loadSourcePy, "DATA_PATH", pyString(src.Path), "SHEET", pyOptional(src.Sheet),
		"TABLE", pyOptional(src.Table), "CONVERTED_PATH", pyOptional(src.Converted))
}

// naValues are src's missing-value markers: DefaultNAValues unless set.
func naValues(na []string) []string {
	if na == nil {
		return DefaultNAValues
	}
	return na
}

// pyOptional is a Python string literal, or None for "".
func pyOptional(s string) string {
	if s == "" {
		return "None"
	}
	return pyString(s)
}

// pyBool is a Python bool literal.
func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// ProfileStage computes the profile of df: per column its type, missing and
// distinct counts, sample values and summary numbers, then the alerts, and
// shows it as JSON (mime nbformat.MimeProfile) in the cell tagged ProfileTag.
func ProfileStage() Stage {
	return Stage{Name: StageProfile, Title: "Profile", Cells: []Cell{
		Markdown("Profiles every column: its pandas type and kind (numeric, categorical, datetime, boolean, " +
			"free text, or empty), how many values are missing, how many distinct values it has (the distinct " +
			"share is of the non-missing values), a few sample values, and for numeric columns the minimum, " +
			"maximum, mean, standard deviation and skewness. Exact duplicate rows and the memory the data " +
			"takes are counted too."),
		Plumbing(summaryProfileColumns, Code(profileHelpersPy+"\n\n"+profileColumnsPy+"\n"+profileOverviewPy+profileSummaryPy, "profile-columns")),
		Markdown(profileAlertsMd),
		Plumbing(summaryProfileAlerts, Code(profileAlerts(), "profile-alerts")),
		Markdown("The profile as JSON, which analyst reads to write the report and to brief the model."),
		Plumbing(summaryProfileJSON, Code(profileJSON(""), ProfileTag)),
		Markdown(sketchMd),
		Plumbing(summarySketch, sketchCell(sketchParts(), "set()", "set()")),
	}}
}

// profileJSON is the cell that shows the profile; extra runs after the
// profile is built, before it is shown (the out-of-core stage's own entry).
func profileJSON(extra string) string {
	return constants(profileJSONPy, profileJSONConstants...) + extra + profileShowPy
}

// profileJSONConstants is the profile's MIME type, for constants.
var profileJSONConstants = []string{"PROFILE_MIME", pyString(nbformat.MimeProfile)}

// profileOutOfCorePy adds the out-of-core stage's own entry to the profile.
const profileOutOfCorePy = `profile["out_of_core"] = jsonable(out_of_core)
`

var profileAlertsMd = fmt.Sprintf(strings.TrimSpace(`
Alerts point at what an analyst should look at first, in the manner of ydata-profiling:

| alert | raised when | why this threshold |
|---|---|---|
| duplicates | any row is an exact copy of an earlier row | even one may mean a double export |
| empty | every value of a column is missing | nothing to analyse |
| high_missing | %[1]s or more of a column's values are missing | enough to bias averages and charts |
| constant | a column has a single distinct value | it carries no information |
| unique_id | every row has a different integer or text value | an identifier, not a measurement (floats are excluded: continuous values are often all distinct) |
| high_cardinality | a categorical column has more than %[2]d distinct values | ydata-profiling's bar: too many categories to chart or group by |
| skewed | the skewness of a numeric column is above %[3]g in absolute value | twice the usual "highly skewed" bar of 1: the mean and standard deviation describe it poorly; ydata-profiling's 20 flags only extreme cases |
| high_correlation | two numeric columns have a Pearson correlation of %[4]g or more in absolute value; every pair of numeric columns is checked (the %[5]d strongest pairs are listed, the rest counted) | one nearly predicts the other |
| dates_as_text | at least %[6]s of the sampled values of a text column are dates in one format, but fewer than the %[7]s needed to convert the column | some values are not dates |
| mixed_types | a text column holds both numbers and other text (in a sample of up to %[8]s values) | usually a numeric column with stray labels such as "n/a" |
| missing_markers | the loader turned missing-value markers (NA_VALUES in the load cell) into missing values | says which markers and how many, per column |
| unconverted_values | a column was converted from text to numbers but some values were not numbers (they became missing) | they are listed, never dropped silently |
| numbers_as_text | from %[9]s to under %[10]s of a text column's values are numbers as exports write them | too many other values to convert it safely |
| possible_epoch | every value of a numeric column is a whole number that reads as a Unix time of 2001-2033, but its name does not say time | it could as well be an identifier; the alert shows how to convert it |
| case_variants | values of a categorical column differ only by case or surrounding spaces (North, NORTH , north) | counted as different categories, they split the counts |
| identifier | a numeric column's name ends with a word that names codes or identifiers (%[11]s; or %[12]s after another word, as in account_number) and its values are whole numbers, none negative | a ZIP code or an account number is a label, not a measure: it gets no histogram, skewness alert, correlation or pair plot. The last word decides, so account_balance and phone_calls are measures; so is a column so named with fractions or negative values |
| ragged_rows | more than %[13]s of a file's rows were skipped for having more fields than the header; the alert names the likely cause (quotes escaped with a backslash, comment lines, another delimiter) | a share that large is a misread file, not a few stray lines: the analysis would silently lack those rows |
| excel_serial_dates | a numeric column whose name says date or time holds only Excel day numbers of 1970-2099 (45292 is 2024-01-01) | a spreadsheet wrote date cells without their format; the alert shows how to convert them, which the loader does not do since such numbers could be counts |
| joined_lines | text values hold line breaks followed by whole rows of the file (as many fields as the table has columns) | a quote that is text was read as quoting and joined lines into one value: those rows are missing from the analysis |
| ambiguous_dates | dates written with two numbers first (03/04/2024) prove both orders (a first number above 12 proves day first, a second above 12 month first), or neither | both: no one format reads them, so the column stays text; neither: they were read day first, which may be wrong |
`), percent(highMissingShare), highCardinality, skewed, highCorrelation, correlationAlerts,
	percent(datesAsTextShare), percent(dateShare), underscoredText(mixedSample),
	percent(numberHintShare), percent(numberShare), strings.Join(codeWords, ", "), strings.Join(numberWords, ", "),
	percent(raggedShare))

// profileAlerts is the cell that raises the alerts, with the thresholds
// of thresholds.go.
func profileAlerts() string {
	return constants(profileAlertsPy, profileAlertsConstants...)
}

// profileAlertsConstants are the alerts' thresholds, as name-value pairs
// for constants.
var profileAlertsConstants = []string{"HIGH_MISSING_SHARE", pyFloat(highMissingShare),
	"HIGH_CARDINALITY", strconv.Itoa(highCardinality), "SKEWED", pyFloat(skewed),
	"HIGH_CORRELATION", pyFloat(highCorrelation), "CORRELATION_MAX_ALERTS", strconv.Itoa(correlationAlerts),
	"DATES_AS_TEXT_SHARE", pyFloat(datesAsTextShare), "MIXED_SAMPLE", underscored(mixedSample)}

var loadCleaningMd = fmt.Sprintf(strings.TrimSpace(`
Then it cleans text as spreadsheets and exports write it, in this order:

- **Missing-value markers.** A text value in `+"`NA_VALUES`"+` (compared ignoring case and the spaces around it; `+"`\"\"`"+` also stands for values made only of spaces) becomes missing; the markers found are counted per column in the notes and the profile. analyst's `+"`--na-values`"+` flag (config key `+"`na-values`"+`) sets the list.
- **Numbers as text.** A text column becomes numeric when at least %[1]s of its values are numbers as exports write them: thousands grouped by `+"`,`"+` `+"`.`"+` spaces or apostrophes (the convention that more values fit wins; on a tie, such as `+"`1,189`"+`, the file's decimal mark decides), currency symbols (`+"`$ € £ ¥ ₹`"+`, before or after), `+"`%%`"+` (the value is divided by 100) and accounting negatives `+"`(1,234)`"+`. Values that do not convert become missing and are counted and listed; a column where %[2]s or more fail stays text.
- **Leading zeros.** A number written with a zero before another digit (`+"`02134`"+`, `+"`000552`"+`; not `+"`0`"+` or `+"`0.5`"+`) would lose its zeros as a number: a column holding any such value stays text, with a note. Columns named like codes written with zeros (%[5]s) are read as text wherever their zeros are; the others are judged on the first %[6]d KB.
- **Dates.** A text column becomes dates when at least %[3]s of its values are dates in one of the formats listed; times with a UTC offset (`+"`+01:00`"+`, `+"`Z`"+`) are converted to UTC, so the column holds UTC times. Where day and month are the first two numbers (`+"`03/04/2024`"+`), every distinct value is checked: a first number above 12 proves day first (`+"`25/12/2024`"+`), a second above 12 month first (`+"`12/25/2024`"+`); the note gives the count and an example. Proofs of both keep the column text (alert `+"`ambiguous_dates`"+`); a column with no proof takes the order another date column of the file proves, and with none there either is read day first, which the note and the same alert say. In a file with decimal commas, pandas is never given `+"`.`"+` as a thousands separator (it would turn `+"`14.12.2024`"+` into 14122024): grouped numbers are converted as numbers as text, where `+"`1.234.567`"+` is a number and `+"`14.12.2024`"+` (not groups of three) a date.
- **Unix times.** A whole-number column whose name says time (time, date, epoch, unix, stamp, ts, …_at, created, updated, modified) and whose every value reads as a time of 2001-2033 in seconds or milliseconds becomes UTC timestamps; without such a name it stays numbers, with an alert.
- **Totals rows.** A last row labelled %[4]s (any case, a trailing colon allowed) whose every number is the sum of the rows above (up to half a unit of its last decimal) is left out of the table, with a note; a row so labelled whose numbers are not the sums stays, and the note says which number differs. (Out of core the last row is not looked at: it stays a row.)

Before all this, for CSV and TSV: lines above the header (a title, `+"`# comments`"+`, blank lines) are skipped and quoted in the notes. The header is the first row after which at least %[7]s of the sampled rows have its field count, provided the rows above have fewer fields or are comments and the header holds a name that is not a number (and, below lines as wide as the table, names with a word a column where the rows below hold numbers: a row of data is no header).
`), percent(numberShare), percent(1-numberShare), percent(dateShare), strings.Join(totalLabels, ", "),
	strings.Join(paddedCodeWords, ", "), headKB, percent(headerStableShare))
