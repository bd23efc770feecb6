package eda

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

// dabenchTables finds DABench's tables: ANALYST_DABENCH, else shared/dabench
// beside the repository (as CI lays it out) or beside the folder holding it
// (worktrees). It skips, loudly, when there are none.
func dabenchTables(t *testing.T) string {
	t.Helper()
	dir := sharedFolder(t, os.Getenv("ANALYST_DABENCH"), "dabench", "tables",
		"DABench's tables", "clone the repository next to shared/ or set ANALYST_DABENCH to the dabench folder")
	return filepath.Join(dir, "tables")
}

// sharedFolder is the folder rel of shared/ (the data beside the
// repository: as CI lays it out, or beside the folder holding it in
// worktrees), or dir when given, that holds marker. It skips the test,
// loudly, naming what and how to get it, when there is none.
func sharedFolder(t *testing.T, dir, rel, marker, what, how string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := wd
	for !fileExists(filepath.Join(root, "go.mod")) && filepath.Dir(root) != root {
		root = filepath.Dir(root)
	}
	candidates := []string{dir, filepath.Join(root, "..", "shared", rel), filepath.Join(root, "..", "..", "shared", rel)}
	for _, dir := range candidates {
		if dir != "" && fileExists(filepath.Join(dir, marker)) {
			return dir
		}
	}
	msg := fmt.Sprintf("SKIPPED: %s not found (looked in %q); %s", what, candidates[1:], how)
	fmt.Fprintln(os.Stderr, "!!! "+msg)
	t.Skip(msg)
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// csvRecords counts the records of a CSV file after its header, as Go's
// reader sees them (lines that end with a lone carriage return included).
func csvRecords(t *testing.T, path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("\n")) {
		b = bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("reading %s in Go: %v", path, err)
	}
	return len(recs) - 1
}

// Every one of DABench's 52 tables loads and is profiled, in one kernel
// (the stages re-define everything they use, as each analyst run does in
// its own kernel). The distributions stage is left out to keep the test
// short: it reads only the profile, which is checked here.
func TestDABenchTablesLoad(t *testing.T) {
	tables := dabenchTables(t)
	names, err := filepath.Glob(filepath.Join(tables, "*.csv"))
	if err != nil || len(names) != 52 {
		t.Fatalf("%d tables in %s (%v), want 52", len(names), tables, err)
	}
	k := kerneltest.Start(t, func(o *kernel.Options) { o.Data = tables })
	mustRun(t, k, Setup())
	start := time.Now()
	for _, path := range names {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			load := runStage(t, k, Load("/data/"+name))
			if load.err != nil {
				t.Fatalf("load: %s: %s", load.err.Status, traceback(load.err))
			}
			prof := mustRun(t, k, ProfileStage())
			p := profileOf(t, prof)
			t.Logf("load %v, profile %v", load.took.Round(time.Millisecond), prof.took.Round(time.Millisecond))
			if p.Columns < 2 {
				t.Errorf("%d column(s): the delimiter or line ends were not found", p.Columns)
			}
			skipped, preamble := false, 0
			for _, n := range p.Load.Notes {
				skipped = skipped || strings.Contains(n, "ragged row")
				fmt.Sscanf(n, "the file starts with %d line(s) before the header", &preamble)
			}
			// Lines above the header (a title) are not rows; Go's reader counts them.
			if want := csvRecords(t, path) - preamble; p.Rows != want && !skipped {
				t.Errorf("%d rows, Go's CSV reader counts %d after the %d line(s) above the header", p.Rows, want, preamble)
			}
			if name == "gapminder_cleaned.csv" || name == "beauty and the labor market.csv" {
				wantNote(t, p, "carriage return only")
			}
			if name == "Current_Logan.csv" { // a title padded with commas above the header, as Excel exports it
				wantNote(t, p, "the file starts with 1 line(s) before the header (a title or comments, not data), which were skipped: 'JAMES LOGAN'")
				if c := p.ColumnInfo[0]; c.Name != "Wins" || c.Kind != KindNumeric || preamble != 1 {
					t.Errorf("first column %q (%s), want Wins, numeric", c.Name, c.Kind)
				}
			} else if preamble != 0 {
				t.Errorf("%d line(s) above the header found, want none: %q", preamble, p.Load.Notes)
			}
			dabenchExports(t, name, p)
		})
	}
	t.Logf("52 tables: load and profile in %v", time.Since(start).Round(time.Second))
}

// dabenchExports checks what the loader's rules on exports (issue #20)
// find in DABench's tables: codes with leading zeros kept as text, dates
// read in the order another column proves, identifiers that are not
// measures.
func dabenchExports(t *testing.T, name string, p *Profile) {
	t.Helper()
	switch name {
	case "election2016.csv": // county FIPS codes: 02013 is Alaska's Aleutians East
		wantKinds(t, p, map[string]string{"combined_fips": KindCategorical})
		wantNote(t, p, "'combined_fips' keeps its leading zeros: 316 value(s) such as '02013'")
	case "0020200722.csv": // NBA game ids
		wantKinds(t, p, map[string]string{"GAME_ID": KindCategorical})
	case "city_departments_in_current_budget.csv": // US fiscal years: 10/1/2016 to 9/30/2017
		wantNote(t, p, "the dates in 'budget_year_end' are month first (%m/%d/%Y): 38 value(s) have a second number above 12, such as '9/30/2017'")
		if c := p.col(t, "budget_year_start"); c.MinDate != "2016-10-01T00:00:00" {
			t.Errorf("budget_year_start %s, want 2016-10-01 (month first, as budget_year_end proves)", c.MinDate)
		}
	case "titanic.csv":
		if !p.hasAlert(AlertIdentifier, "PassengerId") || p.hasAlert(AlertIdentifier, "Fare") {
			t.Errorf("identifier alerts %+v: want PassengerId's, not Fare's", p.Alerts)
		}
	}
}
