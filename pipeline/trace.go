package pipeline

import (
	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/numtrace"
)

// traceSources are the notebook's code cells as numtrace sources, named by
// cell ID (the report's anchors). Failed attempts are left out: what a
// failing cell printed is not a result.
func traceSources(nb *nbformat.Notebook) []numtrace.Source {
	return numtrace.CellSources(nb, func(_ int, c *nbformat.Cell) string {
		if c.HasTag(nbformat.TagFailedAttempt) {
			return ""
		}
		return c.ID
	})
}

// given are the texts whose numbers the model was given, not computed:
// the question and the column names.
func (r *runner) given(question string) []string {
	g := []string{question}
	if r.profile != nil {
		g = append(g, r.profile.ColumnNames()...)
	}
	return g
}

// traceAnswer traces an answer's named values and the numbers of its
// narrative (as written: plain or markdown) in the cells of ix.
func (r *runner) traceAnswer(ix *numtrace.Index, question string, values []agent.NamedValue, narrative string) (vals [][]numtrace.Trace, prose []numtrace.Trace) {
	for _, v := range values {
		vals = append(vals, ix.TraceText(v.Name, v.Value))
	}
	return vals, ix.Find(numtrace.Extract(narrative, r.given(question)...))
}

// untraced is the agent's Trace hook: the numbers of an answer no output
// of the run's cells shows, counting the cells of the answer not yet in
// the notebook.
func (r *runner) untraced(a *agent.Answer, values []agent.NamedValue, narrative string) []string {
	sources := traceSources(r.nb)
	for _, s := range a.Steps {
		if !s.Failed && s.Exec != nil {
			sources = append(sources, numtrace.Source{ID: "new", Texts: numtrace.OutputTexts(nbformat.CopyOutputs(s.Exec.Outputs))})
		}
	}
	vals, prose := r.traceAnswer(numtrace.NewIndex(sources), a.Question, values, narrative)
	var all []numtrace.Trace
	for _, v := range vals {
		all = append(all, v...)
	}
	return numtrace.NewRecord(append(all, prose...)).UntracedTexts()
}
