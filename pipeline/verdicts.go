package pipeline

import (
	"strings"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/numtrace"
	"github.com/analyst-cli/analyst/report"
)

// traceVerdicts traces the numbers of every reflection verdict of answers
// in the model's words (its reason for accepting, its reason for revising
// and revised answer), records them on the verdict (run.json), and returns
// the marks of nb's reflection cells that show those notes, by cell ID. Notes in the tool's
// words (why a round ended) state no claim and are left alone.
func traceVerdicts(nb *nbformat.Notebook, answers []*agent.Answer, trace traceFunc) map[string][]report.NumberMark {
	var cells []*nbformat.Cell
	for _, c := range nb.Cells {
		if c.CellType == nbformat.Markdown && c.HasTag(nbformat.TagReflection) {
			cells = append(cells, c)
		}
	}
	out := map[string][]report.NumberMark{}
	next := 0 // the verdict cells are in the answers' order
	for _, a := range answers {
		for i := range a.Verdicts {
			v := &a.Verdicts[i]
			if !v.ModelWords() {
				continue
			}
			note := verdictQuote(*v)
			_, prose := trace(a.Question, nil, note)
			v.Numbers = numtrace.NewRecord(prose)
			text := verdictText(*v)
			for k := next; k < len(cells); k++ {
				if cells[k].Source != text {
					continue
				}
				next = k + 1
				if marks := quotedMarks(text, note, prose); len(marks) > 0 {
					out[cells[k].ID] = marks
				}
				break
			}
		}
	}
	return out
}

// quotedMarks places traces of note in text, where verdictText quotes it
// as a blockquote ("> " after each line break).
func quotedMarks(text, note string, traces []numtrace.Trace) []report.NumberMark {
	at := strings.Index(text, "\n\n> ")
	if at < 0 {
		return nil
	}
	at += len("\n\n> ")
	var out []report.NumberMark
	for _, t := range traces {
		shift := at + len("> ")*strings.Count(note[:t.Start], "\n")
		out = append(out, numberMarks(shift, []numtrace.Trace{t})...)
	}
	return out
}
