package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/analyst-cli/analyst/kernel"
)

// Bounds of the chart checks.
const (
	// MaxCategoryTicks is the most category labels an axis can show and
	// still be read; past it the labels overlap into a smear.
	MaxCategoryTicks = 50
	// MaxChartRejections bounds how often per question (or goal) the model
	// is told that its charts fail the checks; after that they stay as
	// they are.
	MaxChartRejections = 2
)

// chartDesc is the part of a chart description (kernel MIME
// application/vnd.analyst.chart+json, see kernel/driver/analyst_charts.py)
// the checks read.
type chartDesc struct {
	Kind  string     `json:"kind"`
	Title string     `json:"title"`
	Axes  []axesDesc `json:"axes"`
}

type axesDesc struct {
	Kind        string            `json:"kind"`
	Title       string            `json:"title"`
	XLabel      string            `json:"x_label"`
	YLabel      string            `json:"y_label"`
	XTickLabels []string          `json:"x_tick_labels"`
	Series      []json.RawMessage `json:"series"`
}

// seriesDesc holds the data lists of every series kind; a kind fills some.
type seriesDesc struct {
	Kind       string            `json:"kind"`
	Label      string            `json:"label"`
	X          []any             `json:"x"`
	Y          []any             `json:"y"`
	Values     json.RawMessage   `json:"values"`
	Counts     []any             `json:"counts"`
	Boxes      []json.RawMessage `json:"boxes"`
	Categories []string          `json:"categories"`
	Orient     string            `json:"orientation"`
}

// CheckChart reads a chart description and says what makes the chart hard
// or impossible to read: no title, an axis without a label, nothing drawn
// or a series with no values, a category axis with more labels than can be
// read. No problems: nil. A description that cannot be read is not judged.
func CheckChart(desc json.RawMessage) []string {
	var d chartDesc
	if json.Unmarshal(desc, &d) != nil {
		return nil
	}
	if d.Kind == "unknown" {
		return nil // the describer could not read it: nothing to judge by
	}
	if len(d.Axes) == 0 {
		return []string{"the figure is empty: nothing was drawn"}
	}
	var problems []string
	titled := strings.TrimSpace(d.Title) != ""
	for _, ax := range d.Axes {
		titled = titled || strings.TrimSpace(ax.Title) != ""
	}
	if !titled {
		problems = append(problems, "no title (set one with ax.set_title or fig.suptitle)")
	}
	for i, ax := range d.Axes {
		where := ""
		if len(d.Axes) > 1 {
			where = fmt.Sprintf("panel %d: ", i+1)
		}
		if ax.Kind == "empty" {
			problems = append(problems, where+"nothing was drawn in it")
			continue
		}
		if ax.Kind != "pie" && ax.Kind != "heatmap" && ax.Kind != "unknown" {
			var missing []string
			if strings.TrimSpace(ax.XLabel) == "" {
				missing = append(missing, "x")
			}
			if strings.TrimSpace(ax.YLabel) == "" {
				missing = append(missing, "y")
			}
			if len(missing) > 0 {
				problems = append(problems, where+"the "+strings.Join(missing, " and ")+" axis has no label (set_xlabel/set_ylabel, with units)")
			}
		}
		ticks := len(ax.XTickLabels)
		for j, raw := range ax.Series {
			var s seriesDesc
			if json.Unmarshal(raw, &s) != nil {
				continue
			}
			if s.Kind == "" {
				s.Kind = ax.Kind
			}
			if seriesEmpty(s) {
				name := fmt.Sprintf("series %d", j+1)
				if s.Label != "" {
					name = fmt.Sprintf("series %q", s.Label)
				}
				problems = append(problems, where+name+" has no values (empty, or all missing: check the filter or the aggregation)")
			}
			ticks = max(ticks, len(s.Categories), len(s.Boxes))
		}
		if ticks > MaxCategoryTicks {
			problems = append(problems, fmt.Sprintf("%sthe category axis has %d labels, too many to read: show the top %d "+
				"(and the rest as \"other\"), aggregate, or choose another chart", where, ticks, MaxCategoryTicks/2))
		}
	}
	return problems
}

// seriesEmpty says whether a series has no value to draw.
func seriesEmpty(s seriesDesc) bool {
	switch s.Kind {
	case "line", "scatter":
		return len(s.X) == 0 || allNil(s.Y)
	case "bar", "pie":
		var vs []any
		_ = json.Unmarshal(s.Values, &vs)
		return allNil(vs)
	case "hist":
		return allNil(s.Counts)
	case "box":
		return len(s.Boxes) == 0
	case "heatmap":
		var rows [][]any
		_ = json.Unmarshal(s.Values, &rows)
		for _, r := range rows {
			if !allNil(r) {
				return false
			}
		}
		return true
	}
	return false
}

func allNil(vs []any) bool {
	for _, v := range vs {
		if v != nil {
			return false
		}
	}
	return true
}

// ChartCheck is a chart of the model's that failed the checks.
type ChartCheck struct {
	Phase    string   `json:"phase"`
	Turn     int      `json:"turn"`
	Chart    string   `json:"chart"`
	Problems []string `json:"problems"`
	// Told is false once MaxChartRejections was reached, and in a replay on
	// new data (the model hears nothing new there): the chart was kept as
	// it is without telling the model.
	Told bool `json:"told"`
}

// checkCharts checks the charts a cell made and returns what the model is
// told about the failing ones ("" when none fails, the bound is reached or
// tell says not to: a replay records them instead); every failing chart is
// recorded in ans.ChartChecks.
func checkCharts(ans *Answer, phase string, turn int, charts []kernel.Chart, tell func(found string) bool) string {
	var b strings.Builder
	for i, c := range charts {
		problems := CheckChart(c.Description)
		if len(problems) == 0 {
			continue
		}
		name := fmt.Sprintf("chart %d (%s)", i+1, chartLabel(c))
		told := tell(name+" fails the chart checks on the new data: "+strings.Join(problems, "; ")) && ans.ChartRejections < MaxChartRejections
		ans.ChartChecks = append(ans.ChartChecks, ChartCheck{Phase: phase, Turn: turn, Chart: chartLabel(c), Problems: problems, Told: told})
		if !told {
			continue
		}
		fmt.Fprintf(&b, "chart check: %s cannot be reported as it is: %s.\n", name, strings.Join(problems, "; "))
	}
	if b.Len() == 0 {
		return ""
	}
	ans.ChartRejections++
	b.WriteString("Redraw the chart with these fixed (one figure per chart), then give the answer.")
	return b.String()
}
