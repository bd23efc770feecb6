package pipeline

import (
	"context"
	"time"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/report"
)

// StageRunner runs generated stages in a kernel into a notebook: the one
// place their cells are executed, written as cells and their failures
// classified, for analyst run and each analyst eval case alike.
type StageRunner struct {
	Kernel   *kernel.Kernel
	Notebook *nbformat.Notebook
	// Data is the dataset as the user named it: a loader's refusal is a
	// *DataError about it.
	Data string
	// CellTimeout is what one cell may take; zero: the kernel's default.
	CellTimeout time.Duration
	// Progress, if set, is told of each stage, cell and long cell's progress.
	Progress func(Event)
}

// StageResult is what a stage did: its report entry (status, time), the
// profile if one of its cells displayed one, and the time its cells took
// in the kernel.
type StageResult struct {
	Info    report.StageInfo
	Profile *eda.Profile
	// Relationships is what the relationships stage displayed; nil for
	// the other stages.
	Relationships *eda.RelationshipProfile
	// Tables are the profiles of a stage of many tables
	// (eda.OtherTables), each cell's by the table it names.
	Tables []LoadedTable
	Kernel time.Duration
}

// Run runs st's cells in order and stops at the first failure: a
// *SandboxError (the kernel cannot run cells, or died), a *DataError (the
// loader refused the data), a *StageError, or the context's error. The
// result is filled in also when it fails.
func (s *StageRunner) Run(ctx context.Context, st eda.Stage) (StageResult, error) {
	start := time.Now()
	res := StageResult{Info: report.StageInfo{Name: st.Name, Title: st.Title, Status: report.StatusOK}}
	s.emit(Event{Type: EventStageStart, Stage: st.Name, Message: st.Title})
	stageTag := nbformat.StageTag(st.Name)
	s.Notebook.AddMarkdown("## "+st.Title, stageTag, nbformat.TagNotebookOnly)
	err := s.cells(ctx, st, stageTag, &res)
	res.Info.Duration = time.Since(start)
	return res, err
}

func (s *StageRunner) cells(ctx context.Context, st eda.Stage, stageTag string, res *StageResult) error {
	for i, c := range st.Cells {
		tags := append([]string{stageTag}, c.Tags...)
		if c.Markdown {
			s.Notebook.AddMarkdown(c.Source, tags...)
			continue
		}
		if err := s.cell(ctx, st.Name, i+1, c, tags, res); err != nil {
			return err
		}
	}
	return nil
}

// cell runs the n-th cell of stage and writes it into the notebook, its
// code folded when it is plumbing (so that Jupyter opens on results).
func (s *StageRunner) cell(ctx context.Context, stage string, n int, c eda.Cell, tags []string, res *StageResult) error {
	source := c.Code()
	ex, err := s.Kernel.Execute(ctx, source, kernel.ExecOptions{Timeout: s.CellTimeout, Progress: func(p kernel.Progress) {
		s.emit(Event{Type: EventProgress, Stage: stage, Cell: n, Message: p.Message, Done: p.Done, Total: p.Total, Unit: p.Unit})
	}})
	if ex == nil {
		// The kernel cannot run cells any more.
		res.Info.Status = report.StatusError
		s.Notebook.AddCode(source, nil, 0, append(tags, nbformat.TagNotRun)...).Metadata.SourceHidden = c.Summary != ""
		return &SandboxError{Err: err}
	}
	res.Kernel += ex.Duration
	cell := ex.AddToNotebook(s.Notebook, tags...)
	cell.Metadata.SourceHidden = c.Summary != ""
	s.emit(Event{Type: EventCell, Stage: stage, Cell: n, Status: string(ex.Status), Duration: ex.Duration})
	switch {
	case err != nil: // ctx ended mid-cell
		res.Info.Status = report.StatusInterrupted
		cell.AddTags(nbformat.TagInterrupted)
		return err
	case ex.Status != kernel.StatusOK:
		res.Info.Status = report.StatusError
		cell.AddTags(nbformat.TagError)
		return cellError(stage, s.Data, ex)
	case cell.HasTag(eda.ProfileTag):
		p, err := profileOf(ex)
		if err != nil {
			res.Info.Status = report.StatusError
			return err
		}
		if c.Table != "" {
			res.Tables = append(res.Tables, LoadedTable{Name: c.Table, Profile: p})
		} else {
			res.Profile = p
		}
	case cell.HasTag(eda.RelationshipsTag):
		p, err := relationshipsOf(ex)
		if err != nil {
			res.Info.Status = report.StatusError
			return err
		}
		res.Relationships = p
	}
	return nil
}

func (s *StageRunner) emit(e Event) {
	if s.Progress != nil {
		e.Time = time.Now()
		s.Progress(e)
	}
}

// profileOf reads the profile a profile cell displayed.
func profileOf(ex *kernel.Execution) (*eda.Profile, error) {
	for _, o := range ex.Outputs {
		if p, ok, err := eda.ProfileFromData(o.Data); ok {
			if err != nil {
				return nil, &StageError{Stage: eda.StageProfile, Err: &kernel.ExecError{Name: "BadProfile", Value: err.Error()}}
			}
			return p, nil
		}
	}
	return nil, &StageError{Stage: eda.StageProfile, Err: &kernel.ExecError{Name: "NoProfile", Value: "the profile cell displayed no " + nbformat.MimeProfile}}
}

// relationshipsOf reads the relationships the relationships cell
// displayed.
func relationshipsOf(ex *kernel.Execution) (*eda.RelationshipProfile, error) {
	for _, o := range ex.Outputs {
		if p, ok, err := eda.RelationshipsFromData(o.Data); ok {
			if err != nil {
				return nil, &StageError{Stage: eda.StageRelationships, Err: &kernel.ExecError{Name: "BadRelationships", Value: err.Error()}}
			}
			return p, nil
		}
	}
	return nil, &StageError{Stage: eda.StageRelationships, Err: &kernel.ExecError{Name: "NoRelationships",
		Value: "the relationships cell displayed no " + nbformat.MimeRelationships}}
}
