package eda

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The sketch's and the comparison's constants are constants of the
// Python, set from thresholds.go, and the notes state them.
func TestChangeThresholdsFromGo(t *testing.T) {
	keyed := map[string][]string{
		"sketch_parts.py":     {"QUANTILE_POINTS", "VALUE_COUNTS_CAP", "TIME_PERIODS"},
		"sketch.py":           {"SKETCH_VERSION"},
		"compare_baseline.py": {"SIGNIFICANCE", "ID_MIN_ROWS", "FEW_VALUES", "RENAME_DISTANCE", "GAP_MIN_ROWS"},
	}
	for file, names := range keyed {
		b, err := pyFS.ReadFile("py/" + file)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if !regexp.MustCompile(`(?m)^`+name+` = .*  #`).MatchString(string(b)) || !setsConstant(file, name) {
				t.Errorf("%s: %s is not a constant (with its comment) set by constants", file, name)
			}
		}
	}
	code := stageCode(ProfileStage()) + stageCode(changesStage(DefaultChangeRules()))
	for _, line := range []string{"QUANTILE_POINTS = 1_000  #", "VALUE_COUNTS_CAP = 1_000  #", "TIME_PERIODS = 5_000  #",
		"SKETCH_VERSION = 1  #", "SIGNIFICANCE = 0.05  #", "ID_MIN_ROWS = 100  #", "FEW_VALUES = 5  #",
		"RENAME_DISTANCE = 0.1  #", "GAP_MIN_ROWS = 20  #",
		`THRESHOLDS = {"category-shift": (0.1, 0.3), "distinct": (None, None), "gaps": (1.0, None), "missing": (0.01, 0.1), ` +
			`"new-category": (0.01, 0.5), "numeric-shift": (0.1, 0.5), "rows": (1.5, 3.0), "vanished-category": (0.01, 0.5)}`,
		`SEVERITIES = {"added": "info", "duplicates": "warn", "removed": "fail", "renamed": "warn", "type": "fail"}`,
		"COLUMN_THRESHOLDS = {}\n", "COLUMN_SEVERITIES = {}\n"} {
		if !strings.Contains(code, line) {
			t.Errorf("rendered code has no %q", line)
		}
	}
	notes := stageNotes(changesStage(DefaultChangeRules())) + sketchMd
	for _, text := range []string{"| numeric-shift | the Wasserstein distance over the baseline's standard deviation",
		"Evidently's default test and threshold 0.1 for more than 1,000 rows", "| 0.1 | 0.5 |", "| rows | the larger row count over the smaller | 1.5 | 3 |",
		"| gaps |", "| 1 | never |", "removed **fail**, type **fail**, renamed **warn**, added **info**, duplicates **warn**",
		"p < α = 0.05 / m", "at most 0.1) are one column renamed", "at most 1,001 distinct values", "1,000 most frequent values",
		"at most 5,000 periods", "0.16% of the rows"} {
		if !strings.Contains(notes, text) {
			t.Errorf("the notes do not say %q", text)
		}
	}
}

// A column's own thresholds and levels are rendered for the Python and
// stated in the notes.
func TestChangesColumnRules(t *testing.T) {
	st := changesStage(columnRules())
	code, notes := stageCode(st), stageNotes(st)
	for _, want := range []string{"COLUMN_THRESHOLDS = {\n    \"revenue\": {\"numeric-shift\": (0.3, None)},\n}",
		"COLUMN_SEVERITIES = {\n    \"revenue\": {\"removed\": \"info\"},\n}"} {
		if !strings.Contains(code, want) {
			t.Errorf("code has no %q", want)
		}
	}
	if !strings.Contains(notes, "- `revenue`: numeric-shift warn at 0.3, fail at never; removed **info**") {
		t.Errorf("notes do not state the column's rules:\n%s", notes)
	}
}

// The baseline's sketch is embedded so that Python reads it back as it was,
// whatever its text holds (quotes, backslashes, three quotes in a row).
func TestChangesEmbedsSketch(t *testing.T) {
	raw := `{"version": 1, "columns": [{"name": "it's \"q\" \\ '''"}]}`
	code := stageCode(Changes(CompareInput{Manifest: "/home/u/out/old.run.json", Data: "old.csv", SHA256: "0123456789abcdef",
		Sketch: []byte(raw), Rules: DefaultChangeRules()}))
	want := `BASELINE = json.loads(r'''{"version": 1, "columns": [{"name": "it\u0027s \"q\" \\ \u0027\u0027\u0027"}]}''')`
	if !strings.Contains(code, want) {
		t.Errorf("code has no %s", want)
	}
	if !strings.Contains(code, `BASELINE_RUN = {"manifest": "old.run.json", "data": "old.csv", "sha256": "0123456789abcdef"}`) {
		t.Error("the baseline run is not named by its manifest's base name (no host path in the notebook)")
	}
}

// The checks the Python notes are the ones Go names (thresholds, levels,
// information only): a check added on one side only fails here.
func TestChangeChecksNamedOnce(t *testing.T) {
	b, err := pyFS.ReadFile("py/compare.py")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?:change|schema_level)\(\s*"([a-z-]+)"`).FindAllStringSubmatch(string(b), -1) {
		found[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`\("(new-category|vanished-category)", `).FindAllStringSubmatch(string(b), -1) {
		found[m[1]] = true
	}
	want := append(append(slices.Clone(ThresholdChecks), SeverityChanges...), ChangeDtype, ChangeTimeRange)
	for _, c := range want {
		if !found[c] {
			t.Errorf("compare.py never notes %q", c)
		}
		delete(found, c)
	}
	for c := range found {
		t.Errorf("compare.py notes %q, which Go does not name", c)
	}
}

func changesStage(r ChangeRules) Stage {
	return Changes(CompareInput{Manifest: "old.run.json", Data: "old.csv", SHA256: "ab", Sketch: []byte(`{}`), Rules: r})
}

func stageCode(st Stage) string {
	var b strings.Builder
	for _, c := range st.Cells {
		if !c.Markdown {
			b.WriteString(c.Source + "\n")
		}
	}
	return b.String()
}

func stageNotes(st Stage) string {
	var b strings.Builder
	for _, c := range st.Cells {
		if c.Markdown {
			b.WriteString(c.Source + "\n")
		}
	}
	return b.String()
}
