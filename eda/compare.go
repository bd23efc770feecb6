package eda

import (
	"fmt"
	"maps"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
)

// StageChanges is the stage that compares the data with a baseline run's
// sketch (analyst run --baseline).
const StageChanges = "changes"

// MimeChanges is the output mime type of the cell that judges the changes
// (tag ChangesTag): each change with its level, as JSON.
const MimeChanges = "application/vnd.analyst.changes+json"

// ChangesTag tags the cell whose output holds the changes.
const ChangesTag = "changes-json"

// Levels of a change, least severe first.
const (
	LevelInfo = "info"
	LevelWarn = "warn"
	LevelFail = "fail"
)

// Levels are the levels of a change, least severe first.
var Levels = []string{LevelInfo, LevelWarn, LevelFail}

// Checks of what changed whose measure is judged against thresholds.
const (
	CheckRows             = "rows"
	CheckMissing          = "missing"
	CheckNumericShift     = "numeric-shift"
	CheckCategoryShift    = "category-shift"
	CheckNewCategory      = "new-category"
	CheckVanishedCategory = "vanished-category"
	CheckDistinct         = "distinct"
	CheckGaps             = "gaps"
)

// Changes of the schema (and of an identifier), which have a level of
// their own rather than a measure.
const (
	ChangeRemoved    = "removed"
	ChangeAdded      = "added"
	ChangeRenamed    = "renamed"
	ChangeType       = "type"
	ChangeDuplicates = "duplicates"
)

// Changes noted for information only: their level is always info.
const (
	ChangeDtype     = "dtype"
	ChangeTimeRange = "time-range"
)

// ThresholdChecks and SeverityChanges list the checks a configuration may
// set, in the order the method notes list them.
var (
	ThresholdChecks = []string{CheckRows, CheckMissing, CheckNumericShift, CheckCategoryShift, CheckNewCategory,
		CheckVanishedCategory, CheckDistinct, CheckGaps}
	SeverityChanges = []string{ChangeRemoved, ChangeType, ChangeRenamed, ChangeAdded, ChangeDuplicates}
)

// ChangeRule says from which value of its measure a check is a warn and
// from which a fail; nil: never.
type ChangeRule struct {
	Warn *float64 `json:"warn"`
	Fail *float64 `json:"fail"`
}

// ChangeRules say how a comparison judges changes: thresholds by check,
// levels by schema change, and per column what differs from those.
type ChangeRules struct {
	Thresholds map[string]ChangeRule  `json:"thresholds"`
	Severities map[string]string      `json:"levels"`
	Columns    map[string]ColumnRules `json:"columns,omitempty"`
}

// ColumnRules are a column's own thresholds and levels (only those that
// differ from the table's).
type ColumnRules struct {
	Thresholds map[string]ChangeRule `json:"thresholds,omitempty"`
	Severities map[string]string     `json:"levels,omitempty"`
}

func at(x float64) *float64 { return &x }

// DefaultChangeRules are the documented defaults (thresholds.go).
func DefaultChangeRules() ChangeRules {
	return ChangeRules{
		Thresholds: map[string]ChangeRule{
			CheckRows:             {at(rowsWarn), at(rowsFail)},
			CheckMissing:          {at(missingWarn), at(missingFail)},
			CheckNumericShift:     {at(numericShiftWarn), at(numericShiftFail)},
			CheckCategoryShift:    {at(categoryShiftWarn), at(categoryShiftFail)},
			CheckNewCategory:      {at(categoryShareWarn), at(categoryShareFail)},
			CheckVanishedCategory: {at(categoryShareWarn), at(categoryShareFail)},
			CheckDistinct:         {},
			CheckGaps:             {Warn: at(gapsWarn)},
		},
		Severities: map[string]string{ChangeRemoved: LevelFail, ChangeType: LevelFail, ChangeRenamed: LevelWarn,
			ChangeAdded: LevelInfo, ChangeDuplicates: LevelWarn},
	}
}

// CompareInput is what the changes stage compares this run's data with.
type CompareInput struct {
	// Manifest is the baseline run's NAME.run.json (its base name is
	// shown), Data and SHA256 its data's name and hash.
	Manifest, Data, SHA256 string
	// Sketch is the baseline's sketch as JSON, checked (see package
	// baseline), embedded in the notebook.
	Sketch []byte
	Rules  ChangeRules
}

var (
	compareBaselinePy   = pyFile("compare_baseline.py")
	compareHelpersPy    = pyFile("compare_helpers.py")
	comparePy           = pyFile("compare.py")
	compareNumbersPy    = pyFile("compare_numbers.py")
	compareCategoriesPy = pyFile("compare_categories.py")
	compareTimePy       = pyFile("compare_time.py")
	compareChartsPy     = pyFile("compare_charts.py")
)

// compareBaselineConstants are the rules of compare_baseline.py: r's
// thresholds and levels, and analyst's.
func compareBaselineConstants(r ChangeRules) []string {
	return []string{"THRESHOLDS", pyRules(r.Thresholds), "COLUMN_THRESHOLDS", pyColumnRules(r.Columns, true),
		"SEVERITIES", pyLevels(r.Severities), "COLUMN_SEVERITIES", pyColumnRules(r.Columns, false),
		"SIGNIFICANCE", pyFloat(changeSignificance), "ID_MIN_ROWS", strconv.Itoa(idMinRows),
		"FEW_VALUES", strconv.Itoa(fewValues), "RENAME_DISTANCE", pyFloat(renameDistance),
		"GAP_MIN_ROWS", strconv.Itoa(gapMinRows)}
}

// Changes compares the data profiled in this run (its sketch, from the
// profile stage) with a baseline run's sketch: the schema, the rows, each
// column's missing values, values and dates, judged by in.Rules, with the
// tests, thresholds and formulas stated; overlay charts of the columns that
// shifted. The cell tagged ChangesTag shows each change as JSON.
func Changes(in CompareInput) Stage {
	r := in.Rules
	// The sketch is JSON inside a raw triple-quoted string: ' only occurs
	// inside JSON strings, where \u0027 means the same.
	sketch := strings.ReplaceAll(string(in.Sketch), "'", `\u0027`)
	run := fmt.Sprintf("{\"manifest\": %s, \"data\": %s, \"sha256\": %s}", pyString(path.Base(in.Manifest)),
		pyString(in.Data), pyString(in.SHA256))
	return Stage{Name: StageChanges, Title: "What changed", Cells: []Cell{
		Markdown(changesIntroMd(in)),
		Code(constants(compareBaselinePy, append([]string{"BASELINE_RUN", run, "BASELINE", "json.loads(r'''" + sketch + "''')"},
			compareBaselineConstants(r)...)...), "baseline-sketch"),
		Markdown("Helpers: a numeric sketch as a distribution function, the tests and distances below, and the chart helpers. " +
			"Then every change, most severe first, each judged by the rules stated under it."),
		Code(compareHelpersPy, "compare-helpers"),
		Code(constants(chartHelpersPy, chartHelpersConstants...), "chart-helpers"),
		Code(constants(comparePy, compareConstants...), ChangesTag),
		Markdown(changesRulesMd(r)),
		Markdown(numericChangesMd),
		Code(compareNumbersPy, "numeric-changes"),
		Markdown(categoryChangesMd),
		Code(compareCategoriesPy, "category-changes"),
		Markdown(timeChangesMd),
		Code(compareTimePy, "time-changes"),
		Markdown(fmt.Sprintf("Overlay charts of the columns whose values shifted past a warn threshold (numeric shift, "+
			"category shift, new or vanished values): the share of rows per bin (numbers: %d equal-width bins from the "+
			"1st to the 99th percentile of both, the rows beyond in the first and last bins) or per value (the 10 "+
			"values with the largest share on either side), baseline and new.", histBins)),
		Code(compareChartsPy, "overlay-charts"),
	}}
}

// compareConstants is the changes' MIME type, for constants.
var compareConstants = []string{"CHANGES_MIME", pyString(MimeChanges)}

func changesIntroMd(in CompareInput) string {
	return "What changed since the baseline run " + mdCode(path.Base(in.Manifest)) + " (data " + mdCode(in.Data) +
		", sha256 `" + shortHash(in.SHA256) + "`): its sketch (the cell below) against this run's (the profile's " +
		"last cell). Nothing of the old rows is read, only what the baseline run kept. Every change is judged " +
		"by the rules stated further down and gets a level: **info** (noted), **warn** (look at it) or **fail** " +
		"(`analyst run --fail-on` stops a CI job on it)."
}

func shortHash(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// ruleText is a threshold as the notes state it.
func ruleText(x *float64) string {
	if x == nil {
		return "never"
	}
	return strconv.FormatFloat(*x, 'g', -1, 64)
}

// changeMeasures say what each check measures and, where a test decides
// with it, which.
var changeMeasures = map[string]string{
	CheckRows:    "the larger row count over the smaller",
	CheckMissing: "the missing share's change, $|s_{new} - s_{base}|$ (0.01 is one percentage point); the two-proportion z-test must find it significant",
	CheckNumericShift: "the Wasserstein distance over the baseline's standard deviation, $W_1/\\sigma$ (Evidently's default test and threshold 0.1 for more than 1,000 rows, where it decides; " +
		"up to 1,000 rows Evidently decides by the KS test's p < 0.05). analyst requires both at every size: the distance reaches the threshold and the KS p-value is below α",
	CheckCategoryShift:    "the Jensen–Shannon distance of the value shares (Evidently's default test and threshold 0.1 for more than 1,000 rows; up to 1,000 rows Evidently uses the chi-squared test); the chi-squared test of homogeneity must find it significant too",
	CheckNewCategory:      "a value the baseline did not have: its share of the new rows; significant when the baseline would have shown it with p < α, $p = (1 - s)^{n_{base}}$",
	CheckVanishedCategory: "a value the new data does not have: its share of the baseline's rows; $p = (1 - s)^{n_{new}}$",
	CheckDistinct:         "the larger distinct count over the smaller (categorical columns)",
	CheckGaps:             "periods inside the new data's range without rows, at the finest period length at which the baseline had rows in every period and each new period is expected at least " + strconv.Itoa(gapMinRows) + " rows",
}

// changesRulesMd states how changes are judged: the thresholds in force
// (the configuration's in place of the defaults), the schema changes'
// levels, and the significance.
func changesRulesMd(r ChangeRules) string {
	var b strings.Builder
	b.WriteString("### How changes are judged\n\nEach check's measure against its thresholds (the config file's " +
		"`baseline:` settings in place of analyst's defaults):\n\n| check | measure | warn at | fail at |\n|---|---|---|---|\n")
	for _, c := range ThresholdChecks {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", c, changeMeasures[c], ruleText(r.Thresholds[c].Warn), ruleText(r.Thresholds[c].Fail))
	}
	b.WriteString("\nSchema changes have a level of their own: ")
	var levels []string
	for _, c := range SeverityChanges {
		levels = append(levels, fmt.Sprintf("%s **%s**", c, r.Severities[c]))
	}
	b.WriteString(strings.Join(levels, ", ") + " (duplicates: an identifier of the baseline — a different integer or " +
		"text in every row — now repeats values). A removed and an added column of one kind whose values are alike " +
		fmt.Sprintf("(KS D, or Jensen–Shannon distance, at most %g) are one column renamed, then compared as one. ", renameDistance) +
		"A change of dtype within a kind (int64 to float64 when a value goes missing) and of the dates' range are info.\n\n")
	b.WriteString(fmt.Sprintf("**Significance.** A measure reaches warn or fail only where its test (KS, chi-squared, "+
		"z-test, the chance of missing a value) gives p < α = %g / m, m the number of tests made (Bonferroni): two "+
		"samples of one distribution then pass all tests by chance with probability at most %g, however many "+
		"columns there are; on large data the thresholds decide, on small data the tests do.", changeSignificance, changeSignificance))
	if len(r.Columns) > 0 {
		b.WriteString("\n\n**Per column**, from the config file:\n\n")
		for _, name := range sortedKeys(r.Columns) {
			c := r.Columns[name]
			var parts []string
			for _, check := range sortedKeys(c.Thresholds) {
				parts = append(parts, fmt.Sprintf("%s warn at %s, fail at %s", check, ruleText(c.Thresholds[check].Warn), ruleText(c.Thresholds[check].Fail)))
			}
			for _, ch := range sortedKeys(c.Severities) {
				parts = append(parts, fmt.Sprintf("%s **%s**", ch, c.Severities[ch]))
			}
			fmt.Fprintf(&b, "- %s: %s\n", mdCode(name), strings.Join(parts, "; "))
		}
	}
	return strings.TrimSpace(b.String())
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// pyRules renders thresholds as a Python dict {check: (warn, fail)}.
func pyRules(rules map[string]ChangeRule) string {
	var items []string
	for _, k := range sortedKeys(rules) {
		items = append(items, fmt.Sprintf("%s: (%s, %s)", pyString(k), pyNumber(rules[k].Warn), pyNumber(rules[k].Fail)))
	}
	return "{" + strings.Join(items, ", ") + "}"
}

func pyLevels(levels map[string]string) string {
	var items []string
	for _, k := range sortedKeys(levels) {
		items = append(items, pyString(k)+": "+pyString(levels[k]))
	}
	return "{" + strings.Join(items, ", ") + "}"
}

// pyColumnRules renders the columns' thresholds (or levels) as a Python
// dict by column, one column a line.
func pyColumnRules(cols map[string]ColumnRules, thresholds bool) string {
	var items []string
	for _, name := range sortedKeys(cols) {
		c := cols[name]
		switch {
		case thresholds && len(c.Thresholds) > 0:
			items = append(items, "    "+pyString(name)+": "+pyRules(c.Thresholds)+",")
		case !thresholds && len(c.Severities) > 0:
			items = append(items, "    "+pyString(name)+": "+pyLevels(c.Severities)+",")
		}
	}
	if len(items) == 0 {
		return "{}"
	}
	return "{\n" + strings.Join(items, "\n") + "\n}"
}

func pyNumber(x *float64) string {
	if x == nil {
		return "None"
	}
	return pyFloat(*x)
}

var numericChangesMd = `### Numeric columns

For each numeric column in both runs, from the two sketches. A sketch stands for the column's distribution function $F(x)$, the share of values at most $x$ (a step function, as the data's own; exact when the column has few distinct values). With $F_b$ the baseline's and $F_n$ the new data's:

Kolmogorov–Smirnov statistic, the largest gap between the two (its p-value is scipy's asymptotic two-sample one, with $n_b n_n / (n_b + n_n)$ as the effective size):
$$D = \max_x \left|F_n(x) - F_b(x)\right|$$

Wasserstein distance (the mean distance a value must move to turn one distribution into the other; in the column's unit), scaled by the baseline's standard deviation $\sigma_b$:
$$\frac{W_1}{\sigma_b} = \frac{1}{\sigma_b}\int_{-\infty}^{\infty} \left|F_n(x) - F_b(x)\right|\,dx$$

Population stability index over the baseline's deciles ($b_k$, $n_k$: the shares of the baseline's and the new rows in bin $k$; an empty bin counts as 0.0001):
$$\mathrm{PSI} = \sum_k (n_k - b_k)\,\ln\frac{n_k}{b_k}$$

Quantiles from the sketch, $Q(p) = \min\{x : F(x) \ge p\}$, and for each statistic (mean and standard deviation exact, from the profiles) its change $\Delta = \text{new} - \text{baseline}$ and relative change $\Delta / |\text{baseline}|$.

Accuracy: a column with at most ` + underscoredText(quantilePoints+1) + ` distinct values is kept whole, so these are exact. Otherwise each of the ` + underscoredText(quantilePoints+1) + ` kept quantiles stands for at most $\pi/(2 \cdot ` + strconv.Itoa(quantilePoints) + `) \approx$ ` + fmt.Sprintf("%.2g%%", 100*math.Pi/(2*quantilePoints)) + ` of the rows (fewer towards the ends), so each $F$ is within that of the data's: $D$ and PSI's bin shares within twice that; docs/benchmarks.md has the measured errors of $D$, $W_1/\sigma$ and PSI against the exact values.`

var categoryChangesMd = `### Categorical columns

Values new in this data or gone from it, with their rows (only for columns whose values were all counted on both sides: at most ` + underscoredText(valueCountsCap) + ` distinct values), and the values whose share moved most. The Jensen–Shannon distance between the share vectors $P$ (baseline) and $Q$ (new), with $M = (P + Q)/2$ and the natural logarithm, is
$$\mathrm{JS}(P, Q) = \sqrt{\tfrac{1}{2}\,\mathrm{KL}(P \,\|\, M) + \tfrac{1}{2}\,\mathrm{KL}(Q \,\|\, M)}, \qquad \mathrm{KL}(P \,\|\, M) = \sum_v P_v \ln\frac{P_v}{M_v}$$
(0: the same shares; at most $\sqrt{\ln 2} \approx 0.83$). Values counted on one side only (past the most frequent kept) are pooled into "(other)"; the chi-squared test of homogeneity pools the values expected fewer than 5 rows on either side.`

const timeChangesMd = `### Dates

Each date column's range in both runs, their overlap, and gaps: periods inside the new data's range without any row, at the finest period length (hour, day, week, month, year) at which the baseline had rows in every period and the new data is expected enough rows in each for an empty one not to be chance.`
