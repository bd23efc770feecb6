// Package baseline reads what a run kept for later comparisons (its
// sketch), checks it before a new run compares with it, and reads back the
// changes the comparison found: their levels, the exit code's verdict and
// the Markdown summary for a CI step.
package baseline

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/analyst-cli/analyst/eda"
)

// Sketch is what a run keeps of its data for later comparisons (the sketch
// cell of the profile, eda/py/sketch.py), as NAME_files/sketch.json.
type Sketch struct {
	Version        int      `json:"version"`
	Rows           int      `json:"rows"`
	QuantilePoints int      `json:"quantile_points"`
	ValueCountsCap int      `json:"value_counts_cap"`
	TimePeriods    int      `json:"time_periods"`
	Columns        []Column `json:"columns"`
}

// Column is one column's part of a sketch: its profile's counts and, by
// kind, its numbers, values or dates.
type Column struct {
	Name          string   `json:"name"`
	Dtype         string   `json:"dtype"`
	Kind          string   `json:"kind"`
	Missing       int      `json:"missing"`
	Distinct      int      `json:"distinct"`
	DistinctExact bool     `json:"distinct_exact"`
	Numbers       *Numbers `json:"numbers,omitempty"`
	Values        *Values  `json:"values,omitempty"`
	Dates         *Dates   `json:"dates,omitempty"`
}

// Numbers are a numeric column's points (every distinct value when Exact,
// else quantiles) and the rows each stands for, with the exact summary.
type Numbers struct {
	Count    int       `json:"count"`
	Infinite int       `json:"infinite"`
	Exact    bool      `json:"exact"`
	Min      *float64  `json:"min"`
	Max      *float64  `json:"max"`
	Mean     *float64  `json:"mean"`
	Std      *float64  `json:"std"`
	Points   []float64 `json:"points"`
	Weights  []int64   `json:"weights"`
}

// Values are a categorical column's most frequent values (as text) with
// their rows, and the rest as a tail.
type Values struct {
	Top         []ValueCount `json:"top"`
	OtherRows   int          `json:"other_rows"`
	OtherValues int          `json:"other_values"`
	Complete    bool         `json:"complete"`
	// Sample is the sample's rows when the counts were scaled up from it
	// (out of core, past its exact count cap); nil when counted in full.
	Sample *int `json:"sample"`
}

// ValueCount is a value and its rows, written [value, rows].
type ValueCount struct {
	Value string
	Rows  int
}

func (v ValueCount) MarshalJSON() ([]byte, error) { return json.Marshal([]any{v.Value, v.Rows}) }

func (v *ValueCount) UnmarshalJSON(b []byte) error {
	var pair []json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil || len(pair) != 2 {
		return errors.New("a value count is not [value, rows]")
	}
	if err := json.Unmarshal(pair[0], &v.Value); err != nil {
		return errors.New("a value count's value is not text")
	}
	return json.Unmarshal(pair[1], &v.Rows)
}

// Dates are a date column's range and its rows per period of Unit (h, D,
// M, Y), periods numbered from 1970.
type Dates struct {
	Min     *string    `json:"min"`
	Max     *string    `json:"max"`
	Zone    *string    `json:"zone"`
	Unit    *string    `json:"unit"`
	Periods [][2]int64 `json:"periods"`
}

// ParseSketch reads and checks a sketch: the version this analyst compares,
// and a layout that the comparison's code can read (sorted points, counts
// that add up, known kinds and units). An error says what is wrong.
func ParseSketch(raw []byte) (*Sketch, error) {
	var probe struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fmt.Errorf("not a sketch: %w", err)
	}
	if probe.Version == nil {
		return nil, errors.New("not a sketch: it has no version")
	}
	if *probe.Version != eda.SketchVersion {
		return nil, &VersionError{Got: *probe.Version}
	}
	var s Sketch
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("not a sketch: %w", err)
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("not a sketch analyst wrote: %w", err)
	}
	return &s, nil
}

// VersionError is a sketch of a layout this analyst does not compare.
type VersionError struct{ Got int }

func (e *VersionError) Error() string {
	return fmt.Sprintf("its sketch is version %d, and this analyst compares version %d", e.Got, eda.SketchVersion)
}

var kinds = []string{eda.KindNumeric, eda.KindCategorical, eda.KindDatetime, eda.KindBoolean, eda.KindText, eda.KindEmpty}

func (s *Sketch) check() error {
	if s.Rows < 0 || s.QuantilePoints < 1 {
		return fmt.Errorf("rows %d, quantile points %d", s.Rows, s.QuantilePoints)
	}
	seen := map[string]bool{}
	for _, c := range s.Columns {
		if seen[c.Name] {
			return fmt.Errorf("column %q twice", c.Name)
		}
		seen[c.Name] = true
		if !slices.Contains(kinds, c.Kind) {
			return fmt.Errorf("column %q: unknown kind %q", c.Name, c.Kind)
		}
		if c.Missing < 0 || c.Missing > s.Rows || c.Distinct < 0 {
			return fmt.Errorf("column %q: %d missing, %d distinct of %d rows", c.Name, c.Missing, c.Distinct, s.Rows)
		}
		if err := c.check(s); err != nil {
			return fmt.Errorf("column %q: %w", c.Name, err)
		}
	}
	return nil
}

func (c *Column) check(s *Sketch) error {
	if n := c.Numbers; n != nil {
		if len(n.Points) != len(n.Weights) || len(n.Points) > s.QuantilePoints+1 {
			return fmt.Errorf("%d points, %d weights", len(n.Points), len(n.Weights))
		}
		var total int64
		for i, p := range n.Points {
			if math.IsNaN(p) || math.IsInf(p, 0) || (i > 0 && p <= n.Points[i-1]) || n.Weights[i] <= 0 {
				return errors.New("points not finite and increasing, or weights not positive")
			}
			total += n.Weights[i]
		}
		if total != int64(n.Count) {
			return fmt.Errorf("weights add up to %d, not the count %d", total, n.Count)
		}
	}
	if v := c.Values; v != nil {
		names := map[string]bool{}
		for _, vc := range v.Top {
			if names[vc.Value] || vc.Rows <= 0 {
				return fmt.Errorf("value %q twice or without rows", vc.Value)
			}
			names[vc.Value] = true
		}
		if v.OtherRows < 0 || v.OtherValues < 0 {
			return errors.New("a negative tail")
		}
	}
	if d := c.Dates; d != nil && len(d.Periods) > 0 {
		if d.Unit == nil || !slices.Contains([]string{"h", "D", "M", "Y"}, *d.Unit) {
			return errors.New("dates without a period unit")
		}
		for i, p := range d.Periods {
			if p[1] <= 0 || (i > 0 && p[0] <= d.Periods[i-1][0]) {
				return errors.New("periods not increasing, or without rows")
			}
		}
	}
	return nil
}

// JSON is the sketch as analyst writes it: the same sketch, the same bytes.
func (s *Sketch) JSON() []byte {
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("baseline: a checked sketch does not marshal: %v", err))
	}
	return b
}
