package pipeline

import (
	"testing"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/numtrace"
	"github.com/analyst-cli/analyst/runrecord"
)

// A goal answered with named values and no summary states the values as
// its finding: each number is one claim, traced and counted once, and
// marked in the key findings and in the finding's cell.
func TestFindingOfValuesCountsEachNumberOnce(t *testing.T) {
	ix := numtrace.NewIndex([]numtrace.Source{{ID: "c1", Texts: []string{"share = 0.41"}}})
	trace := tracer(ix, nil)
	ans := &agent.Answer{Question: "Exploration goal 1: What share?", Answered: true,
		Values: []agent.NamedValue{{Name: "share", Value: "0.41"}, {Name: "n", Value: "77"}}}
	nb := nbformat.New()
	finding := agent.FormatAnswers(ans.Values)
	cell := nb.AddMarkdown("**Finding of goal 1:** "+finding, "finding")
	ex := &runrecord.Exploration{Goals: []*runrecord.ExploredGoal{{Answer: ans, Finding: finding, FindingCell: cell.ID}},
		KeyFindings: []runrecord.KeyFinding{{Goal: 1, Finding: finding}}}
	_, marks, cells := keyFindingsMarkdown(ex, trace, nb, nil)
	if n := ans.Numbers; n == nil || len(n.Traced) != 1 || len(n.Untraced) != 1 || n.Untraced[0].Text != "77" {
		t.Errorf("numbers %+v, want 0.41 traced and 77 untraced, once each", n)
	}
	if len(marks) != 2 || len(cells[cell.ID]) != 2 {
		t.Errorf("marks %+v, cell marks %+v; want both numbers marked in each", marks, cells)
	}
}
