package evals

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/report"
)

// ReferenceModel is the model name of the oracle: each case's reference
// code in place of a model.
const ReferenceModel = "reference"

// StageReference is the stage of a case's notebook that runs the reference
// code.
const StageReference = "reference"

// ReferenceSolver answers each case by running its reference code in a
// fresh kernel after the same setup and load the agent gets; what the code
// prints is the response. It is the gold-vs-gold self check of a suite.
type ReferenceSolver struct {
	Kernel      kernel.Options
	CellTimeout time.Duration
	TempDir     string
}

// Model implements Solver.
func (s *ReferenceSolver) Model() Model { return Model{Spec: ReferenceModel} }

// Solve implements Solver.
func (s *ReferenceSolver) Solve(ctx context.Context, c Case) (*Attempt, error) {
	a := &Attempt{Record: newCaseRecord(c)}
	if c.Reference == "" {
		return a, &SolveError{ClassNoAnswer, errors.New("the case has no reference code")}
	}
	cd, err := startCase(ctx, caseKernel{opts: s.Kernel, cellTimeout: s.CellTimeout, tempDir: s.TempDir, noProfile: true}, c, a)
	if err != nil {
		return a, err
	}
	defer cd.done()
	ex, err := cd.k.Execute(ctx, c.Reference, kernel.ExecOptions{Timeout: s.CellTimeout})
	if ex == nil {
		return a, classify(ctx, err)
	}
	a.KernelMS += ms(ex.Duration)
	a.Record.Notebook.AddCode(c.Reference, nbformat.CopyOutputs(ex.Outputs), ex.ExecutionCount, nbformat.StageTag(StageReference))
	a.Record.Stages = append(a.Record.Stages, report.StageInfo{Name: StageReference, Title: "Reference code", Status: report.StageStatus(ex.Status), Lead: true})
	a.Response = ex.Stdout()
	st := TraceStep{Status: string(ex.Status)}
	if ex.Error != nil {
		st.ErrorName, st.ErrorMsg = ex.Error.Name, ex.Error.Value
	}
	a.Steps = append(a.Steps, st)
	for _, ch := range ex.Charts() {
		a.Charts = append(a.Charts, ch.Description)
	}
	if err != nil {
		return a, classify(ctx, err)
	}
	if ex.Status != kernel.StatusOK {
		return a, &SolveError{ClassSandboxError, fmt.Errorf("the reference code failed: %s: %s", st.ErrorName, st.ErrorMsg)}
	}
	return a, nil
}
