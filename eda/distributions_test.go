package eda

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// wideProfile describes n columns: every third categorical, the rest
// numeric with distinct counts that rank them, one identifier, one
// constant, one date column, and missing values in some.
func wideProfile(n int) *Profile {
	p := &Profile{Rows: 1000, Columns: n}
	for i := range n {
		c := Column{Name: fmt.Sprintf("c%03d", i), Kind: KindNumeric, Distinct: 10 + i}
		switch {
		case i == 0:
			c.Distinct = 1000
			p.Alerts = append(p.Alerts, Alert{Type: AlertUniqueID, Column: c.Name})
		case i == 1:
			c.Distinct = 1
		case i == 2:
			c.Kind, c.Distinct, c.MinDate, c.MaxDate = KindDatetime, 365, "2023-01-01T00:00:00", "2023-12-31T00:00:00"
		case i%3 == 0:
			c.Kind, c.Distinct = KindCategorical, 2+i%97
		}
		if i%10 == 5 {
			c.Missing, c.MissingShare = i, float64(i)/1000
		}
		p.ColumnInfo = append(p.ColumnInfo, c)
	}
	return p
}

func TestChooseWide(t *testing.T) {
	p := wideProfile(500)
	c := Choose(p, Options{})
	if len(c.Hist) != DefaultMaxChartColumns || len(c.Bars) != DefaultMaxChartColumns {
		t.Fatalf("charted %d numeric, %d categorical columns; want %d each", len(c.Hist), len(c.Bars), DefaultMaxChartColumns)
	}
	if len(c.Correlation) != DefaultMaxCorrelationColumns {
		t.Errorf("correlated %d columns, want %d", len(c.Correlation), DefaultMaxCorrelationColumns)
	}
	// The most distinct numeric columns are the last ones (distinct grows with i).
	if c.Hist[len(c.Hist)-1] != "c499" || slices.Contains(c.Hist, "c004") {
		t.Errorf("histograms of %v: want the numeric columns with the most distinct values", c.Hist)
	}
	if !slices.Contains(c.HistLeftOut, "c004") || len(c.Hist)+len(c.HistLeftOut)+len(c.NotCharted) != len(c.Numeric) {
		t.Errorf("left out %d + charted %d + never %d != %d numeric", len(c.HistLeftOut), len(c.Hist), len(c.NotCharted), len(c.Numeric))
	}
	if !slices.Equal(c.NotCharted, []string{"c000", "c001"}) {
		t.Errorf("not charted = %v, want the identifier and the constant column", c.NotCharted)
	}
	for _, bar := range c.Bars {
		i := slices.IndexFunc(p.ColumnInfo, func(col Column) bool { return col.Name == bar })
		if d := p.ColumnInfo[i].Distinct; d > highCardinality {
			t.Errorf("bar chart of %s with %d distinct values while columns with at most %d were left out", bar, d, highCardinality)
		}
	}
	if c.Date != "c002" || c.Frequency != "W-MON" || c.Value != "c499" {
		t.Errorf("time series of %q summing %q per %q; want c002, c499, W-MON", c.Date, c.Value, c.Frequency)
	}
	if len(c.Missing) != DefaultMaxMissingColumns || len(c.MissingLeft) != 50-DefaultMaxMissingColumns {
		t.Errorf("missingness chart of %d columns, %d left out", len(c.Missing), len(c.MissingLeft))
	}
	if c.Missing[0] != "c495" {
		t.Errorf("missingness chart starts with %s, want the most missing column c495", c.Missing[0])
	}
	for _, list := range [][]string{c.Hist, c.Bars, c.Correlation, c.HistLeftOut} {
		if !slices.IsSorted(list) { // names sort like the file's order here
			t.Errorf("columns not in the file's order: %v", list)
		}
	}

	st := Distributions(p, Options{})
	var md strings.Builder
	for _, cell := range st.Cells {
		if cell.Markdown {
			md.WriteString(cell.Source)
		}
	}
	if !strings.Contains(md.String(), "`c004`") || !strings.Contains(md.String(), "left out (") {
		t.Errorf("the markdown does not list the columns left out of the charts")
	}
}

func TestFrequency(t *testing.T) {
	tests := []struct{ lo, hi, want string }{
		{"2023-01-01T00:00:00", "2023-01-02T12:00:00", "h"},
		{"2023-01-01T00:00:00", "2023-03-01T00:00:00", "D"},
		{"2023-01-01", "2023-12-31", "W-MON"},
		{"2023-01-01T00:00:00", "2024-12-31T00:00:00", "MS"},
		{"1950-01-01T00:00:00+00:00", "2020-01-01T00:00:00+00:00", "YS"},
		{"garbage", "2020-01-01", "MS"},
	}
	for _, tt := range tests {
		if got, _ := frequency(tt.lo, tt.hi); got != tt.want {
			t.Errorf("frequency(%s, %s) = %s, want %s", tt.lo, tt.hi, got, tt.want)
		}
	}
}

func TestCellsNotEmpty(t *testing.T) {
	stages := []Stage{Setup(), Load("/data/x.csv"), ProfileStage(), Distributions(wideProfile(40), Options{})}
	for _, st := range stages {
		for _, c := range st.Cells {
			if strings.TrimSpace(c.Source) == "" {
				t.Errorf("stage %s: empty cell", st.Name)
			}
		}
	}
	if got := Distributions(nil, Options{}); len(got.Cells) != 1 || !got.Cells[0].Markdown {
		t.Errorf("Distributions(nil) = %+v, want one markdown cell", got)
	}
}

// The heatmap takes the columns most strongly correlated with another
// (the profile's max_correlation), not the first ones or those with the
// most distinct values.
func TestChooseCorrelationByStrength(t *testing.T) {
	p := &Profile{Rows: 1000}
	for i := range 60 {
		r := 0.05
		if i == 41 || i == 58 {
			r = 0.999
		}
		p.ColumnInfo = append(p.ColumnInfo, Column{Name: fmt.Sprintf("x%02d", i), Kind: KindNumeric, Distinct: 1000 - i, MaxCorrelation: &r})
	}
	p.Columns = len(p.ColumnInfo)
	c := Choose(p, Options{MaxCorrelationColumns: 5})
	if !slices.Equal(c.Correlation, []string{"x00", "x01", "x02", "x41", "x58"}) {
		t.Errorf("heatmap columns %q, want x41 and x58 (r = 0.999) and then the most distinct, in file order", c.Correlation)
	}
	md := ""
	for _, cell := range Distributions(p, Options{MaxCorrelationColumns: 5}).Cells {
		if cell.Markdown && strings.Contains(cell.Source, "Pearson and Spearman") {
			md = cell.Source
		}
	}
	if !strings.Contains(md, "most strongly correlated with another column") {
		t.Errorf("the correlation markdown does not say how columns were chosen: %q", md)
	}
}

// A numeric column with the profile's identifier alert (a code: zip,
// store_id) is never charted or correlated, whatever the number of rows:
// not in the histograms, the correlation matrices, the pairs, the pair
// plot or the time series' value.
func TestChooseLeavesOutCodes(t *testing.T) {
	p := &Profile{Rows: 40, Columns: 5, ColumnInfo: []Column{
		{Name: "zip", Kind: KindNumeric, Distinct: 35},
		{Name: "units", Kind: KindNumeric, Distinct: 20},
		{Name: "revenue", Kind: KindNumeric, Distinct: 30},
		{Name: "discount", Kind: KindNumeric, Distinct: 4},
		{Name: "when", Kind: KindDatetime, Distinct: 40, MinDate: "2024-01-01T00:00:00", MaxDate: "2024-02-09T00:00:00"},
	}, Alerts: []Alert{{Type: AlertIdentifier, Column: "zip"}}}
	c, v := Choose(p, Options{}), ChooseVisualization(p, Options{})
	if !slices.Equal(c.NotCharted, []string{"zip"}) || !slices.Equal(c.Hist, []string{"units", "revenue", "discount"}) {
		t.Errorf("histograms %q, not charted %q; want zip left out", c.Hist, c.NotCharted)
	}
	if slices.Contains(c.Correlation, "zip") || slices.Contains(v.PairPlot, "zip") || c.Value != "revenue" {
		t.Errorf("correlations %q, pair plot %q, time series of %q: want no zip (and revenue, the most distinct measure, over time)",
			c.Correlation, v.PairPlot, c.Value)
	}
}
