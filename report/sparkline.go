package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/internal/clip"
)

// The columns table shows each column's shape at a glance, as
// ydata-profiling's and skrub's cards do: a small histogram of a numeric or
// date column, bars of a categorical column's most frequent values. Drawn
// here as inline SVG from the run's own numbers (the profile's top values,
// the sketch's points and periods), so it costs a few hundred bytes a
// column and shows exactly what the notebook holds.

// Sparkline sizes, in CSS pixels, and how many bars at most.
const (
	sparkWidth  = 96
	sparkHeight = 24
	sparkBins   = 24 // a histogram's bins
	sparkTop    = 8  // a categorical column's values
)

// sparkline is column c's small chart, d its distribution from the
// sketch (nil if none); "" when there is nothing to draw.
func sparkline(c eda.Column, d *Distribution) template.HTML {
	switch {
	case c.Kind == eda.KindNumeric && d != nil && len(d.Points) > 0:
		lo, hi := d.Points[0], d.Points[len(d.Points)-1]
		bins := histogram(d.Points, d.Weights, lo, hi)
		label := fmt.Sprintf("Histogram of %s, %s to %s", c.Name, shortNumber(lo), shortNumber(hi))
		if len(bins) == 1 {
			label = fmt.Sprintf("Every value of %s is %s", c.Name, shortNumber(lo))
		}
		return sparkSVG(bins, label)
	case c.Kind == eda.KindDatetime && d != nil && len(d.Periods) > 0:
		points, weights := make([]float64, len(d.Periods)), make([]int64, len(d.Periods))
		for i, p := range d.Periods {
			points[i], weights[i] = float64(p[0]), p[1]
		}
		bins := histogram(points, weights, points[0], points[len(points)-1])
		label := "Rows over time of " + c.Name
		if c.MinDate != "" && c.MaxDate != "" {
			label += ", " + c.MinDate + " to " + c.MaxDate
		}
		return sparkSVG(bins, label)
	case len(c.Top) > 0 && c.Kind != eda.KindNumeric && c.Kind != eda.KindDatetime:
		top := c.Top[:min(len(c.Top), sparkTop)]
		bars := make([]float64, len(top))
		parts := make([]string, len(top))
		for i, v := range top {
			bars[i] = float64(v.Count)
			parts[i] = clip.Runes(v.Value, 24) + " " + percent(v.Share)
		}
		return sparkSVG(bars, "Most frequent values of "+c.Name+": "+strings.Join(parts, ", "))
	}
	return ""
}

// histogram adds each point's weight to the bin of its value: sparkBins
// equal bins from lo to hi (one when lo is hi).
func histogram(points []float64, weights []int64, lo, hi float64) []float64 {
	n := sparkBins
	if hi <= lo || math.IsInf(hi-lo, 0) || math.IsNaN(hi-lo) {
		n = 1
	}
	bins := make([]float64, n)
	for i, p := range points {
		b := 0
		if n > 1 {
			b = min(n-1, max(0, int((p-lo)/(hi-lo)*float64(n))))
		}
		if i < len(weights) {
			bins[b] += float64(weights[i])
		}
	}
	return bins
}

// sparkSVG draws bars, scaled to the highest, as one path; label is its
// accessible name and tooltip.
func sparkSVG(bars []float64, label string) template.HTML {
	top := 0.0
	for _, v := range bars {
		top = max(top, v)
	}
	if top <= 0 {
		return ""
	}
	w := float64(sparkWidth) / float64(len(bars))
	gap := 0.0
	if w >= 3 {
		gap = 1
	}
	var d strings.Builder
	for i, v := range bars {
		if v <= 0 {
			continue
		}
		h := math.Max(1, math.Round(v/top*sparkHeight*10)/10) // at least a pixel: present, however rare
		fmt.Fprintf(&d, "M%s %dh%sv-%sh-%sz", svgNum(float64(i)*w), sparkHeight, svgNum(w-gap), svgNum(h), svgNum(w-gap))
	}
	esc := html.EscapeString(label)
	return template.HTML(fmt.Sprintf(`<svg class="spark" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s"><title>%s</title><path d="%s"/></svg>`,
		sparkWidth, sparkHeight, sparkWidth, sparkHeight, esc, esc, d.String()))
}

// svgNum writes a coordinate with at most one decimal.
func svgNum(x float64) string { return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64) }

// shortNumber is a number for a tooltip: four significant digits.
func shortNumber(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
