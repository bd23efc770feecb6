package eda

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

// Every file of eda/py is a template that some stage reads, once (a file
// read by none is dead code; by two, two stages share code that should be
// one template).
func TestPyFilesEachReadOnce(t *testing.T) {
	files, err := fs.Glob(pyFS, "py/*.py")
	if err != nil || len(files) == 0 {
		t.Fatalf("py/*.py: %v, %d files", err, len(files))
	}
	for _, f := range files {
		name := strings.TrimPrefix(f, "py/")
		if n := pyLoads[name]; n != 1 {
			t.Errorf("py/%s is read %d times, want once", name, n)
		}
	}
	if len(pyLoads) != len(files) {
		t.Errorf("%d files read, %d in py/", len(pyLoads), len(files))
	}
}

// A cell's code ends at its last line: the file's final newline, and only
// that one, is cut; a file without one is refused.
func TestWithoutFinalNewline(t *testing.T) {
	for in, want := range map[string]string{"x = 1\n": "x = 1", "x = 1\n\n": "x = 1\n", "\n": ""} {
		if got := withoutFinalNewline("t.py", in); got != want {
			t.Errorf("withoutFinalNewline(%q) = %q, want %q", in, got, want)
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "py/t.py does not end with a newline") {
			t.Errorf("no final newline: recovered %v, want a panic naming the file", r)
		}
	}()
	withoutFinalNewline("t.py", "x = 1")
}

// Every template, rendered by the stages themselves with their real keys,
// in memory and out of core, for profiles that reach every section: constants
// panics on a constant the template lacks, and no "{{" is in any cell.
func TestEveryTemplateRendered(t *testing.T) {
	wide, small := wideProfile(40), wideProfile(6)
	stages := []Stage{Setup(), Load("/data/x.csv"),
		LoadFrom(Source{Path: "/data/y.xlsx", Sheet: "S", Table: "t", Converted: "/conv", Converter: "c", LoadOptions: LoadOptions{NAValues: []string{}}}),
		ProfileStage(), Distributions(wide, Options{}), Distributions(small, Options{}),
		Visualization(wide, Options{}), Visualization(small, Options{}),
		LoadOutOfCore(Source{Path: "/data/x.csv"}, OutOfCore{}), ProfileOutOfCore(), Relationships([]string{"a", "b"}),
		Changes(CompareInput{Manifest: "old.run.json", Data: "old.csv", SHA256: "ab", Sketch: []byte(`{"version": 1}`),
			Rules: columnRules()})}
	folder := Folder{Dir: "/data", Tables: []FolderTable{{Name: "a", Path: "a.csv"}, {Name: "b", Path: "b.parquet", Converted: "/data/b.parquet.columns", Converter: "c"}},
		Documents: []string{"manual.md"}}
	stages = append(stages, SetupFolder(folder), LoadFolder(folder), LoadTable(folder.Tables[0]), LoadTable(folder.Tables[1]),
		ProfileTable("a", true), ProfileTable("b", false), OtherTables(folder.Tables, 52), MainTable("a", 10, 2, false))
	for _, p := range []*Profile{wideProfile(40), wideProfile(6)} {
		p.OutOfCore = &OutOfCoreInfo{Rows: p.Rows, SampleRows: 10, ChunkRows: 100}
		stages = append(stages, DistributionsOutOfCore(p, Options{}))
	}
	sections := map[string]bool{}
	for _, st := range stages {
		for _, c := range st.Cells {
			for _, tag := range c.Tags {
				sections[tag] = true
			}
			if !c.Markdown && strings.Contains(c.Source, "{{") {
				t.Errorf("stage %s, cell %v: {{ left in:\n%s", st.Name, c.Tags, c.Source)
			}
		}
	}
	for _, tag := range []string{TagSetup, TagLoadData, "profile-columns", "profile-alerts", ProfileTag, "chart-helpers",
		"numeric-stats", "histograms", "top-values", "top-value-bars", "correlations", "missingness", "time-series", "second-pass",
		"relationships-find", RelationshipsTag, RelationshipsChartTag,
		SketchTag, "baseline-sketch", "compare-helpers", ChangesTag, "numeric-changes", "category-changes", "time-changes", "overlay-charts"} {
		if !sections[tag] {
			t.Errorf("no cell tagged %s: the test no longer renders that template", tag)
		}
	}
}

// columnRules are the default rules with a column's own threshold and level.
func columnRules() ChangeRules {
	r := DefaultChangeRules()
	r.Columns = map[string]ColumnRules{"revenue": {Thresholds: map[string]ChangeRule{CheckNumericShift: {Warn: at(0.3)}},
		Severities: map[string]string{ChangeRemoved: LevelInfo}}}
	return r
}

// No stage file holds a {{KEY}} to be replaced: a run's values are its
// constants, which the file sets to defaults, so that it runs on its own.
func TestStageFilesHoldNoPlaceholders(t *testing.T) {
	placeholder := regexp.MustCompile(`\{\{[A-Z][A-Z0-9_]*\}\}`)
	for name, src := range stageFiles(t) {
		if m := placeholder.FindString(src); m != "" {
			t.Errorf("py/%s: %s is code analyst pastes in; make it a constant the file sets (see constants)", name, m)
		}
	}
}
