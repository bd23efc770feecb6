package pipeline

import (
	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/runrecord"
)

// cellDigests is what run.json records for `analyst verify` beside the
// files (staging.written): a digest of each cell of nb, the notebook as
// written and read back, the way verify reads it.
func cellDigests(nb *nbformat.Notebook) []runrecord.Cell {
	cells := make([]runrecord.Cell, 0, len(nb.Cells))
	for _, c := range nb.Cells {
		cells = append(cells, runrecord.Cell{ID: c.ID, SHA256: nbformat.CellDigest(c)})
	}
	return cells
}

// modelCallTimes are the times of the answers' model calls, in order.
func modelCallTimes(answers []*agent.Answer) []runrecord.ModelCallTime {
	var out []runrecord.ModelCallTime
	for _, a := range answers {
		for _, c := range a.Calls {
			out = append(out, runrecord.ModelCallTime{Phase: c.Phase, Turn: c.Turn, DurationMS: c.DurationMS, OverheadMS: c.OverheadMS})
		}
	}
	return out
}
