package baseline

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/internal/runfile"
)

const sketchJSON = `{"version": 1, "rows": 4, "quantile_points": 1000, "value_counts_cap": 1000, "time_periods": 5000, "columns": [
 {"name": "price", "dtype": "float64", "kind": "numeric", "missing": 1, "distinct": 2, "distinct_exact": true,
  "numbers": {"count": 3, "infinite": 0, "exact": true, "min": 1.5, "max": 2.5, "mean": 1.8333, "std": 0.57,
              "points": [1.5, 2.5], "weights": [2, 1]}},
 {"name": "region", "dtype": "object", "kind": "categorical", "missing": 0, "distinct": 2, "distinct_exact": true,
  "values": {"top": [["North", 3], ["it's", 1]], "other_rows": 0, "other_values": 0, "complete": true, "sample": null}},
 {"name": "day", "dtype": "datetime64[ns]", "kind": "datetime", "missing": 0, "distinct": 2, "distinct_exact": true,
  "dates": {"min": "2024-01-01T00:00:00", "max": "2024-01-02T00:00:00", "zone": null, "unit": "h", "periods": [[473352, 3], [473376, 1]]}}]}`

func TestParseSketch(t *testing.T) {
	s, err := ParseSketch([]byte(sketchJSON))
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows != 4 || len(s.Columns) != 3 || s.Columns[1].Values.Top[1] != (ValueCount{"it's", 1}) || *s.Columns[2].Dates.Unit != "h" {
		t.Errorf("parsed %+v", s)
	}
	// The same sketch gives the same bytes, and they read back the same.
	again, err := ParseSketch(s.JSON())
	if err != nil || string(again.JSON()) != string(s.JSON()) {
		t.Errorf("round trip: %v\n%s\n%s", err, again.JSON(), s.JSON())
	}
	bad := map[string]struct{ from, to, want string }{
		"version":   {`"version": 1`, `"version": 2`, "its sketch is version 2, and this analyst compares version 1"},
		"unsorted":  {`"points": [1.5, 2.5]`, `"points": [2.5, 1.5]`, "points not finite and increasing"},
		"weights":   {`"weights": [2, 1]`, `"weights": [2, 2]`, "weights add up to 4, not the count 3"},
		"duplicate": {`["it's", 1]`, `["North", 1]`, `value "North" twice`},
		"kind":      {`"kind": "categorical"`, `"kind": "colour"`, `unknown kind "colour"`},
		"unit":      {`"unit": "h"`, `"unit": "s"`, "dates without a period unit"},
		"missing":   {`"missing": 1,`, `"missing": 9,`, "9 missing"},
		"no JSON":   {`{"version"`, `["version"`, "not a sketch"},
	}
	for name, b := range bad {
		raw := strings.Replace(sketchJSON, b.from, b.to, 1)
		if _, err := ParseSketch([]byte(raw)); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: error %v, want one saying %q", name, err, b.want)
		}
	}
	var ve *VersionError
	if _, err := ParseSketch([]byte(strings.Replace(sketchJSON, `"version": 1`, `"version": 7`, 1))); !errors.As(err, &ve) || ve.Got != 7 {
		t.Errorf("version 7: %v, want a *VersionError", err)
	}
}

// writeRun writes a run's sketch as analyst run does, and returns the
// path its record would have (Open reads the sketch beside it).
func writeRun(t *testing.T, sketch string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "old_files"), 0o755); err != nil {
		t.Fatal(err)
	}
	if sketch != "" {
		if err := os.WriteFile(filepath.Join(dir, "old_files", SketchFile), []byte(sketch), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "old.run.json")
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestOpen(t *testing.T) {
	ref := &SketchRef{File: "old_files/sketch.json", Version: 1}
	files := []runfile.File{{Path: "old_files/sketch.json", SHA256: sum(sketchJSON)}}
	data := Data{Name: "old.csv", SHA256: "ab"}
	b, err := Open(writeRun(t, sketchJSON), "v1", data, ref, files)
	if err != nil {
		t.Fatal(err)
	}
	if b.Data.Name != "old.csv" || b.Data.Rows != 4 || len(b.Sketch.Columns) != 3 {
		t.Errorf("opened %+v", b)
	}

	cases := map[string]struct {
		version string
		ref     *SketchRef
		sketch  string
		want    string
	}{
		"a run of an analyst before sketches": {"v0.9", nil, "",
			"it was written by analyst v0.9, which kept no sketch of the data for comparisons; re-run the baseline with this version of analyst"},
		"a newer sketch version": {"v1", &SketchRef{File: "old_files/sketch.json", Version: 2}, sketchJSON,
			"its sketch is version 2, and this analyst compares version 1; re-run the baseline"},
		"the sketch edited since": {"v1", ref, strings.Replace(sketchJSON, `"rows": 4`, `"rows": 5`, 1),
			"its sketch old_files/sketch.json is not the file the run wrote"},
		"the sketch gone": {"v1", ref, "", "its sketch old_files/sketch.json cannot be read"},
	}
	for name, c := range cases {
		_, err := Open(writeRun(t, c.sketch), c.version, data, c.ref, files)
		var be *Error
		if !errors.As(err, &be) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an *Error saying %q", name, err, c.want)
		}
	}
}

func TestRules(t *testing.T) {
	r, err := Rules(Settings{
		Thresholds: map[string]any{"numeric-shift": map[string]any{"warn": 0.2}, "gaps": map[string]any{"fail": 10, "warn": "never"}},
		Levels:     map[string]any{"added": "warn"},
		Columns: []any{map[string]any{"name": "Revenue", "numeric-shift": map[string]any{"fail": "0.9"}, "removed": "info"},
			map[string]any{"name": "rows grow", "distinct": map[string]any{"warn": 4}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ns := r.Thresholds[eda.CheckNumericShift]
	if *ns.Warn != 0.2 || *ns.Fail != 0.5 {
		t.Errorf("numeric-shift: warn %v fail %v, want 0.2 (set) and 0.5 (default)", *ns.Warn, *ns.Fail)
	}
	if g := r.Thresholds[eda.CheckGaps]; g.Warn != nil || *g.Fail != 10 {
		t.Errorf("gaps: %+v, want warn never, fail 10", g)
	}
	if r.Severities[eda.ChangeAdded] != eda.LevelWarn || r.Severities[eda.ChangeRemoved] != eda.LevelFail {
		t.Errorf("levels: %v", r.Severities)
	}
	rev := r.Columns["Revenue"] // the name keeps its case
	if c := rev.Thresholds[eda.CheckNumericShift]; *c.Warn != 0.2 || *c.Fail != 0.9 || rev.Severities[eda.ChangeRemoved] != eda.LevelInfo {
		t.Errorf("Revenue: %+v", rev)
	}
	if c := r.Columns["rows grow"].Thresholds[eda.CheckDistinct]; *c.Warn != 4 || c.Fail != nil {
		t.Errorf("rows grow: %+v", c)
	}

	bad := map[string]struct {
		s    Settings
		want string
	}{
		"unknown check":    {Settings{Thresholds: map[string]any{"shift": map[string]any{"warn": 1}}}, "baseline.thresholds.shift: unknown check; checks with thresholds: rows, missing"},
		"not a number":     {Settings{Thresholds: map[string]any{"rows": map[string]any{"warn": "lots"}}}, `baseline.thresholds.rows.warn must be a number or never, got "lots"`},
		"negative":         {Settings{Thresholds: map[string]any{"rows": map[string]any{"warn": -1}}}, "must be a number of 0 or more"},
		"fail below warn":  {Settings{Thresholds: map[string]any{"missing": map[string]any{"warn": 0.5}}}, "fail at 0.1 is below warn at 0.5"},
		"not warn or fail": {Settings{Thresholds: map[string]any{"rows": map[string]any{"error": 2}}}, "a threshold is warn: or fail:"},
		"bad level":        {Settings{Levels: map[string]any{"removed": "error"}}, "baseline.levels.removed must be info, warn, fail"},
		"level of a check": {Settings{Levels: map[string]any{"rows": "warn"}}, "baseline.levels.rows: unknown schema change"},
		"columns as a map": {Settings{Columns: map[string]any{"revenue": map[string]any{}}}, "baseline.columns must be a list of columns, each with a name"},
		"no name":          {Settings{Columns: []any{map[string]any{"removed": "info"}}}, "baseline.columns[0] has no name:"},
		"twice":            {Settings{Columns: []any{map[string]any{"name": "a"}, map[string]any{"name": "a"}}}, `baseline.columns[1]: column "a" is listed twice`},
		"unknown key":      {Settings{Columns: []any{map[string]any{"name": "a", "drift": 1}}}, "baseline.columns[0].drift: unknown check; a column may set rows, missing"},
	}
	for name, b := range bad {
		if _, err := Rules(b.s); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, b.want)
		}
	}
}

func TestChangesAndSummary(t *testing.T) {
	raw := `{"worst": "warn", "counts": {"info": 1, "warn": 1, "fail": 0}, "alpha": 0.025, "tests": 2, "changes": [
	 {"check": "numeric-shift", "column": "unit | price", "level": "warn", "text": "W/σ = 0.31 (W = 18.4)", "value": 0.3109, "p_value": 0.0, "warn": 0.1, "fail": 0.5},
	 {"check": "rows", "column": null, "level": "info", "text": "rows 100 → 100", "value": 1, "p_value": null, "warn": 1.5, "fail": 3}]}`
	c, err := ParseChanges([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if !c.AtLeast(eda.LevelWarn) || c.AtLeast(eda.LevelFail) || !c.AtLeast(eda.LevelInfo) {
		t.Errorf("AtLeast: worst %s", c.Worst)
	}
	b := &Baseline{Manifest: "/ci/old/sales.run.json", Data: Data{Name: "sales.csv", Rows: 1234567}}
	md := SummaryMarkdown("new.csv", b, c, "")
	for _, want := range []string{"### What changed: `new.csv` against `sales.run.json`: **warn**",
		"0 at fail, 1 at warn, 1 at info (baseline data `sales.csv`, 1,234,567 rows).",
		"| level | check | column | measure (warn / fail at) | what changed |",
		"| warn | numeric-shift | `unit \\| price` | 0.311 (0.1 / 0.5) | W/σ = 0.31 (W = 18.4) |"} {
		if !strings.Contains(md, want) {
			t.Errorf("summary has no %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "rows 100") {
		t.Errorf("summary lists a change at info:\n%s", md)
	}
	if md := SummaryMarkdown("new.csv", b, nil, "stage load failed: bad CSV"); !strings.Contains(md, "The comparison did not run: stage load failed: bad CSV") {
		t.Errorf("summary of a run that stopped before the comparison:\n%s", md)
	}
	if _, err := ParseChanges([]byte(`{"worst": "error", "changes": []}`)); err == nil {
		t.Error("a level that is not info, warn or fail was read")
	}
}
