package eda

import (
	"fmt"
	"strconv"
	"strings"
)

// Thresholds of the loader and of the profile's alerts. Each is defined
// here once: set as constants of the Python (load.py and
// profile_alerts.py) and stated by the method notes above those cells.
const (
	headKB            = 64     // HEAD_BYTES: how much of the file decides how to read it, in KiB
	dateShare         = 0.9    // DATE_SHARE: a text column becomes dates from this share of dates
	numberShare       = 0.9    // NUMBER_SHARE: a text column becomes numeric from this share of numbers
	numberHintShare   = 0.5    // NUMBER_HINT_SHARE: numbers_as_text from this share up to numberShare
	highMissingShare  = 0.2    // HIGH_MISSING_SHARE
	highCardinality   = 50     // HIGH_CARDINALITY; bar charts also prefer columns at or under it
	skewed            = 2.0    // SKEWED: |skewness| above it
	highCorrelation   = 0.9    // HIGH_CORRELATION: |Pearson r| from it
	correlationAlerts = 50     // CORRELATION_MAX_ALERTS: high_correlation alerts listed
	datesAsTextShare  = 0.5    // DATES_AS_TEXT_SHARE
	mixedSample       = 10_000 // MIXED_SAMPLE: values sampled per text column for mixed_types

	histBins = 30 // HIST_BINS: bins of a histogram (chart_helpers.py, ooc_pass.py)

	// The relationships between tables (relationships*.py).
	matchShare    = 0.9  // MATCH_SHARE: A.x refers to B.key when at least this share of A.x's distinct values are keys of B
	minDistinct   = 2    // MIN_DISTINCT: distinct values A.x needs (a constant proves nothing)
	chanceBound   = 1e-6 // CHANCE: numbers need landing on the keys to be at most this likely by chance, or names that agree
	orphanSample  = 5    // ORPHAN_SAMPLE: orphan values listed per relationship
	diagramTables = 12   // DIAGRAM_TABLES: tables drawn at most in the diagram

	// FolderSections is how many of a folder's tables get a load and a
	// profile section of their own; the others are read and profiled one
	// cell each and summed up in one table (OtherTables).
	FolderSections = 50

	// HEADER_STABLE_SHARE: the header is the first row after which this
	// share of the sampled rows has its field count (rows above it are a
	// preamble: a title, comments).
	headerStableShare = 0.9
	// RAGGED_SHARE: more than this share of the rows skipped for having
	// more fields than the header is a ragged_rows alert naming the likely
	// cause, not only a note: never silently drop rows.
	raggedShare = 0.01

	// Out of core (ooc_profile.py).
	distinctK     = 4096    // DISTINCT_K: hashes kept per column (k minimum values)
	valueCountCap = 100_000 // VALUE_COUNT_CAP: distinct values counted exactly per text column

	// What every run keeps for later comparisons (sketch_parts.py, sketch.py).
	SketchVersion  = 1    // SKETCH_VERSION: the sketch's layout; a comparison needs a baseline of this version
	quantilePoints = 1000 // QUANTILE_POINTS: quantiles kept per numeric column past that many distinct values
	valueCountsCap = 1000 // VALUE_COUNTS_CAP: most frequent values kept per categorical column
	timePeriods    = 5000 // TIME_PERIODS: periods kept per date column

	// What changed (compare*.py): how changes are judged, besides the
	// thresholds of DefaultChangeRules.
	changeSignificance = 0.05 // SIGNIFICANCE: family-wise, split over the tests (Bonferroni)
	fewValues          = 5    // FEW_VALUES: numeric columns of at most this many values compare as categories (Evidently's rule)
	renameDistance     = 0.1  // RENAME_DISTANCE: KS D or Jensen–Shannon distance under which two columns are one renamed
	gapMinRows         = 20   // GAP_MIN_ROWS: rows a period must be expected to have for an empty one to be a gap
)

// Default thresholds of the checks of what changed: (warn at, fail at) of
// each check's measure.
const (
	rowsWarn, rowsFail                   = 1.5, 3.0  // rows: the larger count over the smaller
	missingWarn, missingFail             = 0.01, 0.1 // missing: |change of the missing share|
	numericShiftWarn, numericShiftFail   = 0.1, 0.5  // numeric-shift: Wasserstein distance / the baseline's σ (Evidently: 0.1)
	categoryShiftWarn, categoryShiftFail = 0.1, 0.3  // category-shift: Jensen–Shannon distance (Evidently: 0.1)
	categoryShareWarn, categoryShareFail = 0.01, 0.5 // new-category, vanished-category: the value's share of rows
	gapsWarn                             = 1         // gaps: periods without rows
)

// Words of the loader's rules, filled into load.py and stated by the
// method notes.
var (
	// codeWords (CODE_WORDS): a column whose name's last word is one of
	// these holds codes or identifiers, not measures, when its values are
	// whole numbers, none negative (profile_alerts.py's identifier alert).
	codeWords = []string{"id", "code", "zip", "zipcode", "postal", "postcode", "postalcode", "plz", "fips",
		"phone", "telephone", "tel", "fax", "account", "acct", "sku", "isbn", "ean", "upc", "gtin", "iban", "ssn",
		"uuid", "guid"}
	// numberWords (NUMBER_WORDS): the same after another word
	// (account_number, order_no), not alone.
	numberWords = []string{"number", "no", "nr", "num"}
	// paddedCodeWords (PADDED_CODE_WORDS): code words of codes written with
	// leading zeros; such columns are read as text.
	paddedCodeWords = []string{"zip", "zipcode", "postal", "postcode", "postalcode", "plz", "fips"}
	// totalLabels (TOTAL_LABELS): the labels of a totals row, lowercase.
	totalLabels = []string{"total", "totals", "grand total", "sum", "overall", "all", "gesamt", "summe",
		"gesamtsumme", "insgesamt", "totale", "total général", "totaal", "totalt", "summa", "suma"}
)

// pyFloat is x as a Python float literal: 0.9, 2.0.
func pyFloat(x float64) string {
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// percent is a share in the method notes: 0.9 is "90%".
func percent(share float64) string { return fmt.Sprintf("%.0f%%", 100*share) }
