package evals_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/evals"
	"github.com/analyst-cli/analyst/evals/evaltest"
	"github.com/analyst-cli/analyst/nbformat"
)

const (
	wreckQuestion = "Wreck the session"
	checkQuestion = "Check the session"
	// kernelStart: when the container's first process started (clock ticks
	// since boot, /proc/1/stat's 22nd field), which tells kernels apart.
	kernelStart = "started = open('/proc/1/stat').read().rsplit(')', 1)[1].split()[19]\n"
)

// forkSuite is two cases over one table: the first deletes df, writes
// globals, a module's attribute and a pandas option; the second says what
// it finds. Each prints when its container's first process started: the
// same in both means they ran in one kernel (forks of one parent).
func forkSuite(t *testing.T) (*evals.Suite, *evaltest.Model) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.csv"), []byte("a,b\n1,x\n2,y\n3,z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	suite := `name: forks
datasets:
  t: {path: t.csv}
cases:
  - id: wreck
    dataset: t
    question: ` + wreckQuestion + `
    expect: [{name: host, value: "any"}]
  - id: check
    dataset: t
    question: ` + checkQuestion + `
    expect: [{name: state, value: "6/absent/absent/100"}]
`
	if err := os.WriteFile(filepath.Join(dir, "suite.yaml"), []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := evals.LoadYAML(filepath.Join(dir, "suite.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m := evaltest.New(map[string]map[string]string{
		wreckQuestion: {"host": evaltest.Printed},
		checkQuestion: {"state": evaltest.Printed, "host": evaltest.Printed},
	})
	m.Codes = map[string]string{
		wreckQuestion: kernelStart + "import json\ndel df\nleaked = 'from wreck'\njson.leaked = 1\npd.set_option('display.max_rows', 3)\nprint('ANSWER=' + started)",
		checkQuestion: kernelStart + "import json\nprint('ANSWER=%s/%s/%s/%s %s' % (int(df['a'].sum()) if 'df' in globals() else 'gone', " +
			"'present' if 'leaked' in globals() else 'absent', 'present' if hasattr(json, 'leaked') else 'absent', " +
			"pd.get_option('display.max_rows'), started))",
	}
	t.Cleanup(m.Close)
	return s, m
}

// runForkSuite runs the suite at -j 1 (the cases in order, one worker)
// and returns its results by case.
func runForkSuite(t *testing.T, s *evals.Suite, m *evaltest.Model, noFork bool) (map[string]evals.Result, string) {
	t.Helper()
	solver := agentSolver(t, m)
	solver.NoFork = noFork
	out := t.TempDir()
	if _, err := evals.Run(context.Background(), evals.Options{Suite: s, Solvers: []evals.Solver{solver}, Out: out, Jobs: 1,
		Timeout: 2 * time.Minute, ImageID: "test", Seed: 42}); err != nil {
		t.Fatal(err)
	}
	results, err := evals.ReadResults(filepath.Join(out, evals.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	byCase := map[string]evals.Result{}
	for _, r := range results {
		byCase[r.Case] = r
	}
	return byCase, out
}

// A case that deletes df and writes globals leaves the next case on the
// same parent kernel the pristine state; the results are those of a kernel
// per case (--no-fork), but for the parent's digest; the case's notebook
// shows the parent's setup, load and profile cells with their outputs.
func TestForkedCasesDoNotShareState(t *testing.T) {
	s, m := forkSuite(t)
	forked, out := runForkSuite(t, s, m, false)
	alone, _ := runForkSuite(t, s, m, true)

	state := func(r evals.Result) (string, string) {
		v := r.Answers[0].Got
		st, host, _ := strings.Cut(v, " ")
		return st, host
	}
	wreckHost := forked["wreck"].Answers[0].Got
	st, host := state(forked["check"])
	if st != "6/absent/absent/100" {
		t.Errorf("the case after the one that wrecked its session found %q, want df whole and nothing of the other (6/absent/absent/100)", st)
	}
	if host == "" || host != wreckHost {
		t.Errorf("the two cases ran in kernels started at %q and %q, want one parent for both", wreckHost, host)
	}
	if st, host := state(alone["check"]); st != "6/absent/absent/100" || host == alone["wreck"].Answers[0].Got {
		t.Errorf("--no-fork: %q in a kernel started at %q after one at %q, want the same state in another kernel", st, host, alone["wreck"].Answers[0].Got)
	}
	for _, id := range []string{"wreck", "check"} {
		f, a := forked[id], alone[id]
		if !strings.HasPrefix(f.ForkOf, "sha256:") || a.ForkOf != "" {
			t.Errorf("case %s: fork_of %q forked, %q alone", id, f.ForkOf, a.ForkOf)
		}
		if f.Status != a.Status || f.Correct != a.Correct {
			t.Errorf("case %s: %s %d/%d forked, %s %d/%d alone", id, f.Status, f.Correct, f.Total, a.Status, a.Correct, a.Total)
		}
	}
	if forked["wreck"].ForkOf != forked["check"].ForkOf {
		t.Errorf("the parent's digest differs between its cases: %s, %s", forked["wreck"].ForkOf, forked["check"].ForkOf)
	}

	nb, err := nbformat.ReadFile(filepath.Join(out, forked["check"].Notebook))
	if err != nil {
		t.Fatal(err)
	}
	stages := map[string]bool{}
	for _, c := range nb.Cells {
		if stage, ok := c.Stage(); ok && c.HasTag(nbformat.TagForkParent) && (c.CellType != nbformat.Code || len(c.Outputs) > 0) {
			stages[stage] = true
		}
	}
	if !stages["setup"] || !stages["load"] || !stages["profile"] {
		t.Errorf("the forked case's notebook: stages with the parent's cells and outputs %v, want setup, load and profile", stages)
	}
}
