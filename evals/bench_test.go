package evals_test

import (
	"context"
	"fmt"
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
)

// BenchmarkEvalDABench runs DABench cases with an instant scripted model
// that answers every question right (one cell, then the labels), with -j 1
// and -j 2: what eval itself costs per case (a fresh kernel, setup, load,
// profile, two model turns). ANALYST_BENCH_EVAL_CASES sets how many cases
// (default 6; 257 for all).
func BenchmarkEvalDABench(b *testing.B) {
	dir, s := realDABench(b)
	n := 6
	if v := os.Getenv("ANALYST_BENCH_EVAL_CASES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
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
	defer model.Close()
	client, err := llm.New("ollama:scripted:1b", llm.Options{OllamaHost: model.URL})
	if err != nil {
		b.Fatal(err)
	}
	solver, err := evals.NewAgentSolver(context.Background(), client, "ollama:scripted:1b")
	if err != nil {
		b.Fatal(err)
	}
	solver.Kernel = kerneltest.Options(b)
	for _, jobs := range []int{1, 2} {
		b.Run(fmt.Sprintf("j%d", jobs), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				start := time.Now()
				sum, err := evals.Run(context.Background(), evals.Options{Suite: s, Solvers: []evals.Solver{solver}, Out: b.TempDir(),
					Jobs: jobs, Limit: n, Timeout: 5 * time.Minute, ImageID: "bench"})
				if err != nil {
					b.Fatal(err)
				}
				m := sum.Models[0]
				b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(m.Cases), "ms/case")
				b.ReportMetric(m.Official.ABQ, "ABQ")
			}
		})
	}
}
