package evals_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/evals"
)

func writeSuite(t *testing.T, yaml string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	csv := "region,revenue\nEast,10\nWest,20\n"
	if err := os.WriteFile(filepath.Join(dir, "data", "s.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(csv))
	yaml = strings.ReplaceAll(yaml, "SHA", hex.EncodeToString(sum[:]))
	p := filepath.Join(dir, "suite.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadYAML(t *testing.T) {
	p := writeSuite(t, `name: basics
datasets:
  sales: {path: data/s.csv, sha256: SHA}
cases:
  - id: total
    dataset: sales
    question: What is the total revenue?
    tags: [summary]
    level: easy
    expect:
      - {name: total_revenue, value: "30", match: number, abs: 0.5}
    reference: print(f"@total_revenue[{df.revenue.sum()}]")
  - id: top
    dataset: sales
    question: Which region sells most?
    expect:
      - {name: top_region, value: West, match: casefold}
    charts:
      - {kind: bar, title: true, series: 1, values: [10, 20]}
`)
	s, err := evals.LoadYAML(p)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "basics" || len(s.Cases) != 2 || s.Kind != "yaml" || !strings.HasPrefix(s.Hash, "sha256:") {
		t.Fatalf("suite %+v", s)
	}
	c := s.Cases[0]
	if c.Expect[0].Match.Kind != evals.MatchNumber || c.Expect[0].Match.Abs != 0.5 || !c.HasTag("summary") || !c.HasTag("easy") ||
		!strings.Contains(c.Prompt, "@total_revenue[value]") || c.Dataset != filepath.Join(filepath.Dir(p), "data", "s.csv") {
		t.Errorf("case %+v", c)
	}
	if s.Cases[1].Charts[0].Kind != "bar" || len(s.Cases[1].Charts[0].Values) != 2 {
		t.Errorf("charts %+v", s.Cases[1].Charts)
	}
}

func TestLoadYAMLErrorsNameFileLineAndField(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown field", "datasets:\n  s: {path: data/s.csv}\ncases:\n  - id: a\n    dataset: s\n    question: q\n    expct: []\n", "suite.yaml: yaml: unmarshal errors:\n  line 7: field expct not found"},
		{"bad sha", "datasets:\n  s:\n    path: data/s.csv\n    sha256: abc\ncases:\n  - id: a\n    dataset: s\n    question: q\n    expect: [{name: x, value: '1'}]\n", "suite.yaml:4: datasets.s.sha256: data/s.csv has sha256"},
		{"missing data", "datasets:\n  s: {path: data/nope.csv}\ncases:\n  - id: a\n    dataset: s\n    question: q\n    expect: [{name: x, value: '1'}]\n", "suite.yaml:2: datasets.s.path: open"},
		{"unknown dataset", "datasets:\n  s: {path: data/s.csv}\ncases:\n  - id: a\n    dataset: t\n    question: q\n    expect: [{name: x, value: '1'}]\n", `suite.yaml:5: case a.dataset: "t" is not one of the suite's datasets`},
		{"bad matcher", "datasets:\n  s: {path: data/s.csv}\ncases:\n  - id: a\n    dataset: s\n    question: q\n    expect:\n      - {name: x, value: '1', match: fuzzy}\n", `suite.yaml:7: case a.expect[0].match: unknown match "fuzzy"`},
		{"duplicate id", "datasets:\n  s: {path: data/s.csv}\ncases:\n  - id: a\n    dataset: s\n    question: q\n    expect: [{name: x, value: '1'}]\n  - id: a\n    dataset: s\n    question: q\n    expect: [{name: x, value: '1'}]\n", "suite.yaml:8: case a.id: duplicate id"},
		{"no question", "datasets:\n  s: {path: data/s.csv}\ncases:\n  - id: a\n    dataset: s\n    expect: [{name: x, value: '1'}]\n", "suite.yaml:4: case a.question: missing"},
		{"bad name", "datasets:\n  s: {path: data/s.csv}\ncases:\n  - id: a\n    dataset: s\n    question: q\n    expect: [{name: 'a b', value: '1'}]\n", `suite.yaml:7: case a.expect[0].name: "a b" is not a name`},
		{"wrong type", "datasets:\n  s: {path: data/s.csv}\ncases:\n  - id: a\n    dataset: s\n    question: q\n    expect: [{name: x, value: '1', abs: lots}]\n", "line 7: cannot unmarshal !!str `lots` into float64"},
	}
	for _, tt := range tests {
		_, err := evals.LoadYAML(writeSuite(t, tt.yaml))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to contain %q", tt.name, err, tt.want)
		}
	}
}

func TestMatchers(t *testing.T) {
	tests := []struct {
		m          evals.Matcher
		pred, want string
		ok         bool
	}{
		{evals.Matcher{Kind: "exact"}, " East ", "East", true},
		{evals.Matcher{Kind: "exact"}, "east", "East", false},
		{evals.Matcher{Kind: "casefold"}, "EAST", "East", true},
		{evals.Matcher{Kind: "dabench"}, " 1.0", "1", true},
		{evals.Matcher{Kind: "dabench"}, "Yes", "yes", false},
		{evals.Matcher{Kind: "number"}, "1.0000001", "1", true},
		{evals.Matcher{Kind: "number"}, "1.01", "1", false},
		{evals.Matcher{Kind: "number", Abs: 0.05}, "1.04", "1", true},
		{evals.Matcher{Kind: "number", Abs: 0.05}, "1.06", "1", false},
		{evals.Matcher{Kind: "number", Rel: 0.01}, "101", "100", true},
		{evals.Matcher{Kind: "number", Rel: 0.01}, "102", "100", false},
		{evals.Matcher{Kind: "number", SigFigs: 3}, "1236", "1230", false},
		{evals.Matcher{Kind: "number", SigFigs: 3}, "1231", "1230", true},
		{evals.Matcher{Kind: "number", SigFigs: 2}, "0.0456", "0.046", true},
		{evals.Matcher{Kind: "number"}, "nan", "nan", false},
		{evals.Matcher{Kind: "number"}, "abc", "1", false},
		{evals.Matcher{Kind: "set"}, "West, east", "East,West", true},
		{evals.Matcher{Kind: "set"}, "[1.0, 2]", "2,1", true},
		{evals.Matcher{Kind: "set"}, "West", "East,West", false},
		{evals.Matcher{Kind: "list"}, "West, East", "East,West", false},
		{evals.Matcher{Kind: "list", Unordered: true}, "West, East", "East,West", true},
		{evals.Matcher{Kind: "list", Sep: ";"}, "a; b", "a;b", true},
	}
	for _, tt := range tests {
		if got := tt.m.Match(tt.pred, true, tt.want); got != tt.ok {
			t.Errorf("%+v: Match(%q, %q) = %v, want %v", tt.m, tt.pred, tt.want, got, tt.ok)
		}
	}
	if (evals.Matcher{Kind: "exact"}).Match("", false, "") {
		t.Error("a missing answer must never match")
	}
}
