package evals_test

import (
	"encoding/json"
	"testing"

	"github.com/analyst-cli/analyst/evals"
)

// A description in the kernel's chart schema (application/vnd.analyst.chart+json).
const barChart = `{"kind": "bar", "title": "Revenue by region", "x_label": "Region", "y_label": "Revenue", "truncated": false,
 "axes": [{"kind": "bar", "title": "Revenue by region", "x_label": "Region", "y_label": "Revenue", "x_scale": "linear", "y_scale": "linear",
   "x_tick_labels": ["East", "West"], "series": [{"label": "", "categories": ["East", "West"], "values": [10.5, 20.0]}]}]}`

const untitledLine = `{"kind": "line", "title": "", "x_label": "", "y_label": "", "axes": [{"kind": "line", "title": "", "x_label": "", "y_label": "",
   "series": [{"label": "a", "x": [1, 2], "y": [3.0, 4.0]}, {"label": "b", "x": [1, 2], "y": [5.0, null]}]}]}`

func TestCheckCharts(t *testing.T) {
	charts := []json.RawMessage{json.RawMessage(untitledLine), json.RawMessage(barChart)}
	tests := []struct {
		e   evals.ChartExpect
		ok  bool
		why string
	}{
		{evals.ChartExpect{Kind: "bar", Title: true, AxisLabels: true, Series: 1, Values: []float64{10.5, 20}}, true, ""},
		{evals.ChartExpect{Kind: "BAR"}, true, ""},
		{evals.ChartExpect{Kind: "line", Series: 2, Values: []float64{3, 4}}, true, ""},
		{evals.ChartExpect{Kind: "line", Title: true}, false, "no title"},
		{evals.ChartExpect{Kind: "pie"}, false, `kind "bar", want "pie"`},
		{evals.ChartExpect{Kind: "bar", Values: []float64{10.5, 21}}, false, "value 2 is 20, want 21"},
		{evals.ChartExpect{Kind: "bar", Values: []float64{10.5, 20.001}, Tolerance: 0.001}, true, ""},
		{evals.ChartExpect{Kind: "bar", Series: 2}, false, "1 series, want 2"},
	}
	for _, tt := range tests {
		got := evals.CheckCharts([]evals.ChartExpect{tt.e}, charts)[0]
		if got.OK != tt.ok || got.Why != tt.why {
			t.Errorf("%+v: ok %v why %q, want %v %q", tt.e, got.OK, got.Why, tt.ok, tt.why)
		}
	}
	if got := evals.CheckCharts([]evals.ChartExpect{{Kind: "bar"}}, nil)[0]; got.OK || got.Why != "no chart was drawn" {
		t.Errorf("no charts: %+v", got)
	}
}
