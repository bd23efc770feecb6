package evals_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/evals"
	"github.com/analyst-cli/analyst/evals/evaltest"
)

// A case's notebook and report are the same bytes whatever the schedule:
// one worker or two (which changes the order a root kernel loads the
// tables in, and so its cells' counts), forked or --no-fork, sharded and
// merged or not.
func TestCaseFilesDoNotDependOnTheSchedule(t *testing.T) {
	dir := t.TempDir()
	for name, csv := range map[string]string{"t.csv": "a,b\n1,x\n2,y\n3,z\n", "u.csv": "c\n7\n8\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(csv), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	suite := "name: schedule\ndatasets:\n  t: {path: t.csv}\n  u: {path: u.csv}\ncases:\n"
	questions := map[string]map[string]string{}
	for i, ds := range []string{"u", "t", "u"} {
		q := fmt.Sprintf("How many rows, %d", i)
		suite += fmt.Sprintf("  - id: c%d\n    dataset: %s\n    question: %s\n    expect: [{name: rows, value: \"3\"}]\n", i, ds, q)
		questions[q] = map[string]string{"rows": evaltest.Printed}
	}
	if err := os.WriteFile(filepath.Join(dir, "suite.yaml"), []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := evals.LoadYAML(filepath.Join(dir, "suite.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m := evaltest.New(questions)
	m.Code = "print(f'ANSWER={len(df)}')\ndf.shape"
	t.Cleanup(m.Close)
	run := func(jobs int, noFork bool, shard evals.Shard) string {
		solver := agentSolver(t, m)
		solver.NoFork = noFork
		out := t.TempDir()
		if _, err := evals.Run(context.Background(), evals.Options{Suite: s, Solvers: []evals.Solver{solver}, Out: out, Jobs: jobs,
			Shard: shard, Timeout: 2 * time.Minute, ImageID: "test", Seed: 42}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	want := run(1, false, evals.Shard{})
	files := filesUnder(t, want, evals.CasesDir)
	if len(files) != 6 {
		t.Fatalf("case files %v, want a notebook and a report per case", files)
	}
	for _, f := range files {
		if strings.HasSuffix(f, ".ipynb") {
			checkNoSketch(t, filepath.Join(want, f))
		}
	}
	merged := filepath.Join(t.TempDir(), "merged")
	if _, err := evals.Merge(merged, []string{run(1, false, evals.Shard{Index: 0, Count: 2}), run(1, false, evals.Shard{Index: 1, Count: 2})}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"-j 2": run(2, false, evals.Shard{}), "--no-fork": run(1, true, evals.Shard{}), "merged shards": merged} {
		for _, f := range files {
			a, b := readFile(t, filepath.Join(want, f)), readFile(t, filepath.Join(out, f))
			if !bytes.Equal(a, b) {
				t.Errorf("%s: %s differs from -j 1's:\n%s\n---\n%s", name, f, firstLines(a, b), firstLines(b, a))
			}
		}
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// firstLines is a's lines around the first that b does not have.
func firstLines(a, b []byte) string {
	al, bl := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range al {
		if i >= len(bl) || !bytes.Equal(al[i], bl[i]) {
			return string(bytes.Join(al[max(0, i-3):min(len(al), i+4)], []byte("\n")))
		}
	}
	return ""
}
