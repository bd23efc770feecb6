package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/analyst-cli/analyst/pipeline"
	"github.com/analyst-cli/analyst/report"
)

// progress shows a run as it goes: JSON events on stdout with --json; on a
// terminal, finished stages as lines plus one live status line (stage, turn,
// tokens, elapsed) redrawn in place; elsewhere (CI) plain lines only.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	enc      *json.Encoder
	live     *liveLine // nil unless stderr is a terminal
	stopTick func()    // plain output: stops the ticker that prints held progress
	start    time.Time
	stage    string
	turn     int
	tokens   int
	retries  int
	// detail is how far the running cell has got ("read 312 of 529 MiB").
	// Plain output: plainAt is when a progress line was last printed; held
	// (of heldStage) came sooner than plainProgressEvery after it and waits
	// for the ticker, so the latest step shows even when no event follows
	// (pandas converting the text into columns says so once, then nothing).
	detail    string
	plainAt   time.Time
	held      string
	heldStage string
}

func newProgress(f *Factory, asJSON bool) *progress {
	p := &progress{w: f.IO.ErrOut, start: time.Now()}
	switch {
	case asJSON:
		p.enc = json.NewEncoder(f.IO.Out)
	case f.IO.IsStderrTTY():
		p.live = startLiveLine(&p.mu, p.w, p.status)
	default:
		p.stopTick = tickEvery(time.Second, &p.mu, func() { p.printHeld(time.Now()) })
	}
	return p
}

// tickEvery calls fn with mu held every d until the returned stop is called;
// stop returns once fn no longer runs.
func tickEvery(d time.Duration, mu sync.Locker, fn func()) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				mu.Lock()
				fn()
				mu.Unlock()
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

// liveLine is a status line redrawn in place on a terminal, under the
// permanent lines printed above it. A ticker redraws it so the clocks on it
// move between events. Its owner's mutex guards the status and the writes.
type liveLine struct {
	mu     sync.Locker
	w      io.Writer
	status func() string // the line as it is now, "" for none; called with mu held
	stop   func()
}

func startLiveLine(mu sync.Locker, w io.Writer, status func() string) *liveLine {
	l := &liveLine{mu: mu, w: w, status: status}
	l.stop = tickEvery(250*time.Millisecond, mu, l.redraw)
	return l
}

// redraw writes the status line over the last one (mu held).
func (l *liveLine) redraw() {
	if s := l.status(); s != "" {
		fmt.Fprintf(l.w, "\r\033[K%s", s)
	}
}

// println prints a permanent line where the status line was (mu held); the
// next redraw puts the status line back under it.
func (l *liveLine) println(s string) {
	fmt.Fprint(l.w, "\r\033[K")
	fmt.Fprintln(l.w, s)
}

// close stops the ticker and clears the status line (mu not held).
func (l *liveLine) close() {
	l.stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.status() != "" {
		fmt.Fprint(l.w, "\r\033[K")
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
		p.stage, p.turn, p.detail, p.held = e.Stage, 0, "", ""
		if p.live == nil {
			fmt.Fprintf(p.w, "%-14s ...\n", e.Stage)
		}
	case pipeline.EventModelTurn:
		p.turn, p.tokens, p.retries = e.Turn, e.Tokens, e.Retries
		if p.live == nil {
			fmt.Fprintf(p.w, "%-14s turn %d, %d tokens so far%s, %s\n", e.Stage, e.Turn, e.Tokens, retryText(e.Retries, ", "), p.elapsed())
		}
	case pipeline.EventProgress:
		p.detail = printable(e.Message)
		if p.live == nil {
			p.held, p.heldStage = p.detail, e.Stage
			p.printHeld(eventTime(e))
		}
	case pipeline.EventCell:
		p.detail, p.held = "", ""
	case pipeline.EventNotice:
		// Whole (a notice is said once, and may carry a server's
		// reason), but on one line and without control sequences.
		p.line(fmt.Sprintf("%-14s note: %s", e.Stage, visible(e.Message)))
	case pipeline.EventStageEnd:
		var note string
		if e.Message != "" {
			note = " (" + printable(e.Message) + ")"
		}
		p.line(fmt.Sprintf("%-14s %s in %s%s", e.Stage, e.Status, e.Duration.Round(10*time.Millisecond), note))
		p.stage, p.held = "", ""
	case pipeline.EventRunEnd:
		if e.Status != string(report.StatusOK) {
			p.line(fmt.Sprintf("run failed after %s: %s", e.Duration.Round(10*time.Millisecond), visible(e.Message)))
		} else {
			p.line(fmt.Sprintf("run finished in %s", e.Duration.Round(10*time.Millisecond)))
		}
	}
	if p.live != nil {
		p.live.redraw()
	}
}

// printHeld prints the progress held back, in plain output, once
// plainProgressEvery has passed since the last progress line (mu held).
func (p *progress) printHeld(now time.Time) {
	if p.held == "" || now.Sub(p.plainAt) < plainProgressEvery {
		return
	}
	p.plainAt = now
	fmt.Fprintf(p.w, "%-14s %s, %s\n", p.heldStage, p.held, p.elapsed())
	p.held = ""
}

// eventTime is when e happened: its time, or now when it has none.
func eventTime(e pipeline.Event) time.Time {
	if e.Time.IsZero() {
		return time.Now()
	}
	return e.Time
}

func (p *progress) elapsed() time.Duration { return time.Since(p.start).Round(100 * time.Millisecond) }

// line prints a permanent line (above the status line on a terminal).
func (p *progress) line(s string) {
	if p.live != nil {
		p.live.println(s)
		return
	}
	fmt.Fprintln(p.w, s)
}

// status is the live line: stage, turn, tokens or how far the cell has
// got, elapsed ("" between stages).
func (p *progress) status() string {
	switch {
	case p.stage == "":
		return ""
	case p.turn > 0:
		return fmt.Sprintf("%s · turn %d · %d tokens%s · %s", p.stage, p.turn, p.tokens, retryText(p.retries, " · "), p.elapsed())
	case p.detail != "":
		return fmt.Sprintf("%s · %s · %s", p.stage, p.detail, p.elapsed())
	}
	return fmt.Sprintf("%s · %s", p.stage, p.elapsed())
}

// Stop ends the live line.
func (p *progress) Stop() {
	if p.live != nil {
		p.live.close()
	}
	if p.stopTick != nil {
		p.stopTick()
	}
}

// plainProgressEvery spaces the progress lines of a long cell in plain
// output (CI logs): one every few seconds, not one per message.
const plainProgressEvery = 5 * time.Second

// printable is s without control characters (the text comes from code in
// the sandbox and must not move the terminal's cursor), at most 120 runes.
func printable(s string) string {
	s = visible(s)
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return s
}

// visible is s without the characters a terminal would act on (escape,
// bell, line breaks): text from a server or the sandbox cannot move the
// cursor or retitle the window.
func visible(s string) string {
	return strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) {
			return -1
		}
		return r
	}, s)
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
