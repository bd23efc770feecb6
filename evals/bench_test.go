package evals_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/evals"
	"github.com/analyst-cli/analyst/evals/dabench"
	"github.com/analyst-cli/analyst/evals/evaltest"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/report"
)

// instantDABench is DABench with an instant scripted model that answers
// every question right (one cell, then the labels), and the agent solver
// on it, set up as analyst eval sets it up (KaTeX for the case reports).
func instantDABench(b *testing.B) (*evals.Suite, llm.Client, *evals.AgentSolver, string) {
	dir, s := realDABench(b)
	qs, err := dabench.LoadQuestions(filepath.Join(dir, evals.DABenchQuestions))
	if err != nil {
		b.Fatal(err)
	}
	text := map[int64]string{}
	for _, q := range qs {
		text[q.ID] = `\Question{` + q.Question + `}`
	}
	questions := map[string]map[string]string{}
	for _, c := range s.Cases {
		vals := map[string]string{}
		for _, e := range c.Expect {
			vals[e.Name] = e.Value
		}
		questions[text[*c.DABenchID]] = vals
	}
	model := evaltest.New(questions)
	b.Cleanup(model.Close)
	client, err := llm.New("ollama:scripted:1b", llm.Options{OllamaHost: model.URL})
	if err != nil {
		b.Fatal(err)
	}
	solver, err := evals.NewAgentSolver(context.Background(), client, "ollama:scripted:1b")
	if err != nil {
		b.Fatal(err)
	}
	solver.Kernel = kerneltest.Options(b)
	return s, client, solver, report.KaTeXDirIn(solver.Kernel.RootFS)
}

// evalPerCase runs the suite's first n cases (all with 0) at -j jobs, with
// forks or a kernel per case, and returns the wall time per case, the
// results by case and the output folder (kept under
// ANALYST_BENCH_EVAL_OUT when it is set, to read the cases' timings).
func evalPerCase(b *testing.B, s *evals.Suite, solver *evals.AgentSolver, katex string, jobs, n int, noFork bool) (time.Duration, *evals.ModelSummary, map[string]evals.Result, string) {
	solver.NoFork = noFork
	out := b.TempDir()
	if keep := os.Getenv("ANALYST_BENCH_EVAL_OUT"); keep != "" {
		out = filepath.Join(keep, fmt.Sprintf("n%d-j%d-nofork-%v", n, jobs, noFork))
	}
	start := time.Now()
	sum, err := evals.Run(context.Background(), evals.Options{Suite: s, Solvers: []evals.Solver{solver}, Out: out,
		Jobs: jobs, Limit: n, Timeout: 5 * time.Minute, ImageID: "bench", KaTeXDir: katex})
	if err != nil {
		b.Fatal(err)
	}
	wall := time.Since(start)
	m := &sum.Models[0]
	if n > 0 && m.Passed != n {
		b.Fatalf("eval -j %d (no fork %v): %d of %d cases right", jobs, noFork, m.Passed, n)
	}
	return wall / time.Duration(m.Cases), m, resultsByCase(b, out), out
}

// BenchmarkEvalDABench is what eval costs per case with an instant model
// (setup, load and profile once per table and worker, each case forked
// from it: two model turns, the case's notebook and report, the results),
// at -j 1 and -j 2, against the same cases with a kernel per case
// (--no-fork) and a cold `analyst kernel exec` on the first case's table,
// in the same run; forked and not, every case must get the same results.
// ANALYST_BENCH_EVAL_CASES sets how many cases (default 19, issue 24's
// least).
func BenchmarkEvalDABench(b *testing.B) {
	s, _, solver, katex := instantDABench(b)
	n := 19
	if v := os.Getenv("ANALYST_BENCH_EVAL_CASES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	analyst := kerneltest.AnalystBinary(b)
	tables := map[string]bool{}
	for _, c := range s.Cases[:n] {
		tables[c.Dataset] = true
	}
	for i := 0; i < b.N; i++ {
		j1, _, forked, forkedOut := evalPerCase(b, s, solver, katex, 1, n, false)
		j2, _, _, _ := evalPerCase(b, s, solver, katex, 2, n, false)
		j1Alone, _, alone, aloneOut := evalPerCase(b, s, solver, katex, 1, n, true)
		j2Alone, _, _, _ := evalPerCase(b, s, solver, katex, 2, n, true)
		if diff := resultsDiffer(forked, forkedOut, alone, aloneOut); diff != "" {
			b.Fatalf("forks on and off: %s", diff)
		}
		var cold []time.Duration
		for range 3 {
			cold = append(cold, kerneltest.KernelExec(b, analyst, s.Cases[0].Dataset, "x = 1"))
		}
		slices.Sort(cold)
		exec := cold[1]
		b.ReportMetric(float64(len(tables)), "tables")
		b.ReportMetric(float64(j1.Milliseconds()), "fork-j1-ms/case")
		b.ReportMetric(float64(j2.Milliseconds()), "fork-j2-ms/case")
		b.ReportMetric(float64(j1Alone.Milliseconds()), "nofork-j1-ms/case")
		b.ReportMetric(float64(j2Alone.Milliseconds()), "nofork-j2-ms/case")
		b.ReportMetric(float64(exec.Milliseconds()), "kernel-exec-ms")
		b.ReportMetric(float64(j1)/float64(exec), "fork-j1/exec")
		b.ReportMetric(float64(j2)/float64(exec), "fork-j2/exec")
		b.ReportMetric(float64(j1Alone)/float64(exec), "nofork-j1/exec")
	}
}

// BenchmarkEvalDABenchAll runs all 257 DABench dev cases with the instant
// model at -j 2, forked: the wall time of a whole benchmark run, less the
// model; with ANALYST_BENCH_EVAL_NOFORK=1 also with a kernel per case, in
// the same run, and every case must have the same results and notebook
// both ways (as in BenchmarkEvalDABench).
func BenchmarkEvalDABenchAll(b *testing.B) {
	s, _, solver, katex := instantDABench(b)
	for i := 0; i < b.N; i++ {
		start := time.Now()
		perCase, m, forked, forkedOut := evalPerCase(b, s, solver, katex, 2, 0, false)
		b.ReportMetric(time.Since(start).Seconds(), "wall-s")
		b.ReportMetric(float64(perCase.Milliseconds()), "ms/case")
		b.ReportMetric(float64(m.Cases), "cases")
		b.ReportMetric(m.Official.ABQ, "ABQ")
		if os.Getenv("ANALYST_BENCH_EVAL_NOFORK") != "" {
			start = time.Now()
			_, m, alone, aloneOut := evalPerCase(b, s, solver, katex, 2, 0, true)
			b.ReportMetric(time.Since(start).Seconds(), "nofork-wall-s")
			b.ReportMetric(m.Official.ABQ, "nofork-ABQ")
			if diff := resultsDiffer(forked, forkedOut, alone, aloneOut); diff != "" {
				b.Fatalf("forks on and off: %s", diff)
			}
		}
	}
}
