package pipeline

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/baseline"
	"github.com/analyst-cli/analyst/dataset"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/report"
	"github.com/analyst-cli/analyst/runrecord"
)

// runner is one run: its options, its kernel and notebook, and what the
// stages found so far.
type runner struct {
	opts    Options
	in      *dataset.Input
	ds      *dataset.Dataset
	name    string
	out     *staging
	started time.Time
	// progressMu keeps Progress called one event at a time (shared by the
	// copies of the runner that answer independent questions).
	progressMu *sync.Mutex

	k       *kernel.Kernel
	nb      *nbformat.Notebook
	profile *eda.Profile   // the main table's (a file's only one)
	loaded  *Loaded        // what the load stages found: a folder's tables
	ooc     *eda.OutOfCore // the data is read out of core
	stages  []report.StageInfo
	failure string

	modelInfo *llm.ModelInfo
	system    string
	answers   []*agent.Answer
	tokens    *atomic.Int64 // shared by the sessions of independent questions
	agent     *agent.Agent
	// session is the forked session an independent question is answered
	// in (a copy of the runner has it); nil for the run's own kernel.
	session *kernel.SessionInfo
	// sessionFiles are the files the independent questions' code wrote,
	// under NAME_files/question-N.
	sessionFiles []runrecord.CodeFile

	exploration *runrecord.Exploration

	changes    *baseline.Changes     // what changed since the baseline
	keyChanges *runrecord.KeyChanges // the model's account of them
	sketch     *baseline.SketchRef   // the sketch this run kept
}

func (r *runner) retries() int {
	if r.opts.ModelRetries == nil {
		return 0
	}
	return r.opts.ModelRetries()
}

// cellTimeout is the time a cell may take: the option, else the kernel's.
func (r *runner) cellTimeout() time.Duration {
	if r.opts.CellTimeout > 0 {
		return r.opts.CellTimeout
	}
	if t := r.opts.Kernel.Limits.CellTimeout; t > 0 {
		return t
	}
	return kernel.DefaultLimits().CellTimeout
}

// generatedCellTimeout is the time a cell of the deterministic stages may
// take: the cell timeout once per started 100 MB of data. Their time grows
// with the rows (a 1 GB CSV takes over a minute to load), and, unlike the
// model's code, they are known to end.
func (r *runner) generatedCellTimeout() time.Duration {
	const per = 100_000_000
	return r.cellTimeout() * time.Duration(1+r.in.Bytes/per)
}

func (r *runner) emit(e Event) {
	if r.opts.Progress != nil {
		e.Time = time.Now()
		r.progressMu.Lock() // independent questions run at once
		defer r.progressMu.Unlock()
		r.opts.Progress(e)
	}
}

// aroundStaging, set by tests only, runs between the data's check and the
// kernel's staging of it, and its result once the kernel has started: the
// window a folder's owner would swap a subfolder in, and put it back.
var aroundStaging func() (after func())

func (r *runner) run(ctx context.Context) error {
	r.nb = nbformat.New()
	SetProvenance(r.nb, r.opts.Versions, r.opts.ImageID)
	r.nb.SetProvenance("analyst_version", r.opts.AnalystVersion)
	r.nb.SetProvenance("data", r.notebookData())
	r.nb.AddMarkdown(r.notebookTitle(), nbformat.TagNotebookOnly)

	if len(r.opts.Questions) > 0 || r.exploring() || r.explainsChanges() {
		// Ask the model server first: a bad key or a typo fails in a second,
		// before the kernel starts.
		info, err := r.opts.ModelInfo, r.opts.ModelErr
		if info == nil && err == nil {
			info, err = r.opts.Model.Model(ctx)
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return &ModelError{err}
		}
		r.modelInfo = info
	}

	kopts := r.ds.KernelOptions(r.opts.Kernel, r.out.filesDir())
	afterStaging := func() {}
	if aroundStaging != nil {
		afterStaging = aroundStaging()
	}
	k, err := kernel.Start(ctx, kopts)
	afterStaging()
	var changed *kernel.DataChangedError
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &changed):
		return &dataset.DataError{Path: changed.Path, Msg: "the file changed between its check and the kernel's staging (" + changed.Why +
			"), so the kernel would not read the bytes run.json records; nothing was read from it. Run again once nothing changes the folder"}
	default:
		return &SandboxError{Err: err}
	}
	r.k = k
	defer k.Close()

	if ooc, outOfCore := r.outOfCore(); outOfCore {
		r.ooc = &ooc
	}
	if r.opts.Rerun != nil {
		r.ds.Main = r.opts.Rerun.Recorded().Record.Data.MainTable // the recorded code's df
	}
	loaded, err := RunLoad(r.ds, r.ooc, func(st eda.Stage) (StageResult, error) { return r.runStage(ctx, st) })
	r.loaded, r.profile = loaded, loaded.Profile
	if err != nil {
		return err
	}
	if r.opts.Rerun != nil {
		r.compareSchema()
	}
	if err := r.compareWithBaseline(ctx); err != nil {
		return err
	}
	dist := eda.Distributions(r.profile, r.opts.EDA)
	if r.ooc != nil {
		dist = eda.DistributionsOutOfCore(r.profile, r.opts.EDA)
	}
	for _, st := range []eda.Stage{dist, eda.OnSample(eda.Visualization(r.profile, r.opts.EDA), r.profile)} {
		if _, err := r.runStage(ctx, st); err != nil {
			return err
		}
	}
	if err := r.explore(ctx); err != nil {
		return err
	}
	return r.ask(ctx)
}

// runStage runs a stage's cells in order and stops at the first failure;
// its result has the profile a cell displayed, if one did.
func (r *runner) runStage(ctx context.Context, st eda.Stage) (StageResult, error) {
	sr := &StageRunner{Kernel: r.k, Notebook: r.nb, Data: r.ds.StagePath(st), CellTimeout: r.stageCellTimeout(), Progress: r.opts.Progress}
	res, err := sr.Run(ctx, st)
	if err == nil {
		// A file rewritten while the stage read it stops the run here; Run
		// compares its bytes once the kernel is gone.
		if err = r.in.Unchanged(false); err != nil {
			res.Info.Status = report.StatusError
		}
	}
	r.stages = append(r.stages, res.Info)
	var rate string
	if dataset.ReadsData(st) && res.Info.Status == report.StatusOK {
		rate = fmt.Sprintf("%.1f MB/s", mbPerS(r.ds.StageBytes(st), res.Info.Duration))
	}
	r.emit(Event{Type: EventStageEnd, Stage: st.Name, Status: string(res.Info.Status), Duration: res.Info.Duration, Message: rate})
	return res, err
}

// finish writes what the run has, whatever happened, and commits it.
func (r *runner) finish(runErr error) (*Result, error) {
	if runErr != nil {
		r.failure = agent.FailureText(runErr)
		r.emit(Event{Type: EventRunEnd, Status: string(report.StatusFailed), Message: r.failure, Duration: time.Since(r.started)})
	} else {
		r.emit(Event{Type: EventRunEnd, Status: string(report.StatusOK), Duration: time.Since(r.started)})
	}
	if r.nb == nil {
		return nil, nil
	}
	res := &Result{Name: r.name, Notebook: r.nb, Profile: r.profile, Stages: r.stages, Failure: r.failure, Answers: r.answers,
		Exploration: r.exploration, Changes: r.changes}
	if err := r.write(res); err != nil {
		return res, fmt.Errorf("writing the run's outputs: %w", err)
	}
	return res, nil
}

// mbPerS is bytes read in d, in MB (10^6 bytes) per second.
func mbPerS(bytes int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(bytes) / 1e6 / d.Seconds()
}
