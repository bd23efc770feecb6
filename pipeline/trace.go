package pipeline

import (
	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/eda"
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
func given(question string, profile *eda.Profile) []string {
	g := []string{question}
	if profile != nil {
		g = append(g, profile.ColumnNames()...)
	}
	return g
}

// tracer traces an answer's named values and the numbers of its narrative
// (as written: plain or markdown) in the cells of ix, the numbers of the
// question and of profile's column names being given.
func tracer(ix *numtrace.Index, profile *eda.Profile) traceFunc {
	return func(question string, values []agent.NamedValue, narrative string) (vals [][]numtrace.Trace, prose []numtrace.Trace) {
		for _, v := range values {
			vals = append(vals, ix.TraceText(v.Name, v.Value))
		}
		return vals, ix.Find(numtrace.Extract(narrative, given(question, profile)...))
	}
}

// untraced are the numbers of an answer no output of nb's cells shows,
// counting the cells of the answer not yet in nb.
func untraced(nb *nbformat.Notebook, profile *eda.Profile, a *agent.Answer, values []agent.NamedValue, narrative string) []string {
	sources := traceSources(nb)
	for _, s := range a.Steps {
		if !s.Failed && s.Exec != nil {
			sources = append(sources, numtrace.Source{ID: "new", Texts: numtrace.OutputTexts(nbformat.CopyOutputs(s.Exec.Outputs))})
		}
	}
	vals, prose := tracer(numtrace.NewIndex(sources), profile)(a.Question, values, narrative)
	var all []numtrace.Trace
	for _, v := range vals {
		all = append(all, v...)
	}
	return numtrace.NewRecord(append(all, prose...)).UntracedTexts()
}
