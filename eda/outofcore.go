package eda

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

var (
	oocLoadPy         = pyFileWhole("ooc_load.py")
	oocProfilePy      = pyFileWhole("ooc_profile.py")
	oocProfileSumPy   = pyFileWhole("ooc_profile_summary.py")
	oocPassPy         = pyFileWhole("ooc_pass.py")
	oocNumericStatsPy = pyFile("ooc_numeric_stats.py")
)

// OutOfCore tunes the out-of-core stages, which read the data file a chunk
// at a time for data that does not fit in the kernel's memory.
type OutOfCore struct {
	ChunkRows  int   // rows per chunk (default 200,000)
	SampleRows int   // rows of the uniform sample kept as df (default: see SampleRowsFor)
	Seed       int   // seed of the sample (default 20240601)
	PlanBytes  int   // first bytes read whole to decide the columns' types (default 8 MiB)
	Estimate   int64 // the estimated size of the data in memory, shown in the notes
	Limit      int64 // the kernel's memory limit, shown in the notes
}

// Defaults of OutOfCore.
const (
	DefaultChunkRows  = 200_000
	DefaultSampleSeed = 20240601
	DefaultPlanBytes  = 8 << 20
	MaxSampleRows     = 1_000_000
	MinSampleRows     = 10_000
)

// SampleRowsFor is the default sample for a kernel memory limit: one row
// per 2 KiB of the limit (a sample row of a wide text table takes far less
// in pandas), between MinSampleRows and MaxSampleRows: 1,000,000 rows at
// 2 GiB.
func SampleRowsFor(limit int64) int {
	n := limit / 2048
	return int(max(MinSampleRows, min(MaxSampleRows, n)))
}

func (o OutOfCore) withDefaults() OutOfCore {
	if o.ChunkRows <= 0 {
		o.ChunkRows = DefaultChunkRows
	}
	if o.SampleRows <= 0 {
		o.SampleRows = SampleRowsFor(o.Limit)
	}
	if o.Seed == 0 {
		o.Seed = DefaultSampleSeed
	}
	if o.PlanBytes <= 0 {
		o.PlanBytes = DefaultPlanBytes
	}
	return o
}

// OutOfCoreInfo is what the profile says about an out-of-core run.
type OutOfCoreInfo struct {
	Rows       int `json:"rows"`
	ChunkRows  int `json:"chunk_rows"`
	Chunks     int `json:"chunks"`
	SampleRows int `json:"sample_rows"`
	SampleSeed int `json:"sample_seed"`
	// ApproximateDistinct are the columns whose distinct count is an
	// estimate; SampleTopValues those whose top values come from the sample.
	ApproximateDistinct []string `json:"approximate_distinct"`
	SampleTopValues     []string `json:"sample_top_values"`
}

// QuantileError is the bound on the rank error of a quantile q read from a
// uniform sample of n rows (linear interpolation), with 99% confidence:
// P(X < q) − e ≤ p ≤ P(X ≤ q) + e for e = ε + 1/n, where ε comes from the
// Dvoretzky–Kiefer–Wolfowitz inequality P(sup|F_n − F| > ε) ≤ 2·exp(−2nε²)
// and 1/n from the interpolation between two sample values. 0 when the
// sample is the whole data.
func QuantileError(sample, rows int) float64 {
	if sample >= rows || sample == 0 {
		return 0
	}
	return math.Sqrt(math.Log(2/0.01)/(2*float64(sample))) + 1/float64(sample)
}

// distinctError is the relative standard error of the distinct counts'
// estimate (k minimum values).
var distinctError = fmt.Sprintf("1/√(k−2) ≈ %.1f%% (k = %s hashes), so within ±5%% in more than 99%% of cases",
	100/math.Sqrt(distinctK-2), underscoredText(distinctK))

// LoadOutOfCore prepares to read src chunk by chunk: the loader's rules
// decided on the first lines, a chunk reader, and `full`, the helper for
// aggregates over every row. It reads no more than the first lines.
func LoadOutOfCore(src Source, o OutOfCore) Stage {
	o = o.withDefaults()
	st := LoadFrom(src)
	code := loaderFunctions(loadSource(src), naValues(src.NAValues)) + "\n" + constants(oocLoadPy, oocLoadConstants(o)...)
	return Stage{Name: StageLoad, Title: "Load the data (out of core)", Cells: []Cell{
		Markdown(outOfCoreIntroMd(o) + "\n\n" + st.Cells[0].Source),
		Plumbing(summaryLoad, Code(code, TagLoadData)),
	}}
}

// oocLoadConstants are the chunk reader's sizes and seed, for constants.
func oocLoadConstants(o OutOfCore) []string {
	return []string{"CHUNK_ROWS", underscored(o.ChunkRows), "PLAN_BYTES", underscored(o.PlanBytes),
		"SAMPLE_ROWS", underscored(o.SampleRows), "SAMPLE_SEED", strconv.Itoa(o.Seed)}
}

func outOfCoreIntroMd(o OutOfCore) string {
	why := "This run was asked to read the data out of core (`--out-of-core`)."
	if o.Estimate > 0 && o.Limit > 0 {
		why = fmt.Sprintf("The data does not fit in the kernel's memory: loaded whole it would take about %s, "+
			"and the limit is %s.", bytesText(o.Estimate), bytesText(o.Limit))
	}
	return "**Out of core.** " + why + " So the file is never loaded whole: it is read " +
		underscoredText(o.ChunkRows) + " rows at a time, in file order. The loader's rules (below) are decided " +
		"on the first lines (up to " + bytesText(int64(o.PlanBytes)) + ") and every chunk is read and cleaned the same way. " +
		"`df` then holds a uniform random sample of at most " + underscoredText(o.SampleRows) + " rows (seed " +
		strconv.Itoa(o.Seed) + "), and `full` computes exact aggregates over every row: `full.count(where)`, " +
		"`full.value_counts(column, where)`, `full.aggregate(by, column)` (count, sum, mean, min, max per group), " +
		"`full.chunks(columns, where)` for anything else.\n\n" + outOfCoreMethodMd
}

// outOfCoreMethodMd says what is exact and what is approximate.
var outOfCoreMethodMd = "What is exact and what is approximate (≈):\n\n" +
	"- **Exact** over every row: the number of rows, missing values, minimum and maximum, mean, standard deviation, " +
	"skewness and kurtosis (each chunk's count, mean and sums of powers of deviations, combined with the pairwise " +
	"update of Chan, Golub and LeVeque, extended to the 3rd and 4th powers by Pébay: no cancellation from sums of " +
	"raw powers; equal to pandas' up to rounding), the counts of every value of text columns (up to " + underscoredText(valueCountCap) + " distinct " +
	"values per column), missing-value markers, duplicate rows (64-bit row hashes; a collision, which would undercount, " +
	"has a probability under 10⁻⁵ at 16 million rows), histograms (the bin edges come from the exact minimum and " +
	"maximum, and each chunk's counts are added) and the counts and sums per period over time.\n" +
	"- **≈ Quantiles** (quartiles, median, IQR), correlations, the alerts that look at values (mixed types, dates as " +
	"text, possible Unix times, correlations) and the model's analysis use the sample `df`. A quantile read from a " +
	"uniform sample of $n$ rows (linear interpolation) has a rank within $e = \\sqrt{\\ln(2/0.01)/(2n)} + 1/n$ of the one " +
	"asked, $P(X < q) - e \\le p \\le P(X \\le q) + e$, with 99% confidence (the Dvoretzky–Kiefer–Wolfowitz inequality, " +
	"and $1/n$ for the interpolation): at $n$ = 1,000,000, the median is a value between the 49.84th and 50.16th percentiles.\n" +
	"- **≈ Distinct counts** of numeric and date columns (but integer columns whose values only increase: all " +
	"distinct, exact), and of text columns past " + underscoredText(valueCountCap) + " values: k minimum values " +
	"of 64-bit hashes, exact below " + underscoredText(distinctK) + " distinct values, else an estimate with a relative standard error of " +
	distinctError + ". The memory the data would take is the sample's, scaled up."

// ProfileOutOfCore profiles the data in one pass over the file: exact
// counts and moments, distinct counts, value counts, duplicates and the
// sample that becomes df; then the alerts and the profile JSON, as
// ProfileStage does.
func ProfileOutOfCore() Stage {
	return Stage{Name: StageProfile, Title: "Profile", Cells: []Cell{
		Markdown("Profiles every column in one pass over the file, chunk by chunk: its type and kind, missing values, " +
			"distinct values (≈ where marked), sample values, and for numeric columns the minimum, maximum, mean, " +
			"standard deviation and skewness (exact). Duplicate rows are counted from row hashes. The same pass keeps " +
			"the uniform sample that becomes `df`: each row gets a random key and the rows with the smallest keys stay."),
		Plumbing(summaryProfileColumns, Code(profileHelpersPy+"\n\n\n"+sketchParts()+"\n\n"+constants(oocProfilePy, oocProfileConstants...)+
			profileOverviewPy+oocProfileSumPy, "profile-columns")),
		Markdown(profileAlertsMd + "\n\nOut of core, the alerts use the exact counts above, and the sample `df` " +
			"where they look at values (≈)."),
		Plumbing(summaryProfileAlerts, Code(profileAlerts(), "profile-alerts")),
		Markdown("The profile as JSON, which analyst reads to write the report and to brief the model."),
		Plumbing(summaryProfileJSON, Code(profileJSON(profileOutOfCorePy), ProfileTag)),
		Markdown(sketchMd + " Out of core, the numeric and date columns' parts were gathered chunk by chunk in " +
			"the profile's pass (each chunk's quantiles, merged), the value counts are the profile's."),
		Plumbing(summarySketch, sketchCell("", `set(out_of_core["approximate_distinct"])`, "set(sample_counts)")),
	}}
}

// oocProfileConstants are the out-of-core profile's bounds, for constants.
var oocProfileConstants = []string{"DISTINCT_K", strconv.Itoa(distinctK), "VALUE_COUNT_CAP", underscored(valueCountCap)}

// DistributionsOutOfCore is Distributions for data read out of core:
// exact statistics from the profile's pass, quantiles and correlations from
// the sample (≈), and a second pass over the file for the histograms and
// the time series.
func DistributionsOutOfCore(p *Profile, opts Options) Stage {
	if p == nil || p.OutOfCore == nil {
		return Distributions(p, opts)
	}
	sample := p.OutOfCore.SampleRows
	bound := "the sample is the whole data, so they are exact"
	if e := QuantileError(sample, p.Rows); e > 0 {
		bound = fmt.Sprintf("their rank is within ±%.2f percentage points of the one asked, with 99%% confidence", 100*e)
	}
	return distributions(p, opts, distributionsCode{
		numericMd: numericFormulasMd + "\n\nOut of core: count, missing, mean, standard deviation, minimum, maximum, " +
			"skewness and kurtosis are exact over every row; the quartiles and IQR (marked ≈) are those of the sample `df` " +
			"of " + underscoredText(sample) + " rows: " + bound + ".",
		numericPy: oocNumericStatsPy,
		secondPass: func(c Choice) []Cell {
			if len(c.Hist) == 0 && c.Date == "" {
				return nil
			}
			value := c.Value
			if c.Date == "" {
				value = ""
			}
			return []Cell{
				Markdown("A second pass over the file counts the histograms' bins (the exact minimum and maximum give " +
					"the edges) and, over time, the rows and sums per period: exact, as if the data were loaded whole."),
				Code(constants(oocPassPy, "hist_columns", pyList(c.Hist), "date_column", pyOptional(c.Date), "value_column", pyOptional(value),
					"FREQUENCY", pyOptional(c.Frequency)), "second-pass"),
			}
		},
		histDraw:        "counted_histogram",
		shareRows:       "rows",
		countedInSample: `out_of_core["sample_top_values"]`,
		missingShare:    `pd.Series({column: missing[column] / rows for column in plan["columns"]})`,
		categoricalNote: " Out of core, the counts are over every row (for columns with more than " + underscoredText(valueCountCap) + " distinct " +
			"values, over the sample `df`: ≈).",
		correlationNote: "\n\nOut of core, the correlations (≈) are those of the sample `df` of " + underscoredText(sample) + " rows.",
		missingNote:     " Out of core: over every row.",
		timeNote:        " Out of core: counted over every row in the second pass above.",
	})
}

// OnSample prefixes a stage that works on df with a note that df is the
// sample.
func OnSample(st Stage, p *Profile) Stage {
	if p == nil || p.OutOfCore == nil {
		return st
	}
	note := Markdown(fmt.Sprintf("Out of core: the charts below are drawn from the sample `df` of %s of the %s rows (≈).",
		underscoredText(p.OutOfCore.SampleRows), underscoredText(p.Rows)))
	st.Cells = append([]Cell{note}, st.Cells...)
	return st
}

// OutOfCoreNotice is the note at the top of the report of an out-of-core
// run ("" for a run that loaded the data whole).
func OutOfCoreNotice(p *Profile, o OutOfCore) string {
	if p == nil || p.OutOfCore == nil {
		return ""
	}
	why := "this run read the data out of core (--out-of-core)"
	if o.Estimate > 0 && o.Limit > 0 {
		why = fmt.Sprintf("this data did not fit in memory (estimate %s, limit %s)", bytesText(o.Estimate), bytesText(o.Limit))
	}
	return fmt.Sprintf("**Out of core:** %s. It was read %s rows at a time; the statistics marked ≈ are approximate "+
		"(quantiles, correlations, distinct counts past %s values; see the load stage for the methods and error bounds); "+
		"the model worked on a uniform sample of %s rows (`df`) plus full-data aggregates (`full`).",
		why, underscoredText(p.OutOfCore.ChunkRows), underscoredText(distinctK), underscoredText(p.OutOfCore.SampleRows))
}

// OutOfCorePrompt is the paragraph of the model's system prompt for an
// out-of-core run ("" otherwise).
func OutOfCorePrompt(p *Profile) string {
	if p == nil || p.OutOfCore == nil {
		return ""
	}
	return fmt.Sprintf("\nThe data is too big for memory: `df` is a uniform random sample of %s of its %s rows "+
		"(in file order; df.index is the row number in the file). The profile's counts are over every row. "+
		"For totals, counts and means over all rows, use `full`, which streams the whole file: "+
		"`full.count(where=None)`, `full.value_counts(column, where=None)`, "+
		"`full.aggregate(by, column)` (a DataFrame of count, sum, mean, min, max of column per group of by, a column "+
		"name or a list; by=None for all rows), and `for chunk in full.chunks(columns, where): ...` for anything else; "+
		"where is a DataFrame.query string such as \"region == 'West'\". Each call reads the file (seconds to minutes): "+
		"keep the result in a variable. Say which numbers come from the sample.\n",
		underscoredText(p.OutOfCore.SampleRows), underscoredText(p.Rows))
}

// underscored is n as a Python literal with _ between thousands.
func underscored(n int) string { return strings.ReplaceAll(underscoredText(n), ",", "_") }

// underscoredText is n with thousands separated by commas.
func underscoredText(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}
