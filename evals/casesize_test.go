package evals_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/evals"
	"github.com/analyst-cli/analyst/evals/dabstep/dabsteptest"
	"github.com/analyst-cli/analyst/evals/evaltest"
	"github.com/analyst-cli/analyst/report"
)

// maxCaseReportBytes guards a DABstep case's report (HTML): 742 kB
// before charts were paletted and repeated stage code shown once, 315 kB
// after (docs/benchmarks.md). Issue 37's bar is 300 kB for the report and
// the notebook together; the notebook (about 1 MB: the profile's code
// repeated per table, the loader, the sketches) is not under it yet, so
// its size is logged, not asserted.
const maxCaseReportBytes = 350 << 10

// A DABstep case (its context folder profiled, a scripted model's cell and
// answer, KaTeX available) writes a report under maxCaseReportBytes.
// ANALYST_DABSTEP_PAYMENTS sets the rows of payments.csv (DABstep's own
// has 138,236; the test's default is small); ANALYST_KEEP_CASE keeps the
// output folder to look at.
func TestDABstepCaseReportIsSmall(t *testing.T) {
	payments := 3000
	if v := os.Getenv("ANALYST_DABSTEP_PAYMENTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("ANALYST_DABSTEP_PAYMENTS=%q: %v", v, err)
		}
		payments = n
	}
	fx, err := dabsteptest.Write(t.TempDir(), dabsteptest.Options{Seed: 1, Payments: payments})
	if err != nil {
		t.Fatal(err)
	}
	s, err := evals.LoadDABstep(fx.Dir, "")
	if err != nil {
		t.Fatal(err)
	}
	task := fx.Tasks[0]
	m := evaltest.New(map[string]map[string]string{task.Question: {"answer": evaltest.Printed}})
	t.Cleanup(m.Close)
	m.Code = "import pandas as pd\np = pd.read_csv('/data/payments.csv')\nprint(f'ANSWER={len(p)}')\np.describe()"
	solver := agentSolver(t, m)
	out := t.TempDir()
	if keep := os.Getenv("ANALYST_KEEP_CASE"); keep != "" {
		out = keep
	}
	sum, err := evals.Run(context.Background(), evals.Options{Suite: s, Solvers: []evals.Solver{solver}, Out: out, Jobs: 1,
		Filter: []string{task.ID}, Timeout: 5 * time.Minute, ImageID: "test", Seed: 42,
		KaTeXDir: report.KaTeXDirIn(solver.Kernel.RootFS)})
	if err != nil {
		t.Fatal(err)
	}
	if m := sum.Models[0]; m.Answered != 1 || m.Errors != 0 {
		t.Fatalf("case %s: %d answered, %d errors; want an answer", task.ID, m.Answered, m.Errors)
	}
	files := filesUnder(t, out, evals.CasesDir)
	if len(files) != 2 {
		t.Fatalf("case files %v, want a notebook and a report", files)
	}
	for _, f := range files {
		fi, err := os.Stat(filepath.Join(out, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes", f, fi.Size())
		if strings.HasSuffix(f, ".html") && fi.Size() > maxCaseReportBytes {
			t.Errorf("case %s's report is %d bytes, over the %d byte bar", task.ID, fi.Size(), maxCaseReportBytes)
		}
	}
}
