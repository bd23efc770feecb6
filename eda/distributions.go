package eda

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Options tune the distributions stage.
type Options struct {
	// MaxChartColumns bounds the numeric columns drawn as histograms and the
	// categorical columns drawn as bar charts (default 12 each).
	MaxChartColumns int
	// MaxCorrelationColumns bounds the numeric columns in the correlation
	// matrices and heatmaps (default 30): those with the strongest
	// correlation with another column. The profile's high_correlation alert
	// checks every numeric column whatever this is.
	MaxCorrelationColumns int
	// TopValues is how many of the most frequent values of each categorical
	// column are tabulated and charted (default 10).
	TopValues int
	// MaxMissingColumns bounds the bars of the missingness chart (default 40;
	// the table lists every column with missing values).
	MaxMissingColumns int
}

// Defaults of Options.
const (
	DefaultMaxChartColumns       = 12
	DefaultMaxCorrelationColumns = 30
	DefaultTopValues             = 10
	DefaultMaxMissingColumns     = 40
)

// annotateMax is the largest correlation matrix whose heatmap shows its
// values in the cells; past it the numbers would not fit.
const annotateMax = 12

// idMinRows is the least number of rows for which an all-distinct integer
// column counts as an identifier and is left out of the charts: in a few
// dozen rows, measurements are often all distinct too.
const idMinRows = 100

func (o Options) withDefaults() Options {
	if o.MaxChartColumns <= 0 {
		o.MaxChartColumns = DefaultMaxChartColumns
	}
	if o.MaxCorrelationColumns <= 0 {
		o.MaxCorrelationColumns = DefaultMaxCorrelationColumns
	}
	if o.TopValues <= 0 {
		o.TopValues = DefaultTopValues
	}
	if o.MaxMissingColumns <= 0 {
		o.MaxMissingColumns = DefaultMaxMissingColumns
	}
	return o
}

// Choice is what the distributions stage looks at, chosen from a profile.
// Column lists are in the file's order.
type Choice struct {
	Numeric     []string // summary statistics: every numeric column
	Hist        []string // histograms
	HistLeftOut []string // numeric columns that qualified for a histogram but were not drawn
	NotCharted  []string // numeric columns never charted: identifiers, codes, constant or empty
	Categorical []string // top-values table: categorical and boolean columns, not identifiers
	Bars        []string // bar charts of the top values
	BarsLeftOut []string
	Correlation []string // correlation matrices
	CorrLeftOut []string
	Missing     []string // missingness chart, most missing first
	MissingLeft []string
	AnyMissing  bool
	Date        string // time series: the datetime column, "" for none
	Value       string // time series: the numeric column summed per period, "" for none
	Frequency   string // pandas offset alias, periods labelled by their start: h, D, W-MON, MS, YS
	Span        string // how long the dates span, in words
}

// Choose picks the columns each part of the distributions stage shows.
//
// Informativeness rule: a numeric column is more informative the more
// distinct non-missing values it has (a richer distribution); identifiers
// (a different integer or text value in every row, among 100 rows or more
// for integers), codes (the profile's identifier alert: named like zip,
// id, code, whole numbers), constant and empty columns are never charted. Categorical columns with at most 50 distinct
// values come first for bar charts (their top values cover most rows),
// then by the same rule. The correlation matrices take the columns with the
// strongest correlation with another column (the profile's max_correlation),
// then the most distinct values. Ties keep the file's order. Chosen columns
// are shown in the file's order.
func Choose(p *Profile, opts Options) Choice {
	opts = opts.withDefaults()
	ids, codes := map[string]bool{}, map[string]bool{}
	for _, a := range p.Alerts {
		switch a.Type {
		case AlertUniqueID:
			ids[a.Column] = true
		case AlertIdentifier:
			codes[a.Column] = true
		}
	}
	var c Choice
	var numCand, catCand, corrCand, missing []Column
	order := map[string]int{}
	for i, col := range p.ColumnInfo {
		order[col.Name] = i
		if col.Missing > 0 {
			c.AnyMissing = true
			missing = append(missing, col)
		}
		switch col.Kind {
		case KindNumeric:
			c.Numeric = append(c.Numeric, col.Name)
			if (ids[col.Name] && p.Rows >= idMinRows) || codes[col.Name] || col.Distinct < 2 {
				c.NotCharted = append(c.NotCharted, col.Name)
				continue
			}
			numCand = append(numCand, col)
			corrCand = append(corrCand, col)
		case KindCategorical, KindBoolean:
			if ids[col.Name] {
				continue
			}
			c.Categorical = append(c.Categorical, col.Name)
			if col.Distinct >= 2 {
				catCand = append(catCand, col)
			}
		case KindDatetime:
			if c.Date == "" || col.Distinct > p.ColumnInfo[order[c.Date]].Distinct {
				c.Date = col.Name
			}
		}
	}
	byDistinct := func(cols []Column) {
		sort.SliceStable(cols, func(i, j int) bool { return cols[i].Distinct > cols[j].Distinct })
	}
	byDistinct(numCand)
	byDistinct(corrCand)
	sort.SliceStable(corrCand, func(i, j int) bool { return maxCorr(corrCand[i]) > maxCorr(corrCand[j]) })
	byDistinct(catCand)
	sort.SliceStable(catCand, func(i, j int) bool {
		return catCand[i].Distinct <= highCardinality && catCand[j].Distinct > highCardinality
	})
	sort.SliceStable(missing, func(i, j int) bool { return missing[i].MissingShare > missing[j].MissingShare })

	c.Hist, c.HistLeftOut = split(numCand, opts.MaxChartColumns, order)
	c.Bars, c.BarsLeftOut = split(catCand, opts.MaxChartColumns, order)
	c.Correlation, c.CorrLeftOut = split(corrCand, opts.MaxCorrelationColumns, order)
	if len(c.Correlation) < 2 {
		c.Correlation, c.CorrLeftOut = nil, nil
	}
	for i, col := range missing {
		if i < opts.MaxMissingColumns {
			c.Missing = append(c.Missing, col.Name)
		} else {
			c.MissingLeft = append(c.MissingLeft, col.Name)
		}
	}
	if c.Date != "" {
		if len(numCand) > 0 {
			c.Value = numCand[0].Name
		}
		d := p.ColumnInfo[order[c.Date]]
		c.Frequency, c.Span = frequency(d.MinDate, d.MaxDate)
	}
	return c
}

func maxCorr(c Column) float64 {
	if c.MaxCorrelation == nil {
		return 0
	}
	return *c.MaxCorrelation
}

// split keeps the first n of ranked columns, each part in the file's order.
func split(ranked []Column, n int, order map[string]int) (kept, left []string) {
	for i, col := range ranked {
		if i < n {
			kept = append(kept, col.Name)
		} else {
			left = append(left, col.Name)
		}
	}
	byFile := func(names []string) {
		sort.SliceStable(names, func(i, j int) bool { return order[names[i]] < order[names[j]] })
	}
	byFile(kept)
	byFile(left)
	return kept, left
}

// frequency picks a resampling frequency that gives a readable number of
// points (roughly 12 to 150) for dates from min to max (ISO 8601). Every
// alias labels a period by its start (weeks start on Monday).
func frequency(minDate, maxDate string) (alias, span string) {
	lo, err1 := parseISO(minDate)
	hi, err2 := parseISO(maxDate)
	if err1 != nil || err2 != nil {
		return "MS", "an unknown span"
	}
	d := hi.Sub(lo)
	days := d.Hours() / 24
	switch {
	case days <= 3:
		return "h", fmt.Sprintf("%.1f hours", d.Hours())
	case days <= 120:
		return "D", fmt.Sprintf("%.0f days", days)
	case days <= 400:
		return "W-MON", fmt.Sprintf("%.0f days", days)
	case days <= 365.25*15:
		return "MS", fmt.Sprintf("%.1f years", days/365.25)
	default:
		return "YS", fmt.Sprintf("%.0f years", days/365.25)
	}
}

func parseISO(s string) (time.Time, error) {
	var err error
	for _, layout := range []string{"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		var t time.Time
		if t, err = time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, err
}

// periodWords names the periods of each frequency.
var periodWords = map[string]string{"h": "hour", "D": "day", "W-MON": "week", "MS": "month", "YS": "year"}

// Distributions studies the distribution of every column the profile p
// describes: summary statistics, top values, correlations and missingness,
// each introduced by its formula, and the charts an analyst looks at first.
// Columns are chosen in Go (see Choose) and written into the code, so the
// notebook reads, and re-runs, without analyst.
func Distributions(p *Profile, opts Options) Stage { return distributions(p, opts, inMemoryCode) }

// distributionsCode is the code of the distributions stage, and its notes:
// over df in memory, or out of core (see DistributionsOutOfCore).
type distributionsCode struct {
	numericMd, numericPy string
	// Values of the templates' constants: the function that draws a
	// histogram (draw_histogram), the top values' shares' denominator
	// (SHARE_ROWS) and the columns counted in the sample instead
	// (COUNTED_IN_SAMPLE), the missing shares (missing_share).
	histDraw, shareRows, countedInSample, missingShare string
	// countsPerPeriod: the time series cell counts the periods itself (else
	// a second pass did: only its chart is drawn).
	countsPerPeriod bool
	// secondPass, if set, gives the cells that read the file again before
	// the charts.
	secondPass func(c Choice) []Cell
	// Notes added to sections' markdown.
	categoricalNote, correlationNote, missingNote, timeNote string
}

var inMemoryCode = distributionsCode{numericMd: numericFormulasMd, numericPy: numericStatsPy,
	histDraw: "values_histogram", shareRows: "len(df)", countedInSample: "[]", countsPerPeriod: true,
	// The profile counted each column's missing values: not counted again.
	missingShare:    `pd.Series({c["name"]: c["missing"] / rows for c in column_info}, dtype=float)`,
	categoricalNote: " The counts are the profile's: `value_counts[column]` is `df[column].value_counts()`."}

// chartHelpersConstants is the histograms' bin count, for constants.
var chartHelpersConstants = []string{"HIST_BINS", strconv.Itoa(histBins)}

var (
	chartHelpersPy    = pyFile("chart_helpers.py")
	numericStatsPy    = pyFile("numeric_stats.py")
	histPy            = pyFile("hist.py")
	topValuesPy       = pyFile("top_values.py")
	barsPy            = pyFile("bars.py")
	correlationPy     = pyFile("correlation.py")
	missingPy         = pyFile("missing.py")
	timeSeriesPy      = pyFile("time_series.py")
	timeSeriesChartPy = pyFile("time_series_chart.py")
)

func distributions(p *Profile, opts Options, code distributionsCode) Stage {
	opts = opts.withDefaults()
	st := Stage{Name: StageDistributions, Title: "Distributions"}
	if p == nil || p.Rows == 0 {
		st.Cells = append(st.Cells, Markdown("There is no data profile, so the distributions were not studied."))
		return st
	}
	c := Choose(p, opts)
	for _, section := range [][]Cell{
		chartHelperCells(),
		numericCells(c, code),
		categoricalCells(c, opts, code),
		correlationCells(c, code),
		missingCells(c, code),
		timeSeriesCells(c, code),
	} {
		st.Cells = append(st.Cells, section...)
	}
	return st
}

// chartHelperCells define the helpers the charts below use.
func chartHelperCells() []Cell {
	return []Cell{
		Markdown("Helpers for the charts below: chart text is cut to a readable length, with `$` escaped " +
			"(matplotlib would read `$...$` as math); panels are laid out in a grid; dates are bucketed into periods by " +
			"integer period numbers, and sums per period taken by pandas' groupby (the same numbers as resample, without sorting the dates); " +
			"hexagonal bins are counted a block of rows at a time with hexbin's own arithmetic, and boxes get the quartiles and whiskers " +
			"matplotlib's boxplot_stats gives (the same charts, with less memory and time)."),
		Plumbing(summaryChartHelpers, Code(constants(chartHelpersPy, chartHelpersConstants...), "chart-helpers")),
	}
}

// numericCells are the numeric summary (and its second pass, out of core)
// and the histograms.
func numericCells(c Choice, code distributionsCode) []Cell {
	var cells []Cell
	add := func(more ...Cell) { cells = append(cells, more...) }
	if len(c.Numeric) > 0 {
		add(Markdown(code.numericMd))
		add(Code(constants(code.numericPy, "numeric_columns", pyList(c.Numeric)), "numeric-stats"))
	} else {
		add(Markdown("### Numeric columns\n\nThe data has no numeric columns, so there are no summary statistics or histograms."))
	}
	if code.secondPass != nil {
		add(code.secondPass(c)...)
	}
	if len(c.Hist) > 0 {
		add(Markdown(chartChoiceMd(fmt.Sprintf("Histograms show how the values of each numeric column spread: %[1]d equal-width bins "+
			"(for integer columns, at most %[1]d bins of whole numbers, centred on the values), missing values left out.", histBins),
			"numeric", c.Hist, c.HistLeftOut, c.NotCharted,
			"they are identifiers or codes (the profile's unique_id and identifier alerts), constant or empty")))
		add(Code(constants(histPy, "hist_columns", pyList(c.Hist), "draw_histogram", code.histDraw), "histograms"))
	}
	return cells
}

// categoricalCells are the top values of the categorical columns and their
// bar charts.
func categoricalCells(c Choice, opts Options, code distributionsCode) []Cell {
	if len(c.Categorical) == 0 {
		return nil
	}
	cells := []Cell{
		Markdown(fmt.Sprintf("### Categorical columns\n\nThe %d most frequent values of each categorical column, with their count and share:\n\n"+
			"$$\\text{share}(v) = \\frac{\\#\\{\\, i : x_i = v \\,\\}}{n}$$\n\n"+
			"where $n$ counts every row, missing values included, so the shares of a column and its missing "+
			"share add up to at most 1.%s", opts.TopValues, code.categoricalNote)),
		Code(constants(topValuesPy, "TOP_CATEGORIES", strconv.Itoa(opts.TopValues), "categorical_columns", pyList(c.Categorical),
			"SHARE_ROWS", code.shareRows, "COUNTED_IN_SAMPLE", code.countedInSample), "top-values"),
	}
	if len(c.Bars) > 0 {
		cells = append(cells,
			Markdown(chartChoiceMd(fmt.Sprintf("Bar charts of the %d most frequent values.", opts.TopValues),
				"categorical", c.Bars, c.BarsLeftOut, nil, "")),
			Code(constants(barsPy, "bar_columns", pyList(c.Bars)), "top-value-bars"))
	}
	return cells
}

// correlationCells are the correlation matrices and their heatmaps.
func correlationCells(c Choice, code distributionsCode) []Cell {
	if len(c.Correlation) == 0 {
		return nil
	}
	var note string
	if len(c.CorrLeftOut) > 0 {
		note = fmt.Sprintf("\n\nOnly the %d numeric columns most strongly correlated with another column "+
			"(largest |Pearson r|, as the profile computed it over every pair) are shown; left out: %s.",
			len(c.Correlation), mdList(c.CorrLeftOut))
	}
	annotate := pyBool(len(c.Correlation) <= annotateMax)
	return []Cell{
		Markdown(correlationFormulasMd + code.correlationNote),
		Markdown("Pearson and Spearman correlation matrices of the numeric columns (identifiers, codes and constant " +
			"columns excluded), and their heatmaps." + note),
		Code(constants(correlationPy, "correlation_columns", pyList(c.Correlation), "ANNOTATE", annotate), "correlations"),
	}
}

// missingCells are the missing share of each column and its chart, or a
// note that nothing is missing.
func missingCells(c Choice, code distributionsCode) []Cell {
	if !c.AnyMissing {
		return []Cell{Markdown("### Missing values\n\nNo value is missing in any column, so there is no missingness chart.")}
	}
	var note string
	if len(c.MissingLeft) > 0 {
		note = fmt.Sprintf(" The chart shows the %d columns with the largest share missing; the table lists all; "+
			"left out of the chart: %s.", len(c.Missing), mdList(c.MissingLeft))
	}
	return []Cell{
		Markdown("### Missing values\n\nThe share of missing values per column:\n\n" +
			"$$\\text{missing share} = \\frac{1}{n}\\sum_{i=1}^{n} \\mathbf{1}[x_i \\text{ is missing}]$$\n\n" +
			"The table lists every column with missing values, most missing first; the bar chart draws them." + note + code.missingNote),
		Code(constants(missingPy, "missing_share", code.missingShare, "missing_columns", pyList(c.Missing)), "missingness"),
	}
}

// timeSeriesCells are the rows (and a value's sum) per period of the date
// column, when there is one.
func timeSeriesCells(c Choice, code distributionsCode) []Cell {
	if c.Date == "" {
		return nil
	}
	word := periodWords[c.Frequency]
	what := "the number of rows"
	if c.Value != "" {
		what += " and the sum of " + mdCode(c.Value) + " (the numeric column with the most distinct values)"
	}
	md := Markdown(fmt.Sprintf("### Over time\n\nA time series over %s: %s per %s. The dates span %s, so a %s gives a readable "+
		"number of points. Rows without a date are left out; missing values count as 0 in the sums.%s",
		mdCode(c.Date), what, word, c.Span, word, code.timeNote))
	src := constants(timeSeriesChartPy, "PERIOD_WORD", pyString(word))
	if code.countsPerPeriod {
		src = constants(timeSeriesPy, "date_column", pyString(c.Date), "value_column", pyOptional(c.Value),
			"FREQUENCY", pyString(c.Frequency)) + "\n" + src
	}
	return []Cell{md, Code(src, "time-series")}
}

// chartChoiceMd explains what a chart shows and which columns it left out.
func chartChoiceMd(intro, kind string, charted, leftOut, never []string, neverWhy string) string {
	var b strings.Builder
	b.WriteString(intro)
	if len(leftOut) > 0 {
		rule := "with the most distinct non-missing values"
		if kind == "categorical" {
			rule = fmt.Sprintf("ranked first by having 2 to %d distinct values, then by the most distinct values", highCardinality)
		}
		fmt.Fprintf(&b, "\n\nThe data has more %s columns than fit: the %d %s columns %s were charted; left out (%d): %s.",
			kind, len(charted), kind, rule, len(leftOut), mdList(leftOut))
	}
	if len(never) > 0 {
		fmt.Fprintf(&b, "\n\nNot charted because %s: %s.", neverWhy, mdList(never))
	}
	return b.String()
}

const numericFormulasMd = `### Numeric columns

Summary statistics of the numeric columns, as pandas computes them. For a column with $n$ non-missing values $x_1, \dots, x_n$ (missing values are left out of every statistic):

Mean:
$$\bar{x} = \frac{1}{n}\sum_{i=1}^{n} x_i$$

Sample standard deviation (divides by $n-1$):
$$s = \sqrt{\frac{1}{n-1}\sum_{i=1}^{n}\left(x_i - \bar{x}\right)^2}$$

Quantile $Q(p)$ by linear interpolation between the sorted values $x_{(1)} \le \dots \le x_{(n)}$, with $h = (n-1)\,p + 1$:
$$Q(p) = x_{(\lfloor h \rfloor)} + \left(h - \lfloor h \rfloor\right)\left(x_{(\lfloor h \rfloor + 1)} - x_{(\lfloor h \rfloor)}\right)$$
The quartiles are $Q(0.25)$, the median $Q(0.5)$ and $Q(0.75)$.

Interquartile range:
$$\mathrm{IQR} = Q(0.75) - Q(0.25)$$

Skewness, the adjusted Fisher–Pearson coefficient $G_1$, with the central moments $m_k = \frac{1}{n}\sum_{i=1}^{n}(x_i - \bar{x})^k$ (needs $n \ge 3$):
$$G_1 = \frac{\sqrt{n(n-1)}}{n-2}\,\frac{m_3}{m_2^{3/2}}$$

Excess kurtosis $G_2$ (0 for a normal distribution; needs $n \ge 4$):
$$G_2 = \frac{n-1}{(n-2)(n-3)}\left[(n+1)\,\frac{m_4}{m_2^2} - 3(n-1)\right]$$

The table shows six significant digits (all digits before the decimal point); the values in ` + "`numeric_stats`" + ` keep full precision.`

const correlationFormulasMd = `### Correlations

Correlations between numeric columns, over the rows where both values are present ($n$ pairs).

Pearson's $r$ measures how well a straight line relates $x$ and $y$:
$$r_{xy} = \frac{\sum_{i=1}^{n}(x_i - \bar{x})(y_i - \bar{y})}{\sqrt{\sum_{i=1}^{n}(x_i - \bar{x})^2}\,\sqrt{\sum_{i=1}^{n}(y_i - \bar{y})^2}}$$

Spearman's $\rho$ measures how well any increasing (or decreasing) relation does: it is Pearson's $r$ of the ranks, where tied values share the average of their ranks:
$$\rho_{xy} = r_{\operatorname{rank}(x)\,\operatorname{rank}(y)}$$

Each column is ranked once, over all its non-missing values. Where a pair of columns has missing values in different rows, this differs slightly from ranking only the rows both have (what ` + "`df.corr(method=\"spearman\")`" + ` does, at the cost of ranking every pair again).`
