package eda

import (
	"strings"
	"testing"
)

// TestGenerated: every stage eda makes, a folder table's own included, is
// generated (the report folds its markdown); the model's are not.
func TestGenerated(t *testing.T) {
	for _, st := range []Stage{Setup(), ProfileStage(), LoadTable(FolderTable{Name: "a:b", Path: "a:b.csv"}),
		ProfileTable("orders", true), MainTable("orders", 3, 2, false), Relationships([]string{"a", "b"}), IndependentQuestions(),
		{Name: StageDistributions}, {Name: StageVisualization}, {Name: StageChanges}} {
		if !Generated(st.Name) {
			t.Errorf("stage %q is not Generated", st.Name)
		}
	}
	for _, name := range []string{"question-1", "reflection-2", "exploration", "", "loader"} {
		if Generated(name) {
			t.Errorf("%q is Generated", name)
		}
	}
}

// TestOtherTable: the name of each table of OtherTables reads back from its
// cell, whatever characters it has.
func TestOtherTable(t *testing.T) {
	names := []string{"plain", `qu"ote's\\back`, "new\nline\ttab", "中文 naïve", "emoji 😀", "ctl\x01"}
	var tables []FolderTable
	for _, n := range names {
		tables = append(tables, FolderTable{Name: n, Path: n + ".csv"})
	}
	var got []string
	for _, c := range OtherTables(tables, 60).Cells {
		if n, ok := OtherTable(c.Source); ok {
			got = append(got, n)
			if c.Table != n {
				t.Errorf("cell of %q names %q", n, c.Table)
			}
		}
	}
	if strings.Join(got, "|") != strings.Join(names, "|") {
		t.Errorf("tables read back %q, want %q", got, names)
	}
}
