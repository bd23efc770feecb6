package evals

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/nbformat"
)

// A reasoning trace has what each cell showed, as its notebook does: what
// it printed, its displays' text and its last expression's value.
func TestReasoningTraceHasEachCellsOutput(t *testing.T) {
	plain := func(s string) nbformat.MimeBundle {
		b, _ := json.Marshal(s)
		return nbformat.MimeBundle{nbformat.MimePlain: b}
	}
	ex := &kernel.Execution{Status: kernel.StatusOK, Outputs: []nbformat.Output{
		nbformat.Stream("stdout", "rows = 138236\n"),
		nbformat.DisplayData(plain("   id  fee\n0   1  0.1"), nil),
		nbformat.Stream("stderr", "a warning\n"),
		nbformat.ExecuteResult(3, plain("42"), nil),
	}}
	ans := &agent.Answer{Answered: true, Values: []agent.NamedValue{{Name: "answer", Value: "42"}},
		Steps: []agent.Step{{Turn: 1, Code: "print(...)", Status: "ok", Exec: ex}}}
	got := reasoningTrace([]*agent.Answer{ans})
	if want := "Output:\nrows = 138236\n   id  fee\n0   1  0.1\na warning\n42\nAnswer: @answer[42]"; !strings.Contains(got, want) {
		t.Errorf("trace:\n%s\nwant it to hold:\n%s", got, want)
	}
}
