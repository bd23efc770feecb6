package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// axes is a chart description's axes entry, as the kernel's describer
// writes it.
func axes(kind, title, x, y string, ticks int, series ...string) string {
	labels := make([]string, ticks)
	for i := range labels {
		labels[i] = fmt.Sprintf("%q", fmt.Sprintf("c%d", i))
	}
	return fmt.Sprintf(`{"kind":%q,"title":%q,"x_label":%q,"y_label":%q,"x_scale":"linear","y_scale":"linear","x_tick_labels":[%s],"series":[%s]}`,
		kind, title, x, y, strings.Join(labels, ","), strings.Join(series, ","))
}

func figure(kind, title string, axes ...string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"kind":%q,"title":%q,"x_label":"","y_label":"","axes":[%s],"truncated":false}`,
		kind, title, strings.Join(axes, ",")))
}

const (
	barSeries  = `{"label":"","categories":["a","b"],"values":[1,2],"orientation":"vertical"}`
	lineSeries = `{"label":"revenue","x":[1,2,3],"y":[4,5,6]}`
)

func TestCheckChart(t *testing.T) {
	many := make([]string, 120)
	for i := range many {
		many[i] = fmt.Sprintf("%q", fmt.Sprint("shop ", i))
	}
	manyBars := fmt.Sprintf(`{"label":"","categories":[%s],"values":[%s],"orientation":"horizontal"}`,
		strings.Join(many, ","), strings.Repeat("1,", 119)+"1")
	for _, tt := range []struct {
		name string
		desc json.RawMessage
		want []string // substrings, one per problem; none: the chart passes
	}{
		{"good bar chart", figure("bar", "Revenue by region", axes("bar", "Revenue by region", "Region", "Revenue (EUR)", 2, barSeries)), nil},
		{"title on the figure only", figure("line", "Revenue", axes("line", "", "Month", "Revenue", 0, lineSeries)), nil},
		{"no title", figure("line", "", axes("line", "", "Month", "Revenue", 0, lineSeries)), []string{"no title"}},
		{"no x label", figure("bar", "T", axes("bar", "T", "", "Revenue", 2, barSeries)), []string{"the x axis has no label"}},
		{"no labels, no title", figure("bar", "", axes("bar", "", " ", "", 2, barSeries)), []string{"no title", "the x and y axis has no label"}},
		{"pie needs no axis labels", figure("pie", "Share", axes("pie", "Share", "", "", 0, `{"label":"","labels":["a"],"values":[1.0]}`)), nil},
		{"heatmap needs no axis labels", figure("heatmap", "r", axes("heatmap", "r", "", "", 2, `{"label":"","rows":["a"],"columns":["b"],"values":[[0.5]]}`)), nil},
		{"all-missing line", figure("line", "T", axes("line", "T", "x", "y", 0, `{"label":"revenue","x":[1,2],"y":[null,null]}`)), []string{`series "revenue" has no values`}},
		{"no bars", figure("bar", "T", axes("bar", "T", "x", "y", 0, `{"label":"","categories":[],"values":[],"orientation":"vertical"}`)), []string{"series 1 has no values"}},
		{"empty hist", figure("hist", "T", axes("hist", "T", "x", "rows", 0, `{"label":"","bin_edges":[],"counts":[]}`)), []string{"series 1 has no values"}},
		{"empty panel of two", figure("mixed", "Two", axes("line", "a", "x", "y", 0, lineSeries), axes("empty", "", "", "", 0)), []string{"panel 2: nothing was drawn"}},
		{"empty figure", figure("empty", ""), []string{"the figure is empty"}},
		{"hundreds of x ticks", figure("bar", "T", axes("bar", "T", "shop", "revenue", 300, barSeries)), []string{"the category axis has 300 labels"}},
		{"hundreds of horizontal bars", figure("bar", "T", axes("bar", "T", "revenue", "shop", 0, manyBars)), []string{"the category axis has 120 labels"}},
		{"50 ticks are fine", figure("bar", "T", axes("bar", "T", "shop", "revenue", 50, barSeries)), nil},
		{"unknown description", json.RawMessage(`{"kind":"unknown","title":"","axes":[],"error":"x"}`), nil},
		{"not JSON", json.RawMessage(`nope`), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckChart(tt.desc)
			if len(got) != len(tt.want) {
				t.Fatalf("problems %q, want %d like %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to say %q", i, got[i], w)
				}
			}
		})
	}
}
