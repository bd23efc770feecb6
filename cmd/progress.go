package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/analyst-cli/analyst/pipeline"
	"github.com/analyst-cli/analyst/report"
)

// progress shows a run as it goes: JSON events on stdout with --json; on a
// terminal, finished stages as lines plus one live status line (stage, turn,
// tokens, elapsed) redrawn in place; elsewhere (CI) plain lines only.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	enc     *json.Encoder
	live    bool
	start   time.Time
	stage   string
	turn    int
	tokens  int
	retries int
	stop    chan struct{}
	done    chan struct{}
}

func newProgress(f *Factory, asJSON bool) *progress {
	p := &progress{w: f.IO.ErrOut, start: time.Now()}
	switch {
	case asJSON:
		p.enc = json.NewEncoder(f.IO.Out)
	case f.IO.IsStderrTTY():
		p.live = true
		p.stop, p.done = make(chan struct{}), make(chan struct{})
		go p.tick()
	}
	return p
}

// tick redraws the status line so the elapsed time moves while a cell or a
// model call runs.
func (p *progress) tick() {
	defer close(p.done)
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.redraw()
			p.mu.Unlock()
		}
	}
}

// Event takes one pipeline event.
func (p *progress) Event(e pipeline.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.enc != nil {
		_ = p.enc.Encode(e)
		return
	}
	switch e.Type {
	case pipeline.EventStageStart:
		p.stage, p.turn = e.Stage, 0
		if !p.live {
			fmt.Fprintf(p.w, "%-14s ...\n", e.Stage)
		}
	case pipeline.EventModelTurn:
		p.turn, p.tokens, p.retries = e.Turn, e.Tokens, e.Retries
		if !p.live {
			fmt.Fprintf(p.w, "%-14s turn %d, %d tokens so far%s, %s\n", e.Stage, e.Turn, e.Tokens, retryText(e.Retries, ", "), p.elapsed())
		}
	case pipeline.EventNotice:
		p.line(fmt.Sprintf("%-14s note: %s", e.Stage, e.Message))
	case pipeline.EventStageEnd:
		p.line(fmt.Sprintf("%-14s %s in %s", e.Stage, e.Status, e.Duration.Round(10*time.Millisecond)))
		p.stage = ""
	case pipeline.EventRunEnd:
		if e.Status != string(report.StatusOK) {
			p.line(fmt.Sprintf("run failed after %s: %s", e.Duration.Round(10*time.Millisecond), e.Message))
		} else {
			p.line(fmt.Sprintf("run finished in %s", e.Duration.Round(10*time.Millisecond)))
		}
	}
	p.redraw()
}

func (p *progress) elapsed() time.Duration { return time.Since(p.start).Round(100 * time.Millisecond) }

// line prints a permanent line (above the status line on a terminal).
func (p *progress) line(s string) {
	if p.live {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintln(p.w, s)
}

func (p *progress) redraw() {
	if !p.live || p.stage == "" {
		return
	}
	status := fmt.Sprintf("%s · %s", p.stage, p.elapsed())
	if p.turn > 0 {
		status = fmt.Sprintf("%s · turn %d · %d tokens%s · %s", p.stage, p.turn, p.tokens, retryText(p.retries, " · "), p.elapsed())
	}
	fmt.Fprintf(p.w, "\r\033[K%s", status)
}

// Stop ends the live line.
func (p *progress) Stop() {
	if !p.live {
		return
	}
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stage != "" {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// retryText is "<sep>N retries" when model requests were retried.
func retryText(n int, sep string) string {
	switch n {
	case 0:
		return ""
	case 1:
		return sep + "1 retry"
	}
	return fmt.Sprintf("%s%d retries", sep, n)
}
