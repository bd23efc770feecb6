package evals_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/evals"
	"github.com/analyst-cli/analyst/evals/evaltest"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/nbformat"
)

const (
	wreckQuestion = "Wreck the session"
	checkQuestion = "Check the session"
	otherQuestion = "Check the other table"
	// kernelStart: when the container's first process started (clock ticks
	// since boot, /proc/1/stat's 22nd field), which tells kernels apart.
	kernelStart = "started = open('/proc/1/stat').read().rsplit(')', 1)[1].split()[19]\n"
)

// forkSuite is two cases over one table: the first deletes df, writes
// globals, a module's attribute and a pandas option; the second says what
// it finds; then a case over another table, which says what df is and
// which globals it sees (a digest of their names). Each prints when its
// container's first process started: the same means they ran in one
// kernel (forks of one parent, or of one root kernel).
func forkSuite(t *testing.T) (*evals.Suite, *evaltest.Model) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.csv"), []byte("a,b,d\n1,x,2024-01-05\n2,y,2024-02-05\n3,z,2024-03-05\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "u.csv"), []byte("c\n7\n8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	suite := `name: forks
datasets:
  t: {path: t.csv}
  u: {path: u.csv}
cases:
  - id: wreck
    dataset: t
    question: ` + wreckQuestion + `
    expect: [{name: host, value: "any"}]
  - id: check
    dataset: t
    question: ` + checkQuestion + `
    expect: [{name: state, value: "6/absent/absent/100"}]
  - id: other
    dataset: u
    question: ` + otherQuestion + `
    expect: [{name: state, value: "any"}]
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
		otherQuestion: {"state": evaltest.Printed},
	})
	m.Codes = map[string]string{
		wreckQuestion: kernelStart + "import json\ndel df\nleaked = 'from wreck'\njson.leaked = 1\npd.set_option('display.max_rows', 3)\nprint('ANSWER=' + started)",
		checkQuestion: kernelStart + "import json\nprint('ANSWER=%s/%s/%s/%s %s' % (int(df['a'].sum()) if 'df' in globals() else 'gone', " +
			"'present' if 'leaked' in globals() else 'absent', 'present' if hasattr(json, 'leaked') else 'absent', " +
			"pd.get_option('display.max_rows'), started))",
		otherQuestion: kernelStart + "import hashlib\nnames = ' '.join(sorted(n for n in globals() if not n.startswith('_') and n not in ('started', 'hashlib')))\n" +
			"print('ANSWER=%d/%d/%s %s' % (len(df), len(df.columns), hashlib.sha256(names.encode()).hexdigest()[:12], started))",
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
	return resultsByCase(t, out), out
}

// resultsByCase reads the results an eval wrote to out, by case.
func resultsByCase(t testing.TB, out string) map[string]evals.Result {
	t.Helper()
	results, err := evals.ReadResults(filepath.Join(out, evals.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	byCase := map[string]evals.Result{}
	for _, r := range results {
		byCase[r.Case] = r
	}
	return byCase
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
	// The other table's case ran in the same root kernel, which loaded u.csv
	// after t.csv: it sees the globals a fresh kernel on u.csv sees.
	other, otherHost := state(forked["other"])
	alone2, _ := state(alone["other"])
	if !strings.HasPrefix(other, "2/1/") || other != alone2 {
		t.Errorf("the case on u.csv after t.csv's found %q, a kernel of its own %q: want the same (2 rows, 1 column, the same globals)", other, alone2)
	}
	if otherHost != host {
		t.Errorf("the cases on t.csv and u.csv ran in kernels started at %q and %q, want one root kernel", host, otherHost)
	}

	nb, err := nbformat.ReadFile(filepath.Join(out, forked["check"].Notebook))
	if err != nil {
		t.Fatal(err)
	}
	stages := map[string]bool{}
	for _, c := range nb.Cells {
		if stage, ok := c.Stage(); ok && (c.CellType != nbformat.Code || len(c.Outputs) > 0) {
			stages[stage] = true
		}
	}
	if !stages["setup"] || !stages["load"] || !stages["profile"] {
		t.Errorf("the forked case's notebook: stages with the parent's cells and outputs %v, want setup, load and profile", stages)
	}
	rerunStandalone(t, nb, filepath.Join(out, forked["check"].Notebook), s.Cases[1].Dataset)
}

// rerunStandalone runs a forked case's notebook top to bottom under
// nbconvert, beside its data, and compares the outputs with the notebook's,
// the parent's cells' included; only the kernel's start time, which the
// model's code prints, differs.
func rerunStandalone(t *testing.T, nb *nbformat.Notebook, path, data string) {
	share := t.TempDir()
	for _, p := range []string{path, data} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(share, filepath.Base(p)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	theirs := kerneltest.Nbconvert(t, share, filepath.Base(path))
	if len(theirs.Cells) != len(nb.Cells) {
		t.Fatalf("nbconvert re-ran %d cells of %d", len(theirs.Cells), len(nb.Cells))
	}
	compared := 0
	for i, c := range nb.Cells {
		if c.CellType != nbformat.Code || strings.Contains(c.Source, kernelStart) {
			continue
		}
		compared++
		for _, d := range nbformat.CompareOutputs(c.Outputs, theirs.Cells[i].Outputs) {
			t.Errorf("the forked case's notebook under nbconvert, cell %d (%.40q): %s", i, c.Source, d)
		}
	}
	if compared < 3 {
		t.Errorf("%d cells compared", compared)
	}
}

// resultsDiffer says how two runs of the same cases, one forked and one
// with a kernel per case, differ: in a result but for its timings and
// fork_of, or in a case notebook's bytes; "" if in nothing.
func resultsDiffer(forked map[string]evals.Result, forkedOut string, alone map[string]evals.Result, aloneOut string) string {
	if len(forked) != len(alone) {
		return fmt.Sprintf("%d cases forked, %d alone", len(forked), len(alone))
	}
	for id, f := range forked {
		a := alone[id]
		if f.ForkOf == "" || a.ForkOf != "" {
			return fmt.Sprintf("case %s: fork_of %q forked, %q alone", id, f.ForkOf, a.ForkOf)
		}
		fr, ar := f, a
		fr.Timing, ar.Timing, fr.ForkOf = evals.Timing{}, evals.Timing{}, ""
		if !reflect.DeepEqual(fr, ar) {
			fj, _ := json.Marshal(fr)
			aj, _ := json.Marshal(ar)
			return fmt.Sprintf("case %s: result forked\n%s\nalone\n%s", id, fj, aj)
		}
		fb, err := os.ReadFile(filepath.Join(forkedOut, f.Notebook))
		if err != nil {
			return err.Error()
		}
		ab, err := os.ReadFile(filepath.Join(aloneOut, a.Notebook))
		if err != nil {
			return err.Error()
		}
		if !bytes.Equal(fb, ab) {
			return fmt.Sprintf("case %s: the notebooks differ:\n%s\n---\n%s", id, fb, ab)
		}
	}
	return ""
}
