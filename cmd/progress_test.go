package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/internal/iostreams"
	"github.com/analyst-cli/analyst/pipeline"
)

func TestProgressPlainAndLive(t *testing.T) {
	events := []pipeline.Event{
		{Type: "stage-start", Stage: "question-1"},
		{Type: "model-turn", Stage: "question-1", Turn: 2, Tokens: 1234},
		{Type: "stage-end", Stage: "question-1", Status: "ok", Duration: 1500 * time.Millisecond},
		{Type: "run-end", Status: "ok", Duration: 2 * time.Second},
	}
	for _, tty := range []bool{false, true} {
		got := showProgress(events, tty)
		if !strings.Contains(got, "question-1     ok in 1.5s\n") || !strings.Contains(got, "run finished in 2s\n") {
			t.Errorf("tty=%v: finished lines missing:\n%q", tty, got)
		}
		live := strings.Contains(got, "\r\033[K")
		if live != tty {
			t.Errorf("tty=%v: redraws present = %v:\n%q", tty, live, got)
		}
		if tty && !strings.Contains(got, "question-1 · turn 2 · 1234 tokens") {
			t.Errorf("live status line lacks stage, turn and tokens:\n%q", got)
		}
		if !tty && !strings.Contains(got, "turn 2, 1234 tokens so far") {
			t.Errorf("plain progress lacks the turn line:\n%q", got)
		}
	}
}

// Progress inside a long cell shows on the live line, and in plain output as
// a line every few seconds; text from the sandbox cannot move the cursor.
func TestProgressInsideStage(t *testing.T) {
	events := []pipeline.Event{
		{Type: "stage-start", Stage: "load"},
		{Type: "progress", Stage: "load", Cell: 2, Message: "read 312 of 529 MiB (59%), about 4,700,000 rows\x1b[2J", Done: 312 << 20, Total: 529 << 20, Unit: "bytes"},
		{Type: "progress", Stage: "load", Cell: 2, Message: "read 400 of 529 MiB (76%)"},
		{Type: "cell", Stage: "load", Cell: 2, Status: "ok"},
		{Type: "stage-end", Stage: "load", Status: "ok", Duration: 9 * time.Second},
	}
	for _, tty := range []bool{false, true} {
		got := showProgress(events, tty)
		if strings.Contains(got, "\x1b[2J") {
			t.Errorf("tty=%v: a control sequence from the sandbox reached the terminal:\n%q", tty, got)
		}
		if tty && !strings.Contains(got, "load · read 312 of 529 MiB (59%), about 4,700,000 rows[2J · ") {
			t.Errorf("live line lacks the progress:\n%q", got)
		}
		// Plain: the first message, not the second, which came sooner than plainProgressEvery.
		if !tty && (!strings.Contains(got, "load           read 312 of 529 MiB (59%), about 4,700,000 rows[2J, ") || strings.Contains(got, "400 of 529")) {
			t.Errorf("plain progress lines:\n%q", got)
		}
	}
}

// Plain output follows a long load: a line at least plainProgressEvery
// apart, each the latest step, and the last step of a quiet spell (pandas
// converting the text into columns, which logs once and then nothing for
// seconds) is printed when the interval has passed, without another event.
// The events' times are an hour ahead, so the display's own one-second
// ticker (which uses the clock) never prints during the test; the test
// calls what the ticker calls, at the times it would.
func TestProgressPlainFollowsTheLoad(t *testing.T) {
	t0 := time.Now().Add(time.Hour)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	io, _, _, errOut := iostreams.Test()
	io.SetTTY(false, false, false)
	p := newProgress(NewFactory(io), false)
	read := func(s float64, msg string) {
		p.Event(pipeline.Event{Time: at(s), Type: "progress", Stage: "load", Cell: 2, Message: msg, Unit: "bytes"})
	}
	tick := func(s float64) {
		p.mu.Lock()
		p.printHeld(at(s))
		p.mu.Unlock()
	}
	p.Event(pipeline.Event{Time: at(0), Type: "stage-start", Stage: "load"})
	read(0.1, "read 0.2 of 189 MiB (0%)")
	read(2.5, "read 55 of 189 MiB (29%)")
	tick(3)
	read(5.5, "read 113 of 189 MiB (60%)")
	read(8, "read 189 of 189 MiB (100%)")
	read(8, "read all 189 MiB; converting the text into columns")
	tick(9)
	tick(10.6)
	tick(11.6)
	p.Event(pipeline.Event{Time: at(17), Type: "progress", Stage: "load", Cell: 2, Message: "looked for dates: 5 of 5 text columns"})
	p.Event(pipeline.Event{Time: at(17.5), Type: "cell", Stage: "load", Cell: 2, Status: "ok"})
	tick(23)
	p.Stop()
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(errOut.String()), "\n") {
		if i := strings.LastIndex(l, ", "); strings.HasPrefix(l, "load           ") && i > 0 {
			lines = append(lines, strings.TrimPrefix(l[:i], "load           "))
		}
	}
	want := []string{"read 0.2 of 189 MiB (0%)", "read 113 of 189 MiB (60%)",
		"read all 189 MiB; converting the text into columns", "looked for dates: 5 of 5 text columns"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("plain progress lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// showProgress is what the progress display writes for events, on a
// terminal (tty) or not.
func showProgress(events []pipeline.Event, tty bool) string {
	io, _, _, errOut := iostreams.Test()
	io.SetTTY(false, false, tty)
	p := newProgress(NewFactory(io), false)
	for _, e := range events {
		p.Event(e)
	}
	p.Stop()
	return errOut.String()
}

// A notice (the switch to code-block mode) is printed whole, with the
// server's reason, on its own line; a control sequence in the server's
// words does not reach the terminal.
func TestProgressNotice(t *testing.T) {
	reason := "registry.ollama.ai/library/qwen2.5-coder:7b does not support tools\x1b]0;owned\x07 (see `ollama show qwen2.5-coder:7b`, which lists the model's capabilities)"
	events := []pipeline.Event{
		{Type: "stage-start", Stage: "question-1"},
		{Type: "notice", Stage: "question-1", Message: "the model server refuses tool calling; switched to code-block mode (fenced ```python blocks). The server said: HTTP 400: " + reason},
	}
	for _, tty := range []bool{false, true} {
		got := showProgress(events, tty)
		if strings.Contains(got, "\x1b]") || strings.Contains(got, "\x07") {
			t.Errorf("tty=%v: a control sequence from the server reached the terminal:\n%q", tty, got)
		}
		if want := "question-1     note: the model server refuses tool calling; switched to code-block mode (fenced ```python blocks). " +
			"The server said: HTTP 400: registry.ollama.ai/library/qwen2.5-coder:7b does not support tools]0;owned (see `ollama show qwen2.5-coder:7b`, which lists the model's capabilities)\n"; !strings.Contains(got, want) {
			t.Errorf("tty=%v: notice line:\n%q\nwant\n%q", tty, got, want)
		}
	}
}
