package audit

import (
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/numtrace"
)

func TestShows(t *testing.T) {
	tests := []struct {
		text, value string
		want        bool
	}{
		{"top region: East", "East", true},
		{"mean    12.3456\n", "12.35", true},
		{"mean    12.3456\n", "12.34", false},
		{"total 1,234,567.8", "1234567.8", true},
		{"total 1234567", "1,234,567", true},
		{"count 7", "8", false},
		{"anything", "", false},
	}
	for _, tt := range tests {
		if got := shows(tt.text, tt.value); got != tt.want {
			t.Errorf("shows(%q, %q) = %v, want %v", tt.text, tt.value, got, tt.want)
		}
	}
}

func TestCompareOutputs(t *testing.T) {
	text := func(s string) nbformat.Output {
		return nbformat.ExecuteResult(1, nbformat.MimeBundle{"text/plain": nbformat.Text(s)}, nil)
	}
	tests := []struct {
		name      string
		want, got []nbformat.Output
		diff      string // "" means no difference
	}{
		{"same", []nbformat.Output{text("a\nb")}, []nbformat.Output{text("a\nb")}, ""},
		{"one character", []nbformat.Output{text("a\nb")}, []nbformat.Output{text("a\nc")},
			"output 1 (text/plain): line 2 differs\n      - recorded: \"b\"\n      + re-run:   \"c\""},
		{"stream", []nbformat.Output{nbformat.Stream("stdout", "x=1\n")}, []nbformat.Output{nbformat.Stream("stdout", "x=2\n")}, `line 1 differs`},
		{"error instead", []nbformat.Output{text("1")}, []nbformat.Output{nbformat.Error("KeyError", "'revenue'", nil)},
			"output 1: recorded execute_result, re-run error KeyError: \"'revenue'\""},
		{"output gone", []nbformat.Output{text("1"), text("2")}, []nbformat.Output{text("1")}, "2 outputs recorded, re-run has 1"},
		{"mime gone", []nbformat.Output{nbformat.DisplayData(nbformat.MimeBundle{"text/plain": nbformat.Text("t"), "image/png": nbformat.Text("iVBO")}, nil)},
			[]nbformat.Output{nbformat.DisplayData(nbformat.MimeBundle{"text/plain": nbformat.Text("t")}, nil)}, "image/png recorded, re-run lacks it"},
	}
	for _, tt := range tests {
		d := strings.Join(compareOutputs(tt.want, tt.got), "\n")
		if (tt.diff == "") != (d == "") || !strings.Contains(d, tt.diff) {
			t.Errorf("%s: diff %q, want %q", tt.name, d, tt.diff)
		}
	}
}

// Numbers run.json traces to a cell are looked up in that cell only, in
// the notebook and in the re-run, with the rounding rule that traced them.
func TestCheckTracedNumbers(t *testing.T) {
	text := func(s string) []nbformat.Output { return []nbformat.Output{nbformat.Stream("stdout", s)} }
	nb := nbformat.New()
	a := nb.AddCode("print(share)", text("share 0.1234\n"), 1)
	b := nb.AddCode("print(peak)", text("peak March, total 1234567\n"), 2)
	reran := map[string][]nbformat.Output{a.ID: text("share 0.1234\n"), b.ID: text("peak March, total 1234567\n")}
	trace := func(stated, cell string) numtrace.Trace {
		return numtrace.Find(numtrace.Extract(stated), []numtrace.Source{{ID: cell, Texts: numtrace.OutputTexts(nb.Cells[map[string]int{a.ID: 0, b.ID: 1}[cell]].Outputs)}})[0]
	}
	march := numtrace.Trace{Number: numtrace.Number{Text: "March", Answer: "peak"}, Found: true, Source: b.ID, Output: "March", Literal: true}
	rec := &numtrace.Record{Traced: []numtrace.Trace{trace("12.3%", a.ID), trace("1.2 million", b.ID), march}}
	for _, tr := range rec.Traced {
		if !tr.Found {
			t.Fatalf("setup: %+v not traced", tr)
		}
	}
	qs := []*agent.Answer{{Question: "q", Values: []agent.NamedValue{{Name: "peak", Value: "March"}}, Numbers: rec}}

	check := func(nb *nbformat.Notebook, reran map[string][]nbformat.Output) string {
		var b strings.Builder
		for _, n := range checkNumbers(nb, reran, qs) {
			if !n.Found {
				b.WriteString(n.Problem + "\n")
			}
		}
		for _, a := range checkAnswers(nb, reran, qs) {
			if !a.Found {
				b.WriteString(a.Problem + "\n")
			}
		}
		return b.String()
	}
	if got := check(nb, reran); got != "" {
		t.Fatalf("an untouched run: %s", got)
	}

	// The notebook's output edited: 0.1234 → 0.1334.
	a.Outputs = text("share 0.1334\n")
	if got := check(nb, reran); !strings.Contains(got, `12.3% is not in the output of cell 1 in the notebook (run.json traced it to "0.1234" there)`) {
		t.Errorf("edited output: %q", got)
	}
	a.Outputs = text("share 0.1234\n")

	// The re-run no longer computes it (new code or data), or another cell
	// shows the answer: both named, the answer in its own cell only.
	reran[b.ID] = text("peak April, total 1334567\n")
	reran[a.ID] = text("share 0.1234, March\n")
	got := check(nb, reran)
	for _, want := range []string{"1.2 million is not in the output of cell 2 when re-run", "March is not in the output of cell 2 when re-run"} {
		if !strings.Contains(got, want) {
			t.Errorf("re-run differs: %q lacks %q", got, want)
		}
	}

	// The cell removed.
	nb.Cells = nb.Cells[:1]
	if got := check(nb, reran); !strings.Contains(got, "1.2 million was traced to cell "+b.ID+", which is not in the notebook") {
		t.Errorf("removed cell: %q", got)
	}
}
