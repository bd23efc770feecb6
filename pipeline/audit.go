package pipeline

import (
	"time"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/nbformat"
)

// ManifestCell identifies one notebook cell for `analyst verify`, which
// names a cell that was edited, removed or added since the run.
type ManifestCell struct {
	ID     string `json:"id"`
	SHA256 string `json:"sha256"` // nbformat.CellDigest
}

// cellDigests is what run.json records for `analyst verify` beside the
// files (staging.written): a digest of each cell of nb, the notebook as
// written and read back, the way verify reads it.
func cellDigests(nb *nbformat.Notebook) []ManifestCell {
	cells := make([]ManifestCell, 0, len(nb.Cells))
	for _, c := range nb.Cells {
		cells = append(cells, ManifestCell{ID: c.ID, SHA256: nbformat.CellDigest(c)})
	}
	return cells
}

// ManifestOccasion is what is about the occasion of a run, not its
// content: two runs of the same data differ in run.json only here.
type ManifestOccasion struct {
	Started    time.Time          `json:"started"`
	DurationMS float64            `json:"duration_ms"`
	StagesMS   map[string]float64 `json:"stages_ms"`
	// LoadMBPerS is the data file's size (in MB, 10^6 bytes) over the
	// load stage's time; absent when the load did not finish.
	LoadMBPerS *float64 `json:"load_mb_per_s,omitempty"`
	// ModelCalls are the times of each model call, in the order of
	// questions[].calls, named by phase and turn as those are.
	ModelCalls []ModelCallTime `json:"model_calls,omitempty"`
}

// ModelCallTime is the time one model call took (agent.ModelCall's
// DurationMS and OverheadMS).
type ModelCallTime struct {
	Phase      string  `json:"phase"`
	Turn       int     `json:"turn"`
	DurationMS float64 `json:"duration_ms"`
	OverheadMS float64 `json:"overhead_ms"`
}

// modelCallTimes are the times of the answers' model calls, in order.
func modelCallTimes(answers []*agent.Answer) []ModelCallTime {
	var out []ModelCallTime
	for _, a := range answers {
		for _, c := range a.Calls {
			out = append(out, ModelCallTime{Phase: c.Phase, Turn: c.Turn, DurationMS: c.DurationMS, OverheadMS: c.OverheadMS})
		}
	}
	return out
}

// recordedReplies is what a recording model client (audit.Recorder)
// recorded, or nil.
func recordedReplies(c any) any {
	if r, ok := c.(interface{ Recording() any }); ok {
		return r.Recording()
	}
	return nil
}
