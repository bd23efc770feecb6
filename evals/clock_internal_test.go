package evals

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/evals/evaltest"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/llm"
)

const (
	quickQuestion = "How many rows? (quick)"
	hangQuestion  = "How many rows? (the cell hangs)"
)

// --timeout bounds a case's own work, not the wait while another case
// starts the parent it forks from: two cases wait longer than the timeout
// for a parent (held back here, as a slow load on another worker would),
// then the quick one answers right and the one whose cell hangs is cut
// off by its timeout. Before the clock was per phase (clock.go), both
// timed out in the wait.
func TestCaseTimeoutCountsOnlyTheCasesOwnWork(t *testing.T) {
	const timeout = 6 * time.Second
	s, cases := timeoutSuite(t)
	ctx := context.Background()
	ck := caseKernel{opts: s.Kernel}
	pa, err := startParent(ctx, ck, cases[0], &Attempt{Record: newCaseRecord(cases[0])})
	if err != nil {
		t.Fatal(err)
	}
	s.keepParents(2, nil)
	defer s.Close()
	// The slot a case on another worker is starting: both cases wait for it.
	sl, start, err := s.parents.take(ctx, cases[0].Dataset)
	if err != nil || !start {
		t.Fatalf("take: start=%v err=%v", start, err)
	}
	time.AfterFunc(timeout+2*time.Second, func() { s.parents.started(cases[0].Dataset, sl, pa); s.parents.put(cases[0].Dataset, sl) })

	o := Options{Suite: &Suite{Name: "timeouts"}, Timeout: timeout}
	results := make(chan Result, 2)
	for _, c := range cases {
		go func() { r, _ := o.runCase(ctx, job{c: c, solver: s}); results <- r }()
	}
	got := map[string]Result{}
	for range cases {
		r := <-results
		got[r.Case] = r
	}
	quick, hang := got["quick"], got["hang"]
	if !quick.Right() || quick.Status != StatusPass {
		t.Errorf("quick case: status %s class %q error %q; want it answered right after the wait", quick.Status, quick.Class, quick.Error)
	}
	if quick.WaitMS < float64(timeout.Milliseconds()) {
		t.Errorf("quick case waited %.0f ms for the parent; the test holds it back over %s", quick.WaitMS, timeout)
	}
	if hang.Class != ClassTimeout || !strings.Contains(hang.Error, "timeout") {
		t.Errorf("hanging case: class %q error %q; want a timeout", hang.Class, hang.Error)
	}
}

// timeoutSuite is an agent solver against a scripted model and two cases
// over one table: one whose cell prints the answer, one whose cell sleeps.
func timeoutSuite(t *testing.T) (*AgentSolver, []Case) {
	t.Helper()
	dir := t.TempDir()
	data := filepath.Join(dir, "t.csv")
	if err := os.WriteFile(data, []byte("a\n1\n2\n3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := evaltest.New(map[string]map[string]string{quickQuestion: {"rows": evaltest.Printed}, hangQuestion: {"rows": evaltest.Printed}})
	m.Codes = map[string]string{quickQuestion: "print('ANSWER=%d' % len(df))", hangQuestion: "import time\ntime.sleep(600)"}
	t.Cleanup(m.Close)
	client, err := llm.New("ollama:scripted:1b", llm.Options{OllamaHost: m.URL, RetryBaseDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewAgentSolver(context.Background(), client, "ollama:scripted:1b")
	if err != nil {
		t.Fatal(err)
	}
	s.Kernel = kerneltest.Options(t)
	expect := []Expect{{Name: "rows", Value: "3"}}
	return s, []Case{
		{ID: "quick", Dataset: data, Prompt: quickQuestion, Expect: expect},
		{ID: "hang", Index: 1, Dataset: data, Prompt: hangQuestion, Expect: expect},
	}
}
