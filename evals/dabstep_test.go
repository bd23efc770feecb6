package evals_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/evals"
	"github.com/analyst-cli/analyst/evals/dabench"
	"github.com/analyst-cli/analyst/evals/dabstep"
	"github.com/analyst-cli/analyst/evals/dabstep/dabsteptest"
	"github.com/analyst-cli/analyst/nbformat"
)

// dabstepSolver answers DABstep tasks from a table (task id → named
// values; no entry: no answer), recording the lines of the submission file
// it saw as each case started.
type dabstepSolver struct {
	answers map[string][]agent.NamedValue
	fail    map[string]error // task id → the case's error
	sub     string           // the submission file, looked at as each case starts
	mu      sync.Mutex
	seen    []int // lines in it then
}

func (f *dabstepSolver) Model() evals.Model {
	return evals.Model{Spec: "fake:dabstep", Digest: "sha256:d"}
}

func (f *dabstepSolver) Solve(ctx context.Context, c evals.Case) (*evals.Attempt, error) {
	if f.sub != "" {
		b, _ := os.ReadFile(f.sub)
		f.mu.Lock()
		f.seen = append(f.seen, strings.Count(string(b), "\n"))
		f.mu.Unlock()
	}
	vs := f.answers[c.ID]
	nb := nbformat.New()
	a := &evals.Attempt{Values: vs, Trace: "Step 1: looked at task " + c.ID, Record: &evals.CaseRecord{Notebook: nb, DataName: "context"}}
	if len(vs) > 0 {
		a.Response = agent.FormatAnswers(vs)
	}
	return a, f.fail[c.ID]
}

// A DABstep snapshot runs as a suite: a case per task on the context
// folder, asked as the baseline asks, scored by DABstep's scorer on the
// answer as the submission has it (a list in brackets whole; no answer is
// "", right when the gold is the empty list, and so is an errored task's,
// in the submission and in the summary alike), the submission file written
// as cases end and again whole at the end, in task order; shards merge to
// the unsharded run's submission; the all split's cases are unscored but
// submitted, and have no score (not 0%).
func TestDABstepSuite(t *testing.T) {
	fx, err := dabsteptest.Write(t.TempDir(), dabsteptest.Options{Seed: 1, Payments: 300})
	if err != nil {
		t.Fatal(err)
	}
	s, err := evals.LoadDABstep(fx.Dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Kind != evals.KindDABstep || len(s.Cases) != 10 || s.Cases[0].Dataset != fx.Dir+"/data/context" || s.Cases[9].Level != "hard" {
		t.Fatalf("suite %s: %d cases, first on %s", s.Kind, len(s.Cases), s.Cases[0].Dataset)
	}
	c := s.Cases[0]
	for _, want := range []string{"referencing files in the data directory: `/data`", "Here is the question you need to answer: " + fx.Tasks[0].Question,
		"Here are the guidelines you MUST follow when answering the question above: " + fx.Tasks[0].Guidelines, "@answer[VALUE]"} {
		if !strings.Contains(c.Prompt, want) {
			t.Errorf("the prompt does not say %q:\n%s", want, c.Prompt)
		}
	}
	answers, fail := map[string][]agent.NamedValue{}, map[string]error{}
	wantRight := 0
	var errored []string
	for i, tk := range fx.Tasks {
		switch {
		case tk.Answer == "" && len(errored) == 0: // an error: its line's "" is right for the empty list
			fail[tk.ID] = &evals.SolveError{Class: evals.ClassTimeout, Err: context.DeadlineExceeded}
			errored = append(errored, tk.ID)
			wantRight++
		case tk.Answer == "": // no answer at all: "" is right for the empty list
			wantRight++
		case strings.Contains(tk.Answer, ","): // a list, given in brackets
			answers[tk.ID] = []agent.NamedValue{{Name: "answer", Value: "[" + tk.Answer + "]"}}
			wantRight++
		case i%3 == 0:
			answers[tk.ID] = []agent.NamedValue{{Name: "note", Value: "x"}, {Name: "answer", Value: "wrong"}}
		default: // its only named value, whatever its name
			answers[tk.ID] = []agent.NamedValue{{Name: "value", Value: tk.Answer}}
			wantRight++
		}
	}
	full := t.TempDir()
	if len(errored) == 0 {
		t.Fatal("the fixture has no task whose gold is the empty list")
	}
	solver := &dabstepSolver{answers: answers, fail: fail, sub: dabstep.SubmissionFile(full, "fake_dabstep")}
	sum, err := evals.Run(context.Background(), evals.Options{Suite: s, Solvers: []evals.Solver{solver}, Out: full, Jobs: 1, ImageID: "img"})
	if err != nil {
		t.Fatal(err)
	}
	m := sum.Models[0]
	if m.DABstep == nil || m.DABstep.Overall.Correct != wantRight || m.DABstep.Overall.Total != 10 || m.Passed != wantRight ||
		m.Score != dabench.Round4(float64(wantRight)/10) {
		t.Fatalf("summary %+v, %d passed, score %v; want %d of 10 right, the errored task %v among them", m.DABstep, m.Passed, m.Score, wantRight, errored)
	}
	if strings.Join(m.Errored, ",") != strings.Join(errored, ",") {
		t.Errorf("errored tasks %v, want %v", m.Errored, errored)
	}
	md, _ := os.ReadFile(filepath.Join(full, evals.ReportFile))
	if !strings.Contains(string(md), "1 task(s) ended in an error: "+errored[0]+".") {
		t.Errorf("report.md does not name the errored task %s:\n%s", errored[0], md)
	}
	// DABstep's figures only: not DABench's columns, nor the levels twice.
	if strings.Contains(string(md), "ABQ") || strings.Contains(string(md), "by level") || strings.Count(string(md), "| easy |") != 1 {
		t.Errorf("report.md shows DABench's figures or the levels twice:\n%s", md)
	}
	for i, n := range solver.seen {
		if n != i {
			t.Errorf("case %d started with %d lines in the submission; want %d (a line as each case ends)", i+1, n, i)
		}
	}
	sub, err := dabstep.ReadSubmission(solver.sub)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := dabstep.Open(fx.Dir, "")
	sc, err := dabstep.Score(b, sub)
	if err != nil || sc.Overall.Right != wantRight || len(sc.Missing) != 0 {
		t.Errorf("the submission scored by the leaderboard's rules: %+v, %v; want %d right, none missing", sc, err, wantRight)
	}
	if got := sub.Answers["1"].Line; got != 1 {
		t.Errorf("task 1 is on line %d: the file is not in task order", got)
	}

	// Shards merged give the same submission, byte for byte.
	var dirs []string
	for i := range 2 {
		dir := t.TempDir()
		_, err := evals.Run(context.Background(), evals.Options{Suite: s, Solvers: []evals.Solver{&dabstepSolver{answers: answers}}, Out: dir, Jobs: 2,
			ImageID: "img", Shard: evals.Shard{Index: i, Count: 2}})
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	merged := t.TempDir()
	if _, err := evals.Merge(merged, dirs); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(solver.sub)
	got, _ := os.ReadFile(dabstep.SubmissionFile(merged, "fake_dabstep"))
	if string(got) != string(want) {
		t.Errorf("merged shards' submission:\n%s\nwant the unsharded run's:\n%s", got, want)
	}

	// The all split: answered and submitted, not scored.
	all, err := evals.LoadDABstep(fx.Dir, dabstep.SplitAll)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	sum, err = evals.Run(context.Background(), evals.Options{Suite: all, Solvers: []evals.Solver{&dabstepSolver{answers: answers}}, Out: out, Jobs: 2, ImageID: "img"})
	if err != nil {
		t.Fatal(err)
	}
	if m := sum.Models[0]; m.Unscored != 10 || m.Passed+m.Failed+m.Errors != 0 || m.DABstep.Overall.Total != 0 {
		t.Errorf("all split: %+v; want 10 unscored", m)
	}
	// Unscored is its own state: no score, no interval, skipped in junit.
	md, _ = os.ReadFile(filepath.Join(out, evals.ReportFile))
	if row := "| fake:dabstep | 10 | 0 | 0 | 0 | unscored | – |"; !strings.Contains(string(md), row) {
		t.Errorf("all split's report.md has no row %q:\n%s", row, md)
	}
	junit, _ := os.ReadFile(filepath.Join(out, evals.JUnitFile))
	if !strings.Contains(string(junit), `skipped="10"`) || strings.Count(string(junit), "<skipped message=") != 10 {
		t.Errorf("all split's junit.xml does not skip the 10 unscored cases:\n%s", junit)
	}
	lines, _ := os.ReadFile(dabstep.SubmissionFile(out, "fake_dabstep"))
	if n := strings.Count(string(lines), "\n"); n != 10 {
		t.Errorf("all split's submission has %d lines, want 10", n)
	}
}
