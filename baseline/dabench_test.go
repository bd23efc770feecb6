package baseline

import (
	"path/filepath"
	"testing"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/internal/dabenchdir"
)

// Real exports: each of DABench's 52 tables is profiled, its sketch read
// and checked by ParseSketch, and compared with itself; a table compared
// with its own sketch has no change past info (the counter-case of messy
// columns: mixed types, dates with zones, empty and constant columns,
// text read as numbers).
func TestCompareDABenchTablesWithThemselves(t *testing.T) {
	dir := dabenchdir.Require(t)
	names, err := filepath.Glob(filepath.Join(dir, "tables", "*.csv"))
	if err != nil || len(names) != 52 {
		t.Fatalf("%d tables (%v), want 52", len(names), err)
	}
	s := newSession(t, filepath.Join(dir, "tables"))
	for _, path := range names {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			s.t = t
			sk := s.sketch(name, false)
			c, _ := s.compare(sk, eda.DefaultChangeRules())
			if got := judged(c); len(got) > 0 {
				t.Errorf("compared with itself: %v", got)
			}
			for _, ch := range c.Changes {
				if ch.Value != nil && *ch.Value != 0 && ch.Check != eda.CheckRows {
					t.Errorf("compared with itself, %s of %v measures %g: %s", ch.Check, ch.Column, *ch.Value, ch.Text)
				}
			}
		})
	}
}
