package cmd

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/evals"
	"github.com/analyst-cli/analyst/internal/iostreams"
)

// fakeClock moves only when told.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestEvalProgressPlainAndLive(t *testing.T) {
	pass := &evals.Result{Case: "c1", Model: "ollama:m", Status: evals.StatusPass}
	fail := &evals.Result{Case: "c2", Model: "ollama:m", Status: evals.StatusFail, Class: evals.ClassNearMiss,
		Answers: []evals.SubAnswer{{Name: "a", Want: "1.5", Got: "1.5001", Has: true}}}
	broke := &evals.Result{Case: "c3", Model: "ollama:m", Status: evals.StatusError, Class: evals.ClassSandboxError, Error: "the kernel died"}
	for _, tty := range []bool{false, true} {
		io, _, _, errOut := iostreams.Test()
		io.SetTTY(false, false, tty)
		clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		p := newEvalProgress(NewFactory(io), clock.now)
		// 5 cases, one finished in an earlier run; each new one takes 10s.
		p.Update(evals.Progress{Total: 5, Done: 1, Skipped: 1})
		clock.add(10 * time.Second)
		p.Update(evals.Progress{Result: pass, Total: 5, Done: 2, Skipped: 1, Passed: 1, Elapsed: 10 * time.Second})
		clock.add(10 * time.Second)
		p.Update(evals.Progress{Result: fail, Total: 5, Done: 3, Skipped: 1, Passed: 1, Elapsed: 20 * time.Second})
		clock.add(10 * time.Second)
		p.Update(evals.Progress{Result: broke, Total: 5, Done: 4, Skipped: 1, Passed: 1, Errors: 1, Elapsed: 30 * time.Second})
		p.Stop()
		got := errOut.String()
		if live := strings.Contains(got, "\r\033[K"); live != tty {
			t.Errorf("tty=%v: redraws present = %v:\n%q", tty, live, got)
		}
		if !tty {
			want := "1 of 5 cases finished in an earlier run\n" +
				"[2/5] ollama:m c1: pass; 1 of 1 run passed (100.00%), 0 errors, ETA 30s\n" +
				"[3/5] ollama:m c2: fail (near-miss); 1 of 2 run passed (50.00%), 0 errors, ETA 20s\n" +
				"[4/5] ollama:m c3: error (sandbox-error); 1 of 3 run passed (33.33%), 1 errors, ETA 10s\n"
			if got != want {
				t.Errorf("plain lines:\n%s\nwant:\n%s", got, want)
			}
			continue
		}
		for _, want := range []string{
			"\r\033[Keval 1/5 · score 0.00% (0 of 0 run) · 0 errors · 0s",
			"\r\033[Keval 2/5 · score 100.00% (1 of 1 run) · 0 errors · 10s · ETA 30s",
			"\r\033[K[3/5] ollama:m c2: fail (near-miss): a: \"1.5001\", want \"1.5\"\n",
			"\r\033[K[4/5] ollama:m c3: error (sandbox-error): the kernel died\n\r\033[Keval 4/5 · score 33.33% (1 of 3 run) · 1 errors · 30s · ETA 10s",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("live display lacks %q:\n%q", want, got)
			}
		}
		if strings.Contains(got, "c1:") {
			t.Errorf("a passed case got a permanent line on the terminal:\n%q", got)
		}
		if !strings.HasSuffix(got, "\r\033[K") {
			t.Errorf("Stop leaves the status line up:\n%q", got)
		}
	}
}
