package eda

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/examples"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

// vizAxes is the part of a chart description the visualization tests read.
type vizAxes struct {
	Kind   string
	Title  string
	XLabel string `json:"x_label"`
	YLabel string `json:"y_label"`
	Series []struct {
		Kind   string
		Counts []float64
		Boxes  []struct {
			Label            string
			Min, Median, Max float64
			Outliers         []float64
		}
	}
	XTickLabels []string `json:"x_tick_labels"`
}

// TestVisualizationStage runs the stage on the generated sales data, small
// (points and a pair plot) and above the hexbin threshold, in a real kernel:
// the charts drawn, their labels, the fitted lines against NumPy's own
// least squares, the group sizes, and the same PNG bytes when a cell runs
// again.
func TestVisualizationStage(t *testing.T) {
	dir := t.TempDir()
	// groups.csv: a, b and c by group, with answers known by hand. x: c has
	// no values; a has one outlier (100: Q1 2.75, Q3 6.25, whiskers within
	// 2.75 - 5.25 and 6.25 + 5.25). y: b's -100 (Q1 20.75, Q3 24.25: its
	// whisker stops at 20) and c's 50 (Q1 1.75, median 2.5, Q3 14.75: its
	// whisker stays at the box's top) lie beyond the whiskers. Three rows have no
	// group (their 1000s would stretch any box they were counted in).
	groups := "group,x,y\n"
	for i := range 8 {
		groups += fmt.Sprintf("a,%d,%d\n", []int{1, 2, 3, 4, 5, 6, 7, 100}[i], 10+i)
		groups += fmt.Sprintf("b,%d,%d\n", i+1, []int{20, 21, 22, 23, 24, 25, 26, -100}[i])
	}
	groups += "c,,1\nc,,2\nc,,3\nc,,50\n,1000,1000\n,1000,1000\n,1000,1000\n"
	if err := os.WriteFile(filepath.Join(dir, "groups.csv"), []byte(groups), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, rows := range map[string]int{"small.csv": 2000, "large.csv": HexbinRows + 10_000} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := examples.WriteSales(f, rows, 1); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	k := kerneltest.Start(t, func(o *kernel.Options) { o.Data = dir })
	mustRun(t, k, Setup())

	// The whole distributions stage on the small file; on the large one
	// only the chart helpers and the correlations the visualization stage
	// uses (to keep it fast).
	stage := func(t *testing.T, file string) (*Profile, Stage, stageRun) {
		mustRun(t, k, Load("/data/"+file))
		p := profileOf(t, mustRun(t, k, ProfileStage()))
		dist := Distributions(p, Options{})
		if p.Rows > HexbinRows {
			dist.Cells = slices.DeleteFunc(dist.Cells, func(c Cell) bool {
				return !slices.Contains(c.Tags, "chart-helpers") && !slices.Contains(c.Tags, "correlations")
			})
		}
		mustRun(t, k, dist)
		st := Visualization(p, Options{})
		return p, st, mustRun(t, k, st)
	}
	describe := func(t *testing.T, r stageRun) map[string][]vizAxes {
		charts := map[string][]vizAxes{} // by the chart's title
		for _, ex := range r.execs {
			for _, c := range ex.Charts() {
				var d struct{ Axes []vizAxes }
				if err := json.Unmarshal(c.Description, &d); err != nil {
					t.Fatal(err)
				}
				if c.Title == "" {
					t.Errorf("a chart has no title: %s", c.Description)
				}
				for _, ax := range d.Axes {
					if ax.Title == "" || ax.XLabel == "" || ax.YLabel == "" {
						t.Errorf("chart %q: a panel lacks a title or an axis label: %+v", c.Title, ax)
					}
				}
				charts[c.Title] = d.Axes
			}
		}
		return charts
	}
	kindsOf := func(axes []vizAxes) []string {
		var kinds []string
		for _, ax := range axes {
			for _, s := range ax.Series {
				kinds = append(kinds, ax.Kind+"/"+s.Kind)
			}
		}
		return kinds
	}

	t.Run("small", func(t *testing.T) {
		p, st, r := stage(t, "small.csv")
		v := ChooseVisualization(p, Options{})
		if v.Category != "product" || v.Date != "date" || v.Value != "revenue" || v.Hexbin {
			t.Errorf("choice %+v; want product (10 even groups), date, revenue, points", v)
		}
		// order_id is an identifier (not charted); customer_id is text.
		if !slices.Equal(v.PairPlot, []string{"units", "unit_price", "discount", "revenue"}) {
			t.Errorf("pair plot of %q", v.PairPlot)
		}
		charts := describe(t, r)
		pairs := charts["The most strongly correlated pairs of numeric columns"]
		if len(pairs) != TopPairs {
			t.Fatalf("%d pair panels, want %d (charts %q)", len(pairs), TopPairs, keys(charts))
		}
		for _, ax := range pairs {
			if k := kindsOf([]vizAxes{ax}); !slices.Equal(k, []string{"mixed/line", "mixed/scatter"}) {
				t.Errorf("pair panel %q: %q, want points and the fitted line", ax.Title, k)
			}
		}
		byProduct := charts["Numeric columns by product"]
		if len(byProduct) != MaxGroupedColumns {
			t.Fatalf("%d panels by product, want %d", len(byProduct), MaxGroupedColumns)
		}
		for _, ax := range byProduct {
			boxes := ax.Series[0].Boxes
			if ax.Kind != "box" || len(boxes) != 10 || !strings.HasSuffix(boxes[0].Label, " values") {
				t.Errorf("panel %q: kind %s, %d boxes %+v; want 10 boxes labelled with their values", ax.Title, ax.Kind, len(boxes), boxes)
			}
		}
		trend := charts["Sum of revenue per month by product"]
		if len(trend) != 1 || trend[0].Kind != "line" || len(trend[0].Series) != TrendLines+1 {
			t.Errorf("trend chart: %+v; want %d lines and other", trend, TrendLines)
		}
		pp := charts["Pair plot of the numeric columns"]
		if len(pp) != 16 {
			t.Errorf("pair plot has %d panels, want 16", len(pp))
		}

		// The printed lines are NumPy's least squares.
		var check struct {
			Fits   [][2]float64
			Polyfs [][2]float64
			Sizes  int
			Rows   int
		}
		pyValue(t, k, `print(json.dumps({
    "fits": [[slope, intercept] for x, y, r, slope, intercept, xs, ys in top_pairs],
    "polyfs": [list(np.polyfit(xs, ys, 1)) for x, y, r, slope, intercept, xs, ys in top_pairs],
    "sizes": int(group_table["rows"].sum()), "rows": int(df["product"].notna().sum())}))`, &check)
		for i := range check.Fits {
			if !near(check.Fits[i][0], check.Polyfs[i][0]) || !near(check.Fits[i][1], check.Polyfs[i][1]) {
				t.Errorf("pair %d: slope, intercept %v; np.polyfit gives %v", i, check.Fits[i], check.Polyfs[i])
			}
		}
		if check.Sizes != check.Rows {
			t.Errorf("group sizes add up to %d, want %d", check.Sizes, check.Rows)
		}
		if out := r.execs[0].Stdout(); !strings.Contains(out, "revenue ≈ ") || !strings.Contains(out, "(r = ") {
			t.Errorf("the pairs cell does not print its lines: %q", out)
		}

		// Same bytes when the cells run again.
		for i, c := range codeCells(st) {
			ex, err := k.Execute(context.Background(), c, kernel.ExecOptions{Timeout: cellTimeout})
			if err != nil || ex.Status != kernel.StatusOK {
				t.Fatalf("cell %d again: %v %v", i, err, ex.Error)
			}
			first, again := r.execs[i].Charts(), ex.Charts()
			if len(first) != len(again) {
				t.Fatalf("cell %d: %d charts, then %d", i, len(first), len(again))
			}
			for j := range first {
				if !bytes.Equal(first[j].PNG, again[j].PNG) {
					t.Errorf("cell %d chart %q: PNG bytes differ on a second run", i, first[j].Title)
				}
			}
		}
	})

	// The box plots say what they show: what n counts, a group without
	// values, rows without a group, values beyond the whiskers.
	t.Run("groups", func(t *testing.T) {
		p, st, r := stage(t, "groups.csv")
		v := ChooseVisualization(p, Options{})
		if v.Category != "group" || !slices.Equal(v.Grouped, []string{"x", "y"}) {
			t.Fatalf("choice %+v; want x and y by group", v)
		}
		var notes []string
		for _, c := range st.Cells {
			if c.Markdown {
				notes = append(notes, c.Source)
			}
		}
		if !strings.Contains(notes[0], "whiskers at the furthest values within 1.5 × IQR of the box") {
			t.Errorf("the method note does not state the whisker rule:\n%s", notes[0])
		}
		if i := slices.IndexFunc(notes, func(n string) bool { return strings.HasPrefix(n, "### By `group`") }); i < 0 ||
			!strings.Contains(notes[i], "_no values_") || !strings.Contains(notes[i], "Rows whose `group` is missing are in no group") {
			t.Errorf("no description of the box plots saying what a group without values and a missing group become: %q", notes)
		}
		var cell *kernel.Execution
		for i, c := range codeCells(st) {
			if strings.Contains(c, "group_table") {
				cell = r.execs[i]
			}
		}
		if cell == nil {
			t.Fatalf("no by-category cell among %d", len(r.execs))
		}
		for _, want := range []string{
			"3 rows have no group: they are in no group, left out of the boxes and the table.\n",
			"Values beyond the whiskers (more than 1.5 × IQR from the box), not drawn: x 1 of 16, y 2 of 20.\n",
		} {
			if !strings.Contains(cell.Stdout(), want) {
				t.Errorf("the cell printed %q; want a line %q", cell.Stdout(), want)
			}
		}
		var table map[string][]float64
		pyValue(t, k, `print(json.dumps({c: group_table[c].tolist() for c in group_table.columns if not c.startswith("median")}))`, &table)
		want := map[string][]float64{
			"rows": {8, 8, 4}, "values x": {8, 8, 0}, "beyond whiskers x": {1, 0, 0},
			"values y": {8, 8, 4}, "beyond whiskers y": {0, 1, 1},
		}
		for col, counts := range want {
			if !slices.Equal(table[col], counts) {
				t.Errorf("table column %q: %v, want %v (table %v)", col, table[col], counts, table)
			}
		}

		panels := describe(t, r)["Numeric columns by group"]
		if len(panels) != 2 {
			t.Fatalf("%d panels by group, want 2", len(panels))
		}
		x, y := panels[0], panels[1]
		if want := []string{"a\n8 values", "b\n8 values", "c\nno values"}; !slices.Equal(x.XTickLabels, want) {
			t.Errorf("x by group: ticks %q, want %q", x.XTickLabels, want)
		}
		if boxes := x.Series[0].Boxes; len(boxes) != 2 || boxes[0].Label != "a\n8 values" || boxes[1].Label != "b\n8 values" {
			t.Errorf("x by group: boxes %+v, want a and b (c has no values)", boxes)
		}
		boxes := y.Series[0].Boxes
		if len(boxes) != 3 || boxes[2].Label != "c\n4 values" || boxes[2].Median != 2.5 || boxes[2].Max != 14.75 ||
			boxes[1].Min != 20 || len(boxes[1].Outliers)+len(boxes[2].Outliers) != 0 {
			t.Errorf("y by group: boxes %+v; want c's median 2.5 and whisker 14.75, b's whisker 20 (not -100), outliers not drawn", boxes)
		}
	})

	t.Run("hexbin", func(t *testing.T) {
		p, st, r := stage(t, "large.csv")
		v := ChooseVisualization(p, Options{})
		if !v.Hexbin || v.PairPlot != nil {
			t.Errorf("choice %+v; want hexagonal bins and no pair plot", v)
		}
		for _, c := range st.Cells {
			if !c.Markdown && strings.Contains(c.Source, "pairplot_columns") {
				t.Error("a pair plot cell for 60,000 rows")
			}
		}
		for _, ax := range describe(t, r)["The most strongly correlated pairs of numeric columns"] {
			k := kindsOf([]vizAxes{ax})
			if !slices.Equal(k, []string{"mixed/hexbin", "mixed/line"}) {
				t.Errorf("pair panel %q: %q, want hexagonal bins and the fitted line", ax.Title, k)
				continue
			}
			var total float64
			for _, n := range ax.Series[0].Counts {
				total += n
			}
			if total < 0.9*float64(p.Rows) || total > float64(p.Rows) {
				t.Errorf("pair panel %q: the hexagons count %v rows of %d", ax.Title, total, p.Rows)
			}
		}
	})
}

func codeCells(st Stage) []string {
	var code []string
	for _, c := range st.Cells {
		if !c.Markdown {
			code = append(code, c.Source)
		}
	}
	return code
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Without a category, numeric pairs or dates the stage says what it left
// out and why, in its method note.
func TestVisualizationChoiceNotes(t *testing.T) {
	p := &Profile{Rows: 10, Columns: 2, ColumnInfo: []Column{
		{Name: "x", Kind: KindNumeric, Distinct: 10},
		{Name: "name", Kind: KindCategorical, Distinct: 40},
	}}
	st := Visualization(p, Options{})
	if len(st.Cells) != 1 {
		t.Fatalf("%d cells, want the method note only", len(st.Cells))
	}
	note := st.Cells[0].Source
	for _, want := range []string{"fewer than two numeric columns", "no categorical column has 2 to 12 distinct values",
		"it needs a date column", "not drawn here"} {
		if !strings.Contains(note, want) {
			t.Errorf("method note lacks %q:\n%s", want, note)
		}
	}
	if c := ChooseVisualization(p, Options{}); c.Category != "" || c.PairPlot != nil {
		t.Errorf("choice %+v", c)
	}
}

func TestVisualizationCategoryRule(t *testing.T) {
	top := func(counts ...int) []TopValue {
		var out []TopValue
		for _, n := range counts {
			out = append(out, TopValue{Count: n})
		}
		return out
	}
	p := &Profile{Rows: 100, Columns: 5, ColumnInfo: []Column{
		{Name: "skewed", Kind: KindCategorical, Distinct: 4, Top: top(97, 1, 1, 1)},
		{Name: "even", Kind: KindCategorical, Distinct: 3, Top: top(34, 33, 33)},
		{Name: "many", Kind: KindCategorical, Distinct: 30, Top: top(4, 4, 4, 4)},
		{Name: "missing", Kind: KindCategorical, Distinct: 5, MissingShare: 0.6, Top: top(8, 8, 8, 8, 8)},
		{Name: "flag", Kind: KindBoolean, Distinct: 2, Top: top(50, 50)},
	}}
	if got := ChooseVisualization(p, Options{}).Category; got != "even" {
		t.Errorf("category %q, want even (3 balanced groups beat 4 skewed ones and 2 balanced ones)", got)
	}
}
