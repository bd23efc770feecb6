package evals_test

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/evals"
)

// scriptedSolver returns a fixed attempt (and error) per case, or waits
// for the case's context (a model that never answers).
type scriptedSolver struct {
	attempts map[string]*evals.Attempt
	errs     map[string]error
}

func (s scriptedSolver) Model() evals.Model { return evals.Model{Spec: "scripted"} }

func (s scriptedSolver) Solve(ctx context.Context, c evals.Case) (*evals.Attempt, error) {
	if err := s.errs[c.ID]; err != nil {
		return &evals.Attempt{}, err
	}
	a, ok := s.attempts[c.ID]
	if !ok {
		<-ctx.Done()
		return &evals.Attempt{}, ctx.Err()
	}
	return a, nil
}

func TestFailureClasses(t *testing.T) {
	expect := []evals.Expect{{Name: "x", Value: "100", Match: evals.Matcher{Kind: evals.MatchDABench}}}
	var cases []evals.Case
	for i, id := range []string{"right", "near", "wrong", "column", "query-column", "dtype", "format", "timeout",
		"gave-up-column", "gave-up-dtype", "gave-up-cell-timeout", "gave-up-died", "out-of-turns", "model", "sandbox"} {
		cases = append(cases, evals.Case{ID: id, Index: i, Expect: expect})
	}
	keyErr := []evals.TraceStep{{Status: "error", ErrorName: "KeyError", ErrorMsg: "'Revenue'"}, {Status: "ok"}}
	dtypeErr := []evals.TraceStep{{Status: "error", ErrorName: "TypeError", ErrorMsg: "unsupported operand type(s) for +: 'int' and 'str'"}}
	solver := scriptedSolver{map[string]*evals.Attempt{
		"right":  {Response: "@x[100.0000001]"},
		"near":   {Response: "@x[100.9]"},
		"wrong":  {Response: "@x[150]", Steps: []evals.TraceStep{{Status: "ok"}}},
		"column": {Response: "@x[150]", Steps: keyErr},
		"dtype":  {Response: "@x[150]", Steps: dtypeErr},
		"format": {Response: "x is 100"},
		// df.query("Revenue > 0") on a frame without that column.
		"query-column": {Response: "@x[150]", Steps: []evals.TraceStep{{Status: "error", ErrorName: "UndefinedVariableError", ErrorMsg: "name 'Revenue' is not defined"}}},
		// No answer at all: the agent stopped, and the trace says why.
		"gave-up-column":       {Steps: keyErr, Stop: "too many failed cells in a row"},
		"gave-up-dtype":        {Steps: dtypeErr, Stop: "too many failed cells in a row"},
		"gave-up-cell-timeout": {Steps: []evals.TraceStep{{Status: "ok"}, {Status: "timeout"}}, Stop: "out of turns"},
		"gave-up-died":         {Steps: []evals.TraceStep{{Status: "died"}}, Stop: "the kernel died"},
		"out-of-turns":         {Steps: []evals.TraceStep{{Status: "ok"}, {Status: "ok"}}, Stop: "out of turns"},
	}, map[string]error{
		"model":   &evals.SolveError{Class: evals.ClassModelError, Err: errors.New("HTTP 500 from the model server")},
		"sandbox": &evals.SolveError{Class: evals.ClassSandboxError, Err: errors.New("starting the kernel: podman failed")},
	}}
	out := t.TempDir()
	_, err := evals.Run(context.Background(), evals.Options{Suite: &evals.Suite{Name: "t", Hash: "h", Cases: cases},
		Solvers: []evals.Solver{solver}, Out: out, Jobs: 2, Timeout: 200 * time.Millisecond})
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatal(err)
	}
	want := map[string]string{"right": "", "near": evals.ClassNearMiss, "wrong": evals.ClassWrongValue, "column": evals.ClassColumn,
		"query-column": evals.ClassColumn, "dtype": evals.ClassDtype, "format": evals.ClassNoAnswer, "timeout": evals.ClassTimeout,
		"gave-up-column": evals.ClassColumn, "gave-up-dtype": evals.ClassDtype, "gave-up-cell-timeout": evals.ClassTimeout,
		"gave-up-died": evals.ClassSandboxError, "out-of-turns": evals.ClassNoAnswer,
		"model": evals.ClassModelError, "sandbox": evals.ClassSandboxError}
	rs, err := evals.ReadResults(t.TempDir() + "/none")
	if err != nil || rs != nil {
		t.Fatalf("a missing results file is no results: %v %v", rs, err)
	}
	results, err := evals.ReadResults(filepath.Join(out, evals.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Class != want[r.Case] {
			t.Errorf("case %s: class %q, want %q (%s)", r.Case, r.Class, want[r.Case], r.Error)
		}
	}
	if len(results) != len(cases) {
		t.Errorf("%d results, want %d", len(results), len(cases))
	}
}

func TestMcNemarExact(t *testing.T) {
	tests := []struct {
		b, c int
		p    float64
	}{
		{0, 0, 1},
		{10, 2, 158.0 / 4096}, // 2·(1+12+66)/2^12
		{2, 10, 158.0 / 4096},
		{5, 5, 1},
		{1, 0, 1},
		{6, 0, 2.0 / 64},
		{1000, 900, 0.02310884510890107}, // Python: exact sum of math.comb terms
	}
	for _, tt := range tests {
		if got := evals.McNemarExact(tt.b, tt.c); math.Abs(got-tt.p) > 1e-9*math.Max(tt.p, 1e-3) {
			t.Errorf("McNemarExact(%d, %d) = %v, want %v", tt.b, tt.c, got, tt.p)
		}
	}
}
