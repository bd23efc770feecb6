package report

import (
	"regexp"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/eda"
)

var sparkBar = regexp.MustCompile(`M([0-9.]+) 24h([0-9.]+)v-([0-9.]+)h`)

// bars are the drawn bars of a sparkline: x and height.
func bars(t *testing.T, svg string) [][2]string {
	t.Helper()
	var out [][2]string
	for _, m := range sparkBar.FindAllStringSubmatch(svg, -1) {
		out = append(out, [2]string{m[1], m[3]})
	}
	return out
}

// TestSparkline: each kind of column gets its shape from its own numbers:
// a numeric column's sketch points binned by value with their rows, a date
// column's rows per period, a categorical column's top values; a column
// with nothing to draw gets nothing, and its name cannot break out of the
// SVG's label.
func TestSparkline(t *testing.T) {
	// 0..9 with 10 rows each, and 100 rows at 100: a tall bar at the right.
	num := &Distribution{Points: []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 100}, Weights: []int64{10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 100}}
	got := string(sparkline(eda.Column{Name: `<b>"x"</b>`, Kind: eda.KindNumeric}, num))
	b := bars(t, got)
	// 0..9 fall in the first 3 bins of 24 over 0..100 (width 4.17): 0-4, 5-8, 9.
	if len(b) != 4 || b[3] != [2]string{"92", "24"} || b[0][1] != "12" || b[2][1] != "2.4" {
		t.Errorf("numeric bars %v, want 4: 50, 40, 10 rows low and 100 rows tall at the right in\n%s", b, got)
	}
	if !strings.Contains(got, `aria-label="Histogram of &lt;b&gt;&#34;x&#34;&lt;/b&gt;, 0 to 100"`) || strings.Contains(got, "<b>") {
		t.Errorf("label not escaped or wrong: %s", got)
	}

	dates := &Distribution{Periods: [][2]int64{{600, 5}, {601, 0}, {612, 20}}}
	got = string(sparkline(eda.Column{Name: "day", Kind: eda.KindDatetime, MinDate: "2020-01-01", MaxDate: "2021-01-31"}, dates))
	if b := bars(t, got); len(b) != 2 || b[0] != [2]string{"0", "6"} || b[1] != [2]string{"92", "24"} {
		t.Errorf("date bars %v, want 5 rows at the start and 20 at the end, in\n%s", b, got)
	}
	if !strings.Contains(got, "Rows over time of day, 2020-01-01 to 2021-01-31") {
		t.Errorf("date label: %s", got)
	}

	cat := eda.Column{Name: "region", Kind: eda.KindCategorical, Top: []eda.TopValue{
		{Value: "north", Count: 60, Share: .6}, {Value: "south", Count: 30, Share: .3}, {Value: "east", Count: 10, Share: .1}}}
	got = string(sparkline(cat, nil))
	if b := bars(t, got); len(b) != 3 || b[0][1] != "24" || b[1][1] != "12" || b[2][1] != "4" {
		t.Errorf("categorical bars %v, want 60:30:10 in\n%s", b, got)
	}
	if !strings.Contains(got, "Most frequent values of region: north 60.0%, south 30.0%, east 10.0%") {
		t.Errorf("categorical label: %s", got)
	}

	for name, c := range map[string]eda.Column{
		"text without top values":   {Name: "t", Kind: eda.KindText},
		"numeric without a sketch":  {Name: "n", Kind: eda.KindNumeric},
		"constant numeric, no rows": {Name: "z", Kind: eda.KindNumeric},
	} {
		if got := sparkline(c, nil); got != "" {
			t.Errorf("%s: drew %s", name, got)
		}
	}
	// One value: one full bar.
	if b := bars(t, string(sparkline(eda.Column{Name: "k", Kind: eda.KindNumeric}, &Distribution{Points: []float64{3}, Weights: []int64{7}}))); len(b) != 1 || b[0][1] != "24" {
		t.Errorf("a constant column: bars %v, want one full", b)
	}
}
