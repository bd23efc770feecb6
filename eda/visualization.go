package eda

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// StageVisualization is the deterministic visualization stage: the charts an
// analyst draws after the distributions, chosen from the profile by fixed
// rules (see ChooseVisualization).
const StageVisualization = "visualization"

// Bounds of the visualization stage.
const (
	// TopPairs is how many of the most correlated pairs are drawn.
	TopPairs = 3
	// HexbinRows: a pair with more complete rows than this is drawn as
	// hexagonal bins, not points (a scatter of more points is one blot).
	HexbinRows = 50_000
	// MaxGroups: a category with more distinct values is too many boxes
	// to compare.
	MaxGroups = 12
	// MaxGroupedColumns bounds the numeric columns drawn by category.
	MaxGroupedColumns = 4
	// TrendLines is how many groups get their own line over time; the
	// rest are summed as "other".
	TrendLines = 6
	// Pair plot: frames of at most PairPlotRows rows, of the first
	// PairPlotColumns numeric columns (by the most distinct values).
	PairPlotRows    = 5_000
	PairPlotColumns = 5
)

var (
	vizPairsPy    = pyFileWhole("viz_pairs.py")
	vizGroupsPy   = pyFileWhole("viz_groups.py")
	vizTimePy     = pyFileWhole("viz_time.py")
	vizPairPlotPy = pyFileWhole("viz_pairplot.py")
)

// VisualizationChoice is what the visualization stage draws.
type VisualizationChoice struct {
	Pairs         []string // numeric columns whose pairs are ranked by |r| (the correlation columns)
	Hexbin        bool     // more than HexbinRows rows: pairs may be drawn as hexagonal bins
	Category      string   // the grouping column, "" for none
	Grouped       []string // numeric columns drawn by Category
	GroupedLeft   []string // numeric candidates not drawn by Category
	Date          string   // metric over time by Category: the date, "" for none
	Value         string   // the numeric column summed per period
	Frequency     string
	Span          string
	PairPlot      []string // columns of the pair plot, nil for none
	PairPlotLeft  []string
	NoCategoryWhy string // why there is no grouping column, when there is none
}

// ChooseVisualization picks what the visualization stage draws, by fixed
// rules (the stage's first markdown cell states them):
//
//   - pairs: every pair of the correlation columns (Choose), ranked by
//     |Pearson r| in the cell; the TopPairs strongest are drawn;
//   - category: among categorical and boolean columns that are not
//     identifiers, have 2 to MaxGroups distinct values and at most half
//     missing, the one whose most frequent values split the rows most evenly
//     (highest entropy of their shares: more groups, balanced, compare
//     best); ties keep the file's order;
//   - grouped columns: the MaxGroupedColumns numeric columns with the most
//     distinct values (as for histograms);
//   - over time: the distributions' date, value and period, by category;
//   - pair plot: frames of at most PairPlotRows rows with 3 or more numeric
//     columns, the PairPlotColumns with the most distinct values.
func ChooseVisualization(p *Profile, opts Options) VisualizationChoice {
	c := Choose(p, opts)
	v := VisualizationChoice{Pairs: c.Correlation, Hexbin: p.Rows > HexbinRows}
	ids := map[string]bool{}
	for _, a := range p.Alerts {
		if a.Type == AlertUniqueID {
			ids[a.Column] = true
		}
	}
	best := -1.0
	for _, col := range p.ColumnInfo {
		if (col.Kind != KindCategorical && col.Kind != KindBoolean) || ids[col.Name] ||
			col.Distinct < 2 || col.Distinct > MaxGroups || col.MissingShare > 0.5 {
			continue
		}
		if h := entropy(col); h > best {
			best, v.Category = h, col.Name
		}
	}
	if v.Category == "" {
		v.NoCategoryWhy = fmt.Sprintf("no categorical column has 2 to %d distinct values with at most half of them missing", MaxGroups)
	}
	ranked := rankedNumeric(p, c)
	order := map[string]int{}
	for i, col := range p.ColumnInfo {
		order[col.Name] = i
	}
	if v.Category != "" {
		v.Grouped, v.GroupedLeft = split(ranked, MaxGroupedColumns, order)
		if c.Date != "" && c.Value != "" {
			v.Date, v.Value, v.Frequency, v.Span = c.Date, c.Value, c.Frequency, c.Span
		}
	}
	if p.Rows <= PairPlotRows && len(ranked) >= 3 {
		v.PairPlot, v.PairPlotLeft = split(ranked, PairPlotColumns, order)
	}
	return v
}

// rankedNumeric lists the charted numeric columns (c.Hist and
// c.HistLeftOut), most distinct values first, ties in the file's order.
func rankedNumeric(p *Profile, c Choice) []Column {
	charted := map[string]bool{}
	for _, name := range append(append([]string{}, c.Hist...), c.HistLeftOut...) {
		charted[name] = true
	}
	var cols []Column
	for _, col := range p.ColumnInfo {
		if charted[col.Name] {
			cols = append(cols, col)
		}
	}
	sort.SliceStable(cols, func(i, j int) bool { return cols[i].Distinct > cols[j].Distinct })
	return cols
}

// entropy of the shares of a column's most frequent values (renormalised
// to sum to 1); without them, the log of its distinct count.
func entropy(col Column) float64 {
	var total float64
	for _, t := range col.Top {
		total += float64(t.Count)
	}
	if total == 0 {
		return math.Log(float64(col.Distinct))
	}
	var h float64
	for _, t := range col.Top {
		if s := float64(t.Count) / total; s > 0 {
			h -= s * math.Log(s)
		}
	}
	return h
}

// Visualization draws the charts an analyst looks at after the
// distributions: the most correlated pairs with their least-squares lines,
// numeric columns by the most useful category, a metric over time by that
// category, and a pair plot of small frames. It runs after Distributions
// (it uses its chart helpers).
func Visualization(p *Profile, opts Options) Stage {
	st := Stage{Name: StageVisualization, Title: "Visualization"}
	add := func(cells ...Cell) { st.Cells = append(st.Cells, cells...) }
	if p == nil || p.Rows == 0 {
		add(Markdown("There is no data profile, so there are no charts of relationships."))
		return st
	}
	v := ChooseVisualization(p, opts)
	add(Markdown(visualizationMethodMd(v)))

	if len(v.Pairs) >= 2 {
		add(Markdown(pairsMd))
		// The pairs are the correlation columns: with the data in memory, the
		// correlations cell already computed their Pearson r over df; out of
		// core, df here is a sample and pearson was computed from every row.
		pearson := `pearson  # the correlations cell's Pearson r: the same columns, over the same df`
		if p.OutOfCore != nil {
			pearson = `df[pair_columns].corr(method="pearson")`
		}
		add(Code(constants(constants(vizPairsPy, vizPairsConstants...), "pair_columns", pyList(v.Pairs), "pair_r", pearson), "viz-pairs"))
	}
	if v.Category != "" && len(v.Grouped) > 0 {
		var left string
		if len(v.GroupedLeft) > 0 {
			left = fmt.Sprintf(" Not drawn by %s (%d): %s.", mdCode(v.Category), len(v.GroupedLeft), mdList(v.GroupedLeft))
		}
		add(Markdown(fmt.Sprintf("### By %s\n\nEach numeric column by %s: per group its median, quartiles $Q(0.25)$ and "+
			"$Q(0.75)$ (the box), and whiskers to the furthest values within $1.5\\,\\mathrm{IQR}$ of the box; values beyond "+
			"the whiskers are not drawn (with many rows they would hide the boxes) but counted. Under each box is the number "+
			"of values it is drawn from: the group's rows with a finite value of the column (a group without any is marked "+
			"_no values_ and keeps its place). The table gives, largest group first, each group's _rows_ and, per column, "+
			"its _values_ (the number under the box), _median_ (of its non-missing values) and how many values lie _beyond "+
			"whiskers_; the cell prints the totals. Rows whose %s is missing are in no group and left out; the cell prints "+
			"how many when there are any.%s",
			mdCode(v.Category), mdCode(v.Category), mdCode(v.Category), left)))
		add(Code(constants(vizGroupsPy, "group_column", pyString(v.Category), "group_values", pyList(v.Grouped)), "viz-by-category"))
	}
	if v.Date != "" {
		word := periodWords[v.Frequency]
		add(Markdown(fmt.Sprintf("### %s over time by %s\n\nThe sum of %s per %s, one line per value of %s (the %d with the "+
			"most rows; the others summed as \"other\"). Rows without a date are left out; missing values count as 0.",
			mdCode(v.Value), mdCode(v.Category), mdCode(v.Value), word, mdCode(v.Category), TrendLines)))
		add(Code(constants(vizTimePy, "trend_date", pyString(v.Date), "trend_value", pyString(v.Value),
			"trend_group", pyString(v.Category), "TREND_FREQUENCY", pyString(v.Frequency), "TREND_WORD", pyString(word),
			"TREND_LINES", strconv.Itoa(TrendLines)), "viz-over-time"))
	}
	if len(v.PairPlot) > 0 {
		var left string
		if len(v.PairPlotLeft) > 0 {
			left = fmt.Sprintf(" Left out (%d): %s.", len(v.PairPlotLeft), mdList(v.PairPlotLeft))
		}
		add(Markdown("### Pair plot\n\nEvery pair of the numeric columns as points, each column's histogram on the " +
			"diagonal: with few rows, the whole picture at once." + left))
		add(Code(constants(vizPairPlotPy, "pairplot_columns", pyList(v.PairPlot)), "viz-pair-plot"))
	}
	return st
}

// vizPairsConstants are the pairs cell's bounds, for constants.
var vizPairsConstants = []string{"TOP_PAIRS", strconv.Itoa(TopPairs), "HEXBIN_ROWS", fmt.Sprintf("%d_%03d", HexbinRows/1000, HexbinRows%1000)}

// visualizationMethodMd is the stage's method note: which charts, chosen how.
func visualizationMethodMd(v VisualizationChoice) string {
	var b strings.Builder
	b.WriteString("The charts an analyst draws after the distributions, chosen from the profile by fixed rules:\n\n")
	if len(v.Pairs) < 2 {
		b.WriteString("- **Correlated pairs**: not drawn: fewer than two numeric columns to correlate.\n")
	} else {
		fmt.Fprintf(&b, "- **Correlated pairs**: every pair of the correlated numeric columns is ranked by $|r|$ (Pearson); "+
			"the %d strongest are drawn with their least-squares line, as points, or as hexagonal bins counting rows "+
			"when a pair has more than %s rows. The table lists the 20 strongest; weaker ones are counted.\n", TopPairs, thousands(HexbinRows))
	}
	if v.Category != "" {
		fmt.Fprintf(&b, "- **By category**: %s, of the categorical columns with 2 to %d distinct values (not identifiers, at most "+
			"half missing), is the one whose values split the rows most evenly (highest entropy of the shares of its "+
			"values): more, balanced groups compare best. The %d numeric columns with the most distinct values are drawn "+
			"by it as box plots: whiskers at the furthest values within 1.5 × IQR of the box (Tukey's rule); values beyond "+
			"them are counted per group, not drawn; rows with no %s are left out and counted.\n",
			mdCode(v.Category), MaxGroups, MaxGroupedColumns, mdCode(v.Category))
	} else {
		fmt.Fprintf(&b, "- **By category**: not drawn: %s.\n", v.NoCategoryWhy)
	}
	switch {
	case v.Date != "":
		fmt.Fprintf(&b, "- **Over time**: the sum of %s per period of %s, one line per value of %s.\n",
			mdCode(v.Value), mdCode(v.Date), mdCode(v.Category))
	default:
		b.WriteString("- **Over time**: not drawn: it needs a date column, a numeric column and a category.\n")
	}
	if len(v.PairPlot) > 0 {
		fmt.Fprintf(&b, "- **Pair plot**: drawn because the data has at most %s rows and 3 or more numeric columns (the %d "+
			"with the most distinct values).\n", thousands(PairPlotRows), PairPlotColumns)
	} else {
		fmt.Fprintf(&b, "- **Pair plot**: only for data of at most %s rows with 3 or more numeric columns; not drawn here.\n",
			thousands(PairPlotRows))
	}
	return b.String()
}

// thousands writes n with comma separators.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

const pairsMd = `### Correlated pairs

For each pair drawn, the least-squares line $\hat{y} = a + b\,x$ over the rows where both values are present, with Pearson's $r_{xy}$ (formula above), the sample standard deviations $s_x$, $s_y$ and the means $\bar{x}$, $\bar{y}$:
$$b = r_{xy}\,\frac{s_y}{s_x}, \qquad a = \bar{y} - b\,\bar{x}$$

The cell prints each line as $y \approx a + b \times x$ with its $r$ and $n$.`
