package evals_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/analyst-cli/analyst/evals"
	"github.com/analyst-cli/analyst/evals/dabench"
	"github.com/analyst-cli/analyst/internal/dabenchdir"
	"github.com/analyst-cli/analyst/nbformat"
)

// fakeSolver answers from a table: at the boundary of what the runner
// drives, so resume, shards and outputs are tested without kernels.
type fakeSolver struct {
	model   evals.Model
	answers map[string]string // case id → response
	fail    map[string]error
	flaky   map[string]bool // wrong on odd repeats
	mu      sync.Mutex
	calls   []string
}

func (f *fakeSolver) Model() evals.Model { return f.model }

func (f *fakeSolver) Solve(ctx context.Context, c evals.Case) (*evals.Attempt, error) {
	f.mu.Lock()
	f.calls = append(f.calls, c.ID)
	f.mu.Unlock()
	if err := f.fail[c.ID]; err != nil {
		return &evals.Attempt{}, err
	}
	resp := f.answers[c.ID]
	if f.flaky[c.ID] && c.Repeat%2 == 1 {
		resp = "@a[wrong]"
	}
	nb := nbformat.New()
	nb.AddCode(fmt.Sprintf("print(%q)", resp), []nbformat.Output{nbformat.Stream("stdout", resp+"\n")}, 1, "stage:question-1")
	return &evals.Attempt{Response: resp, PromptTokens: 100, CompletionTokens: 10, ModelMS: 5, KernelMS: 7,
		Steps: []evals.TraceStep{{Status: "ok"}}, Record: &evals.CaseRecord{Notebook: nb, DataName: "t.csv"}}, nil
}

// miniDABench writes a DABench-layout suite of n questions over one table.
func miniDABench(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "tables"), 0o755); err != nil {
		t.Fatal(err)
	}
	var qs, ls strings.Builder
	concepts := []string{`["Summary Statistics"]`, `["Correlation Analysis", "Summary Statistics"]`, `["Outlier Detection"]`}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&qs, `{"id": %d, "question": "What is q%d?", "concepts": %s, "constraints": "Round to 2 places.", "format": "@a[value]", "file_name": "t.csv", "level": "%s"}`+"\n",
			i*3, i, concepts[i%3], []string{"easy", "medium", "hard"}[i%3])
		fmt.Fprintf(&ls, `{"id": %d, "common_answers": [["a", "%d.5"], ["b", "x%d"]]}`+"\n", i*3, i, i)
	}
	for name, content := range map[string]string{"da-dev-questions.jsonl": qs.String(), "da-dev-labels.jsonl": ls.String(), "tables/t.csv": "a,b\n1,2\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// answersFor answers case i right when right(i), else with a near miss on a.
func answersFor(n int, right func(int) bool) map[string]string {
	m := map[string]string{}
	for i := 0; i < n; i++ {
		if right(i) {
			m[fmt.Sprint(i*3)] = fmt.Sprintf("@a[%d.5] @b[x%d]", i, i)
		} else {
			m[fmt.Sprint(i*3)] = fmt.Sprintf("@a[%d.5001] @b[x%d]", i, i)
		}
	}
	return m
}

func options(t *testing.T, s *evals.Suite, out string, solvers ...evals.Solver) evals.Options {
	return evals.Options{Suite: s, Solvers: solvers, Out: out, Jobs: 3, ImageID: "img1", Seed: 42}
}

func TestRunScoresResumesAndRefusesStaleResults(t *testing.T) {
	s, err := evals.LoadDABench(miniDABench(t, 12))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cases) != 12 || !strings.HasPrefix(s.Cases[1].Prompt, `\Question{What is q1?}`) || !strings.Contains(s.Cases[1].Prompt, `\Format{@a[value]}`) {
		t.Fatalf("suite: %d cases, prompt %q", len(s.Cases), s.Cases[1].Prompt)
	}
	f := &fakeSolver{model: evals.Model{Spec: "ollama:m", Digest: "sha256:1"}, answers: answersFor(12, func(i int) bool { return i%2 == 0 }),
		fail: map[string]error{"33": &evals.SolveError{Class: evals.ClassModelError, Err: errors.New("boom")}}}
	out := t.TempDir()
	o := options(t, s, out, f)
	o.Limit = 5
	if _, err := evals.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if len(f.calls) != 5 {
		t.Fatalf("limit 5: %d calls", len(f.calls))
	}
	o.Limit = 0
	sum, err := evals.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.calls) != 12 {
		t.Errorf("the rerun must skip the 5 finished cases: %d calls in all", len(f.calls))
	}
	// The resumed run links to the case files of both runs: 11 cases with
	// a notebook and a report, the model error without.
	if n := linksResolve(t, out); n != 22 {
		t.Errorf("report.html of the resumed run has %d links to case files, want 22", n)
	}
	m := sum.Models[0]
	// Cases 0,2,4,6,8,10 right; 11 (id 33) is a model error with no response.
	if m.Cases != 12 || m.Passed != 6 || m.Failed != 5 || m.Errors != 1 || m.Answered != 11 {
		t.Errorf("summary: %+v", m)
	}
	if m.Official.ABQ != dabench.Round4(6.0/11) || m.Strict.ABQ != 0.5 || m.Score != 0.5 || m.Official.UASQ != dabench.Round4(17.0/22) {
		t.Errorf("figures: official %+v strict %+v score %v", m.Official, m.Strict, m.Score)
	}
	wantClasses := []evals.ClassCount{{Class: evals.ClassNearMiss, Count: 5}, {Class: evals.ClassModelError, Count: 1}}
	if fmt.Sprint(m.Classes) != fmt.Sprint(wantClasses) {
		t.Errorf("classes %v, want %v", m.Classes, wantClasses)
	}
	// The responses file rescored by the official semantics gives the same figures.
	rs, err := dabench.LoadResponses(filepath.Join(out, m.Responses))
	if err != nil {
		t.Fatal(err)
	}
	qs, _ := dabench.LoadQuestions(filepath.Join(s.Path, evals.DABenchQuestions))
	ls, _ := dabench.LoadLabels(filepath.Join(s.Path, evals.DABenchLabels))
	official, err := dabench.Score(qs, ls, rs)
	if err != nil {
		t.Fatal(err)
	}
	if official.Official != m.Official || official.Strict != m.Strict || fmt.Sprint(official.Concepts) != fmt.Sprint(m.Concepts) {
		t.Errorf("rescored responses %+v %+v %v, summary %+v %+v %v", official.Official, official.Strict, official.Concepts, m.Official, m.Strict, m.Concepts)
	}

	// --retry-errors redoes only the error.
	f.fail = nil
	o.RetryErrors = true
	sum, err = evals.Run(context.Background(), o)
	if err != nil || len(f.calls) != 13 || f.calls[12] != "33" || sum.Models[0].Errors != 0 {
		t.Errorf("retry-errors: %v, calls %v, %+v", err, f.calls, sum.Models[0])
	}
	// Another image: the old results are stale, and never mixed in.
	o.RetryErrors, o.ImageID = false, "img2"
	var stale *evals.StaleError
	if _, err := evals.Run(context.Background(), o); !errors.As(err, &stale) || !strings.Contains(err.Error(), "another kernel image") {
		t.Errorf("stale image: %v", err)
	}
	f.model.Digest = "sha256:2"
	o.ImageID = "img1"
	if _, err := evals.Run(context.Background(), o); !errors.As(err, &stale) || !strings.Contains(err.Error(), "another build of ollama:m") {
		t.Errorf("stale model digest: %v", err)
	}
	o.Force = true
	if _, err := evals.Run(context.Background(), o); err != nil || len(f.calls) != 25 {
		t.Errorf("--force: %v, %d calls", err, len(f.calls))
	}
	results, _ := evals.ReadResults(filepath.Join(out, evals.ResultsFile))
	for _, r := range results {
		if r.ModelDigest != "sha256:2" {
			t.Errorf("a stale result survived --force: %+v", r)
		}
	}
}

func TestShardsMergeToTheUnshardedRun(t *testing.T) {
	s, err := evals.LoadDABench(miniDABench(t, 20))
	if err != nil {
		t.Fatal(err)
	}
	newSolvers := func() []evals.Solver {
		return []evals.Solver{
			&fakeSolver{model: evals.Model{Spec: "ollama:a", Digest: "sha256:a"}, answers: answersFor(20, func(i int) bool { return i%3 != 0 })},
			&fakeSolver{model: evals.Model{Spec: "openai:b"}, answers: answersFor(20, func(i int) bool { return i%4 == 0 }),
				fail: map[string]error{"9": &evals.SolveError{Class: evals.ClassSandboxError, Err: errors.New("died")}}},
		}
	}
	root := t.TempDir()
	full := filepath.Join(root, "full")
	if _, err := evals.Run(context.Background(), options(t, s, full, newSolvers()...)); err != nil {
		t.Fatal(err)
	}
	var dirs []string
	total := 0
	for i := 0; i < 2; i++ {
		d := filepath.Join(root, fmt.Sprintf("shard%d", i))
		o := options(t, s, d, newSolvers()...)
		o.Shard = evals.Shard{Index: i, Count: 2}
		if _, err := evals.Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		rs, _ := evals.ReadResults(filepath.Join(d, evals.ResultsFile))
		if len(rs) == 0 || len(rs) == 40 {
			t.Fatalf("shard %d has %d results: the split is degenerate", i, len(rs))
		}
		total += len(rs)
		dirs = append(dirs, d)
	}
	if total != 40 {
		t.Fatalf("shards hold %d results, want 40", total)
	}
	merged := filepath.Join(root, "merged")
	if _, err := evals.Merge(merged, dirs); err != nil {
		t.Fatal(err)
	}
	names := []string{evals.ResultsFile, evals.SummaryFile, evals.ReportFile, evals.HTMLFile, evals.JUnitFile, "responses/ollama_a.jsonl", "responses/openai_b.jsonl"}
	caseFiles := filesUnder(t, full, evals.CasesDir)
	if len(caseFiles) != 2*40-2 { // a notebook and a report per result, none for the sandbox error
		t.Errorf("the unsharded run wrote %d case files, want 78: %v", len(caseFiles), caseFiles)
	}
	if merged := filesUnder(t, merged, evals.CasesDir); fmt.Sprint(merged) != fmt.Sprint(caseFiles) {
		t.Errorf("case files: merged %v, unsharded %v", merged, caseFiles)
	}
	for _, name := range append(names, caseFiles...) {
		a, b := readNoTimings(t, filepath.Join(full, name)), readNoTimings(t, filepath.Join(merged, name))
		if a != b {
			t.Errorf("%s differs between the unsharded run and the merged shards:\n%s\n---\n%s", name, a, b)
		}
	}
	if n := linksResolve(t, merged); n != 78 {
		t.Errorf("the merged report.html links to %d case files, want 78", n)
	}
	if _, err := evals.Merge(filepath.Join(root, "twice"), []string{dirs[0], dirs[0]}); err == nil || !strings.Contains(err.Error(), "overlap") {
		t.Errorf("merging a shard twice: %v", err)
	}
	// A part missing, a whole run beside shards, a shard that did not
	// finish (no summary yet): each refused, naming it.
	unfinished := filepath.Join(root, "unfinished")
	if err := os.MkdirAll(unfinished, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		dirs []string
		want string
	}{
		"missing":    {[]string{dirs[0]}, "shard 1/2 missing: give every shard's folder (1 of 2 given)"},
		"whole":      {[]string{dirs[0], dirs[1], full}, full + ": it holds no shard, the others are shards of 2"},
		"unfinished": {[]string{dirs[0], dirs[1], unfinished}, unfinished + ": reading its summary.json (a shard that did not finish"},
	} {
		if _, err := evals.Merge(filepath.Join(root, name), c.dirs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("merging %s: %v; want %q", name, err, c.want)
		}
	}
	// A shard run on another image is not mixed in.
	other := filepath.Join(root, "other-image")
	o := options(t, s, other, newSolvers()...)
	o.Shard, o.ImageID = evals.Shard{Index: 1, Count: 2}, "img2"
	if _, err := evals.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if _, err := evals.Merge(filepath.Join(root, "mixed"), []string{dirs[0], other}); err == nil || !strings.Contains(err.Error(), "another kernel image (img2, not img1)") {
		t.Errorf("merging shards of two images: %v", err)
	}
}

// filesUnder lists the files under dir/sub, relative to dir, sorted.
func filesUnder(t *testing.T, dir, sub string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(dir, sub), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

var href = regexp.MustCompile(`href="([^"]*)"`)

// linksResolve checks that every link of dir's report.html is relative and
// names a file that exists; it returns how many links there are.
func linksResolve(t *testing.T, dir string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, evals.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	links := href.FindAllStringSubmatch(string(data), -1)
	for _, l := range links {
		target := html.UnescapeString(l[1])
		if filepath.IsAbs(target) || strings.Contains(target, ":") || strings.Contains(target, "..") {
			t.Errorf("report.html links outside its folder: %q", target)
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(target))); err != nil {
			t.Errorf("report.html links to %q: %v", target, err)
		}
	}
	return len(links)
}

var timings = regexp.MustCompile(`"wall_ms": ?[0-9.e+-]+|time="[0-9.]+"`)

// readNoTimings reads a file with its wall-clock timings blanked.
func readNoTimings(t *testing.T, p string) string {
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return timings.ReplaceAllString(string(data), "T")
}

// InfiAgent's repository keeps the tables in da-dev-tables/: a clone of
// its data folder is a suite as it is, with the same hash as tables/.
func TestLoadDABenchFromInfiAgentsLayout(t *testing.T) {
	dir := miniDABench(t, 3)
	want, err := evals.LoadDABench(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "tables"), filepath.Join(dir, "da-dev-tables")); err != nil {
		t.Fatal(err)
	}
	s, err := evals.LoadDABench(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cases) != 3 || s.Cases[0].Dataset != filepath.Join(dir, "da-dev-tables", "t.csv") || s.Hash != want.Hash {
		t.Errorf("%d cases, dataset %s, hash %s (tables/: %s)", len(s.Cases), s.Cases[0].Dataset, s.Hash, want.Hash)
	}
}

func TestParseShard(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	for _, tt := range []struct {
		in, env string
		want    evals.Shard
		err     bool
	}{
		{"0/2", "", evals.Shard{0, 2}, false},
		{"1/2", "", evals.Shard{1, 2}, false},
		{"3", "2", evals.Shard{2, 3}, false},
		{"3", "", evals.Shard{}, true},
		{"2/2", "", evals.Shard{}, true},
		{"-1/2", "", evals.Shard{}, true},
		{"a/b", "", evals.Shard{}, true},
	} {
		got, err := evals.ParseShard(tt.in, env(tt.env))
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseShard(%q, JOB_COMPLETION_INDEX=%q) = %v, %v", tt.in, tt.env, got, err)
		}
	}
}

// realDABench loads ../shared/dabench (found by dabenchdir), or skips the
// test for missing data.
func realDABench(t testing.TB) (string, *evals.Suite) {
	t.Helper()
	dir := dabenchdir.Require(t)
	s, err := evals.LoadDABench(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, s
}

func TestLoadTheRealDABench(t *testing.T) {
	_, s := realDABench(t)
	subs := 0
	for _, c := range s.Cases {
		subs += len(c.Expect)
	}
	if len(s.Cases) != 257 || subs != 456 {
		t.Errorf("%d cases, %d sub-answers; want 257 and 456", len(s.Cases), subs)
	}
	var buf bytes.Buffer
	_ = json.NewEncoder(&buf).Encode(s.Cases[0])
	if !strings.Contains(buf.String(), "mean_fare") {
		t.Errorf("case 0: %s", buf.String())
	}
}

func TestCompare(t *testing.T) {
	s, err := evals.LoadDABench(miniDABench(t, 12))
	if err != nil {
		t.Fatal(err)
	}
	a, b := t.TempDir(), t.TempDir()
	// A right on 0..9, B right on 0..5 and 10, 11: 4 regressions, 2 improvements.
	fa := &fakeSolver{model: evals.Model{Spec: "ollama:a"}, answers: answersFor(12, func(i int) bool { return i < 10 })}
	fb := &fakeSolver{model: evals.Model{Spec: "ollama:b"}, answers: answersFor(12, func(i int) bool { return i < 6 || i >= 10 })}
	for dir, f := range map[string]*fakeSolver{a: fa, b: fb} {
		if _, err := evals.Run(context.Background(), options(t, s, dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	c, err := evals.Compare(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if c.BothRight != 6 || c.BothWrong != 0 || fmt.Sprint(c.Regressions) != "[18 21 24 27]" || fmt.Sprint(c.Improvements) != "[30 33]" ||
		c.P != evals.McNemarExact(4, 2) || c.A != "ollama:a" || c.B != "ollama:b" {
		t.Errorf("comparison %+v", c)
	}
}

func TestRepeatsGivePassAtKAndFlakyCases(t *testing.T) {
	s, err := evals.LoadDABench(miniDABench(t, 6))
	if err != nil {
		t.Fatal(err)
	}
	// Right: 0, 1, 2 always; 3 on even repeats only; 4, 5 never.
	f := &fakeSolver{model: evals.Model{Spec: "ollama:m"}, answers: answersFor(6, func(i int) bool { return i < 4 }), flaky: map[string]bool{"9": true}}
	o := options(t, s, t.TempDir(), f)
	o.Repeat = 3
	sum, err := evals.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	m := sum.Models[0]
	if len(f.calls) != 18 || m.Repeats != 3 || m.PassAtK != dabench.Round4(4.0/6) || m.PassHatK != 0.5 || fmt.Sprint(m.Flaky) != "[9]" {
		t.Errorf("%d calls; repeats %d, pass@k %v, pass^k %v, flaky %v", len(f.calls), m.Repeats, m.PassAtK, m.PassHatK, m.Flaky)
	}
	// The official figures are those of the first repeat.
	if m.Cases != 6 || m.Passed != 4 || m.Official.ABQ != dabench.Round4(4.0/6) {
		t.Errorf("first repeat: %+v", m)
	}
	// Resuming with the same repeats does nothing more.
	if _, err := evals.Run(context.Background(), o); err != nil || len(f.calls) != 18 {
		t.Errorf("resume: %v, %d calls", err, len(f.calls))
	}
}
