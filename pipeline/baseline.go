package pipeline

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/analyst-cli/analyst/baseline"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/nbformat"
)

// Every run keeps its sketch (the profile's sketch cell) beside its other
// files, for later runs to compare with; a run with Options.Baseline
// compares its data with the baseline's sketch in the What changed stage
// (after the profile; first in the report), keeps a copy of that sketch (so
// that a replay compares with the same) and records what changed.

// compareWithBaseline runs the What changed stage when there is a baseline,
// and has the model write the key changes when it is asked to.
func (r *runner) compareWithBaseline(ctx context.Context) error {
	b := r.opts.Baseline
	if b == nil {
		return nil
	}
	if r.opts.ChangeRules.Thresholds == nil {
		r.opts.ChangeRules = eda.DefaultChangeRules()
	}
	st := eda.Changes(eda.CompareInput{Manifest: b.Manifest, Data: b.Data.Name, SHA256: b.Data.SHA256,
		Sketch: b.Sketch.JSON(), Rules: r.opts.ChangeRules})
	_, err := r.runStage(ctx, st)
	for i := range r.stages {
		if r.stages[i].Name == eda.StageChanges {
			r.stages[i].Lead = true // before the data overview in the report
		}
	}
	if err != nil {
		return err
	}
	raw, ok := cellOutput(r.nb, eda.ChangesTag, eda.MimeChanges)
	if !ok {
		return &StageError{Stage: eda.StageChanges, Err: &kernel.ExecError{Name: "NoChanges", Value: "the changes cell showed no " + eda.MimeChanges}}
	}
	changes, err := baseline.ParseChanges(raw)
	if err != nil {
		return &StageError{Stage: eda.StageChanges, Err: &kernel.ExecError{Name: "BadChanges", Value: err.Error()}}
	}
	r.changes = changes
	r.emit(Event{Type: EventNotice, Stage: eda.StageChanges, Message: fmt.Sprintf("what changed since %s: %s (%d fail, %d warn, %d info)",
		filepath.Base(b.Manifest), changes.Worst, changes.Counts[eda.LevelFail], changes.Counts[eda.LevelWarn], changes.Counts[eda.LevelInfo])})
	return r.explainChanges(ctx)
}

// cellOutput is the data of mime in the output of the last cell tagged tag.
func cellOutput(nb *nbformat.Notebook, tag, mime string) ([]byte, bool) {
	for i := len(nb.Cells) - 1; i >= 0; i-- {
		c := nb.Cells[i]
		if !c.HasTag(tag) {
			continue
		}
		for _, o := range c.Outputs {
			if raw, ok := o.Data[mime]; ok {
				return raw, true
			}
		}
		return nil, false
	}
	return nil, false
}

// keepSketches writes the run's sketch, and the baseline's it was compared
// with, into NAME_files (before the files are listed with their sha256).
// A run that did not get as far as the sketch keeps none.
func (r *runner) keepSketches() error {
	if raw, ok := cellOutput(r.nb, eda.SketchTag, eda.MimeSketch); ok {
		s, err := baseline.ParseSketch(raw)
		if err != nil {
			// Not worth losing the run's other outputs over: said, and left out.
			r.emit(Event{Type: EventNotice, Stage: eda.StageProfile, Message: "the run's sketch is not kept, so no later run can compare with this one: " + err.Error()})
		} else {
			if err := os.WriteFile(filepath.Join(r.out.filesDir(), baseline.SketchFile), s.JSON(), 0o644); err != nil {
				return err
			}
			r.sketch = &baseline.SketchRef{File: path.Join(r.name+"_files", baseline.SketchFile), Version: s.Version}
		}
	}
	if b := r.opts.Baseline; b != nil {
		if err := os.WriteFile(filepath.Join(r.out.filesDir(), baseline.BaselineFile), b.Sketch.JSON(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// baselineRecord is run.json's "baseline".
func (r *runner) baselineRecord() *baseline.Record {
	b := r.opts.Baseline
	if b == nil {
		return nil
	}
	return &baseline.Record{Manifest: b.Manifest, Data: b.Data, File: path.Join(r.name+"_files", baseline.BaselineFile),
		Rules: &r.opts.ChangeRules, Changes: r.changes, Explained: r.keyChanges != nil}
}
