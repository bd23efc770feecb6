package evals

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// ChartExpect is what a chart the model drew must show. Any chart of the
// case that meets every set field passes.
type ChartExpect struct {
	Kind       string    `json:"kind,omitempty" yaml:"kind"`
	Title      bool      `json:"title,omitempty" yaml:"title"`             // a title is present
	AxisLabels bool      `json:"axis_labels,omitempty" yaml:"axis_labels"` // both axis labels present
	Series     int       `json:"series,omitempty" yaml:"series"`           // number of series
	Values     []float64 `json:"values,omitempty" yaml:"values"`           // the first series' values (bar: values, line/scatter: y)
	Tolerance  float64   `json:"tolerance,omitempty" yaml:"tolerance"`     // relative, for Values; default 1e-6
}

// ChartCheck is the outcome of one ChartExpect.
type ChartCheck struct {
	Expect ChartExpect `json:"expect"`
	OK     bool        `json:"ok"`
	// Why says what the closest chart lacked.
	Why string `json:"why,omitempty"`
}

// chartDesc is the part of the kernel's chart description (mime
// application/vnd.analyst.chart+json) that checks read.
type chartDesc struct {
	Kind   string `json:"kind"`
	Title  string `json:"title"`
	XLabel string `json:"x_label"`
	YLabel string `json:"y_label"`
	Axes   []struct {
		Kind   string `json:"kind"`
		Title  string `json:"title"`
		XLabel string `json:"x_label"`
		YLabel string `json:"y_label"`
		Series []struct {
			Values []*float64 `json:"values"`
			Y      []any      `json:"y"`
		} `json:"series"`
	} `json:"axes"`
}

// CheckCharts checks each expectation against the charts described.
func CheckCharts(expects []ChartExpect, charts []json.RawMessage) []ChartCheck {
	var out []ChartCheck
	for _, e := range expects {
		c := ChartCheck{Expect: e, Why: "no chart was drawn"}
		kindSeen := false // a chart of the right kind failed: its reason is the one to tell
		for _, raw := range charts {
			var d chartDesc
			if err := json.Unmarshal(raw, &d); err != nil {
				c.Why = "unreadable chart description: " + err.Error()
				continue
			}
			if why := e.check(d); why != "" {
				rightKind := e.Kind == "" || strings.EqualFold(e.Kind, d.Kind)
				if rightKind || !kindSeen {
					c.Why = why
				}
				kindSeen = kindSeen || rightKind
				continue
			}
			c.OK, c.Why = true, ""
			break
		}
		out = append(out, c)
	}
	return out
}

func (e ChartExpect) check(d chartDesc) string {
	title, xl, yl := d.Title, d.XLabel, d.YLabel
	var series int
	var first []float64
	for i, ax := range d.Axes {
		if i == 0 {
			title, xl, yl = firstNonEmpty(title, ax.Title), firstNonEmpty(xl, ax.XLabel), firstNonEmpty(yl, ax.YLabel)
		}
		for _, s := range ax.Series {
			if series == 0 {
				first = seriesValues(s.Values, s.Y)
			}
			series++
		}
	}
	switch {
	case e.Kind != "" && !strings.EqualFold(e.Kind, d.Kind):
		return fmt.Sprintf("kind %q, want %q", d.Kind, e.Kind)
	case e.Title && strings.TrimSpace(title) == "":
		return "no title"
	case e.AxisLabels && (strings.TrimSpace(xl) == "" || strings.TrimSpace(yl) == ""):
		return "an axis label is missing"
	case e.Series > 0 && series != e.Series:
		return fmt.Sprintf("%d series, want %d", series, e.Series)
	}
	if len(e.Values) > 0 {
		tol := e.Tolerance
		if tol == 0 {
			tol = 1e-6
		}
		if len(first) != len(e.Values) {
			return fmt.Sprintf("%d values, want %d", len(first), len(e.Values))
		}
		for i, v := range e.Values {
			if math.Abs(first[i]-v) > tol*math.Max(1, math.Abs(v)) {
				return fmt.Sprintf("value %d is %g, want %g", i+1, first[i], v)
			}
		}
	}
	return ""
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func seriesValues(values []*float64, y []any) []float64 {
	var out []float64
	for _, v := range values {
		if v == nil {
			out = append(out, math.NaN())
		} else {
			out = append(out, *v)
		}
	}
	for _, v := range y {
		if f, ok := v.(float64); ok {
			out = append(out, f)
		} else {
			out = append(out, math.NaN())
		}
	}
	return out
}
