package evals_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/evals"
	"github.com/analyst-cli/analyst/evals/dabench"
	"github.com/analyst-cli/analyst/evals/evaltest"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/pipeline"
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

func evalPerCase(b *testing.B, s *evals.Suite, solver evals.Solver, katex string, jobs, n int) (time.Duration, *evals.ModelSummary) {
	start := time.Now()
	sum, err := evals.Run(context.Background(), evals.Options{Suite: s, Solvers: []evals.Solver{solver}, Out: b.TempDir(),
		Jobs: jobs, Limit: n, Timeout: 5 * time.Minute, ImageID: "bench", KaTeXDir: katex})
	if err != nil {
		b.Fatal(err)
	}
	m := &sum.Models[0]
	return time.Since(start) / time.Duration(m.Cases), m
}

// BenchmarkEvalDABench is what eval costs per case with an instant model
// (a fresh kernel, setup, load, profile, two model turns, the case's
// notebook and report, the results), at -j 1 and -j 2, against the same
// cases asked one by one the way `analyst run DATA --model M --question Q`
// asks them (pipeline.Run: the full EDA, notebook, report and charts), in
// the same run. ANALYST_BENCH_EVAL_CASES sets how many cases (default 6).
func BenchmarkEvalDABench(b *testing.B) {
	s, client, solver, katex := instantDABench(b)
	n := 6
	if v := os.Getenv("ANALYST_BENCH_EVAL_CASES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < b.N; i++ {
		j1, m := evalPerCase(b, s, solver, katex, 1, n)
		if m.Passed != n {
			b.Fatalf("eval -j 1: %d of %d cases right", m.Passed, n)
		}
		j2, _ := evalPerCase(b, s, solver, katex, 2, n)
		start := time.Now()
		for _, c := range s.Cases[:n] {
			res, err := pipeline.Run(context.Background(), pipeline.Options{Data: c.Dataset, OutDir: b.TempDir(), Kernel: solver.Kernel,
				Questions: []string{c.Prompt}, NoExplore: true, Model: client, ModelSpec: "ollama:scripted:1b", KaTeXDir: katex, ImageID: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			if len(res.Answers) != 1 || !res.Answers[0].Answered {
				b.Fatalf("analyst run on case %s gave no answer", c.ID)
			}
		}
		run := time.Since(start) / time.Duration(n)
		b.ReportMetric(float64(j1.Milliseconds()), "eval-j1-ms/case")
		b.ReportMetric(float64(j2.Milliseconds()), "eval-j2-ms/case")
		b.ReportMetric(float64(run.Milliseconds()), "run-ms/case")
		b.ReportMetric(float64(run)/float64(j1), "run/eval-j1")
		b.ReportMetric(float64(run)/float64(j2), "run/eval-j2")
	}
}

// BenchmarkEvalDABenchAll runs all 257 DABench dev cases with the instant
// model at -j 2: the wall time of a whole benchmark run, less the model.
func BenchmarkEvalDABenchAll(b *testing.B) {
	s, _, solver, katex := instantDABench(b)
	for i := 0; i < b.N; i++ {
		start := time.Now()
		perCase, m := evalPerCase(b, s, solver, katex, 2, 0)
		b.ReportMetric(time.Since(start).Seconds(), "wall-s")
		b.ReportMetric(float64(perCase.Milliseconds()), "ms/case")
		b.ReportMetric(float64(m.Cases), "cases")
		b.ReportMetric(m.Official.ABQ, "ABQ")
	}
}
