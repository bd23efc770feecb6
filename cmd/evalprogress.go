package cmd

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/analyst-cli/analyst/evals"
)

// evalProgress shows an eval as it goes. On a terminal: one status line
// redrawn in place (cases done of total, running score, errors, elapsed,
// ETA), with a permanent line for each case that did not pass. Elsewhere
// (CI logs): a plain line per finished case.
type evalProgress struct {
	mu    sync.Mutex
	w     io.Writer
	live  *liveLine // nil unless stderr is a terminal
	now   func() time.Time
	start time.Time
	last  evals.Progress
	at    time.Time // when last came
	begun bool
}

// newEvalProgress starts the display; now is the clock (time.Now).
func newEvalProgress(f *Factory, now func() time.Time) *evalProgress {
	p := &evalProgress{w: f.IO.ErrOut, now: now}
	p.start = p.now()
	if f.IO.IsStderrTTY() {
		p.live = startLiveLine(&p.mu, p.w, p.status)
	}
	return p
}

// Update takes the run's start (Result nil) or a case that ended.
func (p *evalProgress) Update(e evals.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last, p.at, p.begun = e, p.now(), true
	r := e.Result
	switch {
	case r == nil && p.live == nil && e.Skipped > 0:
		fmt.Fprintf(p.w, "%d of %d cases finished in an earlier run\n", e.Skipped, e.Total)
	case r == nil:
	case p.live == nil:
		fmt.Fprintf(p.w, "[%d/%d] %s %s: %s; %s\n", e.Done, e.Total, r.Model, r.Case, caseOutcome(r), p.counts())
	case r.Status != evals.StatusPass:
		p.live.println(fmt.Sprintf("[%d/%d] %s %s: %s: %s", e.Done, e.Total, r.Model, r.Case, caseOutcome(r), evals.Detail(*r)))
	}
	if p.live != nil {
		p.live.redraw()
	}
}

// Stop ends the live line.
func (p *evalProgress) Stop() {
	if p.live != nil {
		p.live.close()
	}
}

func caseOutcome(r *evals.Result) string {
	if r.Class != "" {
		return r.Status + " (" + r.Class + ")"
	}
	return r.Status
}

// counts is the running score, errors and ETA (mu held).
func (p *evalProgress) counts() string {
	e := p.last
	run := e.Done - e.Skipped
	s := fmt.Sprintf("%d of %d run passed (%s), %d errors", e.Passed, run, pctOf(float64(e.Passed)/float64(max(run, 1))), e.Errors)
	if eta, ok := p.eta(); ok {
		s += ", ETA " + eta.String()
	}
	return s
}

// eta is the time left at the pace so far: the cases run in this process
// over the time they took, less the time since the last one ended.
func (p *evalProgress) eta() (time.Duration, bool) {
	e := p.last
	run, left := e.Done-e.Skipped, e.Total-e.Done
	if run == 0 || left == 0 {
		return 0, false
	}
	d := time.Duration(float64(e.Elapsed)/float64(run)*float64(left)) - p.now().Sub(p.at)
	return max(d, 0).Round(time.Second), true
}

// status is the live line (mu held).
func (p *evalProgress) status() string {
	if !p.begun {
		return ""
	}
	e := p.last
	run := e.Done - e.Skipped
	s := fmt.Sprintf("eval %d/%d · score %s (%d of %d run) · %d errors · %s", e.Done, e.Total,
		pctOf(float64(e.Passed)/float64(max(run, 1))), e.Passed, run, e.Errors, p.now().Sub(p.start).Round(time.Second))
	if eta, ok := p.eta(); ok {
		s += " · ETA " + eta.String()
	}
	return s
}
