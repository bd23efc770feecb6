package eda

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Which reading is right, DuckDB's or analyst's, for each file of the
// corpus where they differ (issue 35), judged one by one from the file
// itself: eda/testdata/corpus-judgements/*.tsv, one line per file,
// "file<TAB>better<TAB>why".

// judgementsDir holds the judgement files, one per kind of difference.
var judgementsDir = filepath.Join("testdata", "corpus-judgements")

// The values of a judgement's better field.
const (
	betterAnalyst = "analyst" // analyst's reading is the right one
	betterDuckDB  = "duckdb"  // DuckDB's is: analyst must be fixed, or alert
	betterBoth    = "both"    // a truly ambiguous file; analyst says so in an alert
	betterNeither = "neither" // neither reading is right
)

var betterValues = []string{betterAnalyst, betterDuckDB, betterBoth, betterNeither}

// judgement is one line of a judgement file.
type judgement struct {
	File, Better, Why string
	Source            string // "shape.tsv:12", for messages
}

// betterLabel is how the table says who is right.
var betterLabel = map[string]string{betterAnalyst: "analyst right", betterDuckDB: "DuckDB right",
	betterBoth: "both right (ambiguous)", betterNeither: "neither right"}

// verdictText is the judgement as the table's verdict cell ends.
func (j judgement) verdictText() string { return betterLabel[j.Better] + ": " + j.Why }

// readJudgements reads every judgement file, checking each line's format;
// the problems found are returned beside the judgements that parsed.
func readJudgements() (map[string]judgement, []string, error) {
	paths, err := filepath.Glob(filepath.Join(judgementsDir, "*.tsv"))
	if err != nil || len(paths) == 0 {
		return nil, nil, fmt.Errorf("reading the corpus judgements: no %s/*.tsv (%v)", judgementsDir, err)
	}
	judged := map[string]judgement{}
	var problems []string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, fmt.Errorf("reading the corpus judgements: %w", err)
		}
		for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			j, problem := parseJudgement(line)
			j.Source = fmt.Sprintf("%s:%d", filepath.Base(p), i+1)
			if problem == "" && judged[j.File].File != "" {
				problem = "judged twice, also at " + judged[j.File].Source
			}
			if problem != "" {
				problems = append(problems, fmt.Sprintf("%s: %s: %q", j.Source, problem, line))
				continue
			}
			judged[j.File] = j
		}
	}
	return judged, problems, nil
}

// parseJudgement parses "file<TAB>better<TAB>why", or says what is wrong.
func parseJudgement(line string) (judgement, string) {
	f := strings.Split(line, "\t")
	if len(f) != 3 {
		return judgement{}, fmt.Sprintf("%d tab-separated fields, want 3 (file, better, why)", len(f))
	}
	j := judgement{File: f[0], Better: f[1], Why: f[2]}
	switch {
	case j.File == "" || strings.TrimSpace(j.File) != j.File:
		return j, "the file field is empty or padded"
	case !slices.Contains(betterValues, j.Better):
		return j, fmt.Sprintf("better is %q, want one of %v", j.Better, betterValues)
	case len(strings.TrimSpace(j.Why)) < 10:
		return j, "the why field is missing or too short to say anything"
	case strings.Contains(j.Why, "|"):
		return j, "the why field holds a | (it goes into a Markdown table)"
	}
	return j, ""
}

// judgedVerdict folds the judgement of a differing file into its verdict
// cell, or returns a problem: a differing file nobody judged, or one
// where DuckDB is right (or both are) and analyst reads it without an alert.
func judgedVerdict(verdict, file string, a corpusReading, judged map[string]judgement) (string, string) {
	if verdict != "shape differs" && verdict != "types differ" {
		return verdict, ""
	}
	j, ok := judged[file]
	switch {
	case !ok:
		return verdict, fmt.Sprintf("%s (%s): no judgement in %s", file, verdict, judgementsDir)
	case (j.Better == betterDuckDB || j.Better == betterBoth) && a.Alert == "":
		return verdict + "; " + j.verdictText(), fmt.Sprintf("%s (%s): judged %q (%s), and analyst reads it without an alert",
			file, verdict, j.Better, j.Why)
	}
	return verdict + "; " + j.verdictText(), ""
}

// judgementCounts is the summary of the judgements used in the table:
// "analyst right 40, DuckDB right 3, ...".
func judgementCounts(used map[string]int) string {
	var parts []string
	for _, b := range betterValues {
		parts = append(parts, fmt.Sprintf("%s %d", betterLabel[b], used[b]))
	}
	return strings.Join(parts, ", ")
}

// TestCorpusJudgements checks the judgement files: their format, known
// better values, each file judged once, and, when the corpus is here, that
// each judged file is in it.
func TestCorpusJudgements(t *testing.T) {
	judged, problems, err := readJudgements()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if len(judged) == 0 {
		t.Fatal("no judgements read")
	}
	t.Run("in the corpus", func(t *testing.T) {
		dir := duckdbCorpus(t)
		for file, j := range judged {
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(file))); err != nil {
				t.Errorf("%s: %s is not a file of the corpus: %v", j.Source, file, err)
			}
		}
	})
}

// TestParseJudgement checks that each kind of malformed line is refused.
func TestParseJudgement(t *testing.T) {
	if _, p := parseJudgement("a.csv\tanalyst\tthe first row repeats the values below it"); p != "" {
		t.Errorf("a good line refused: %s", p)
	}
	for _, bad := range []string{
		"a.csv\tanalyst",
		"a.csv\tanalyst\twhy\textra field",
		"a.csv\tpandas\tthe first row repeats the values below it",
		"\tanalyst\tthe first row repeats the values below it",
		"a.csv\tanalyst\t",
		"a.csv\tduckdb\tthe a | b column",
	} {
		if _, p := parseJudgement(bad); p == "" {
			t.Errorf("%q accepted", bad)
		}
	}
}
