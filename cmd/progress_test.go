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
