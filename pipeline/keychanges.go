package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/numtrace"
	"github.com/analyst-cli/analyst/report"
	"github.com/analyst-cli/analyst/runrecord"
)

// PhaseKeyChanges is the model call that writes the key changes.
const PhaseKeyChanges = "key-changes"

// explainsChanges says whether the model writes the key changes: asked to,
// with a model and a baseline.
func (r *runner) explainsChanges() bool {
	return r.opts.ExplainChanges && r.opts.Baseline != nil && r.opts.Model != nil
}

// explainChanges has the model read the changes (never the rows) and write
// the key changes, shown at the top of the What changed stage.
func (r *runner) explainChanges(ctx context.Context) error {
	if !r.explainsChanges() || r.changes == nil {
		return nil
	}
	var lines []string
	for _, c := range r.changes.Changes {
		col := "(table)"
		if c.Column != nil {
			col = *c.Column
		}
		lines = append(lines, fmt.Sprintf("%s %s %s: %s", c.Level, c.Check, col, c.Text))
	}
	b := r.opts.Baseline
	kc, err := r.newAgent().ExplainChanges(ctx, PhaseKeyChanges, fmt.Sprintf("%s (data %s)", filepath.Base(b.Manifest), b.Data.Name), r.in.Name, lines)
	r.keyChanges = &runrecord.KeyChanges{KeyChanges: kc}
	cell := r.nb.AddMarkdown(keyChangesMarkdown(r.opts.ModelSpec, kc), nbformat.StageTag(eda.StageChanges), nbformat.TagModel, PhaseKeyChanges)
	r.keyChanges.Cell = cell.ID
	// Under the stage's heading: the report opens with it.
	r.nb.Cells = r.nb.Cells[:len(r.nb.Cells)-1]
	at := slices.IndexFunc(r.nb.Cells, func(c *nbformat.Cell) bool { return c.HasTag(nbformat.StageTag(eda.StageChanges)) }) + 1
	r.nb.Cells = slices.Insert(r.nb.Cells, at, cell)
	var le *llm.Error
	if err != nil && !ctxErr(err) && asLLM(err, &le) {
		return &ModelError{err}
	}
	return err
}

// keyChangesIntro opens the key changes cell; the text follows it.
func keyChangesIntro(model string) string {
	return fmt.Sprintf("**Key changes**, as the model `%s` read the changes listed below (it was given those lines, never "+
		"the rows); each number it states is traced to the cell whose output shows it, or marked untraced.\n\n", mdEscape(model))
}

func keyChangesMarkdown(model string, kc *agent.KeyChanges) string {
	if kc.Text == "" {
		return "**Key changes:** none; " + mdEscape(kc.Note) + "."
	}
	return keyChangesIntro(model) + kc.Text
}

// keyChangesMarks traces the key changes' numbers (recorded for run.json)
// and marks them in their cell.
func keyChangesMarks(kc *runrecord.KeyChanges, nb *nbformat.Notebook, trace traceFunc) map[string][]report.NumberMark {
	if kc == nil || kc.Text == "" || trace == nil {
		return nil
	}
	_, prose := trace("", nil, kc.Text)
	kc.Numbers = numtrace.NewRecord(prose)
	src, ok := cellSource(nb, kc.Cell)
	if !ok || !strings.HasSuffix(src, kc.Text) {
		return nil
	}
	return map[string][]report.NumberMark{kc.Cell: numberMarks(len(src)-len(kc.Text), prose)}
}

// keyChangesCalls are the model calls of the key changes.
func (r *runner) keyChangesCalls() []agent.ModelCall {
	if r.keyChanges == nil {
		return nil
	}
	return r.keyChanges.Calls
}
