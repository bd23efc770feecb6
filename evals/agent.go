package evals

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/dataset"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/pipeline"
	"github.com/analyst-cli/analyst/report"
)

// AgentSolver answers a case with the agent of `analyst run`, in a session
// forked from a kernel that ran only what the agent needs first (setup,
// load and the profile the system prompt is made from), or with NoFork in a
// fresh kernel per case that runs them.
type AgentSolver struct {
	Client llm.Client
	Info   *llm.ModelInfo
	Spec   string // the model as the user named it
	Kernel kernel.Options
	// Versions are the image's python and library versions (for the prompt).
	Versions      map[string]string
	CellTimeout   time.Duration
	MaxTurns      int
	ReflectRounds int // 0: none
	Seed          int
	// TempDir holds each case's kernel output folder; "": the system's.
	TempDir string
	// NoFork starts a kernel for each case; else the cases over a dataset
	// share a loaded parent kernel and each runs in a session forked from it
	// (fork.go).
	NoFork  bool
	parents parentPool
	roots   rootPool
}

// NewAgentSolver asks the model server about the model (digest,
// capabilities) once, so a bad model name fails before any kernel starts.
func NewAgentSolver(ctx context.Context, client llm.Client, spec string) (*AgentSolver, error) {
	info, err := client.Model(ctx)
	if err != nil {
		return nil, &SolveError{ClassModelError, err}
	}
	return &AgentSolver{Client: client, Info: info, Spec: spec, Seed: agent.DefaultSeed}, nil
}

// boundsPhases: Solve bounds loading and the session each by the case's
// timeout, not the wait for a parent another case starts (clock.go).
func (*AgentSolver) boundsPhases() {}

// Model implements Solver.
func (s *AgentSolver) Model() Model { return Model{Spec: s.Spec, Digest: s.Info.Digest} }

// Solve implements Solver.
func (s *AgentSolver) Solve(ctx context.Context, c Case) (*Attempt, error) {
	a := &Attempt{Record: newCaseRecord(c)}
	a.Record.Versions = s.Versions
	ck := caseKernel{opts: s.Kernel, cellTimeout: s.CellTimeout, tempDir: s.TempDir}
	var cd *caseData
	var err error
	if s.NoFork {
		lctx, cancel := phase(ctx)
		cd, err = startCase(lctx, ck, c, a)
		cancel()
	} else {
		cd, err = s.forkCase(ctx, ck, c, a)
	}
	if err != nil {
		return a, err
	}
	defer cd.done()
	ctx, cancel := phase(ctx) // the case's session: fork (forkCase) before it
	defer cancel()
	a.Record.Profile = cd.loaded.Profile
	// The agent and question stage of analyst run: the same prompt, budgets,
	// push-back on untraced numbers and cells; a folder's tables and
	// documents are told as analyst run tells them.
	ag := pipeline.NewAgent(agent.Setup{Client: s.Client, Info: s.Info, Kernel: cd.k, DataName: filepath.Base(c.Dataset),
		Profile: cd.loaded.Profile, Folder: pipeline.AgentFolder(cd.ds, cd.loaded), Versions: s.Versions, MaxTurns: s.MaxTurns,
		CellTimeout: s.CellTimeout, Seed: s.Seed + c.Repeat}, a.Record.Notebook)
	defer func() {
		a.Record.Model = s.reportModel(ag, a, c.Repeat)
		if c.DABstepID != "" {
			a.Trace = reasoningTrace(a.Record.Answers)
		}
	}()
	qs := a.Record.questionStage(ag, s.ReflectRounds)
	var texts []string
	for i, q := range append([]string{c.Prompt}, c.FollowUps...) {
		ans, err := qs.Ask(ctx, i+1, q)
		if ans != nil {
			a.Record.Questions = append(a.Record.Questions, q)
			a.Record.Answers = append(a.Record.Answers, ans)
			a.add(ans)
			if ans.Answered {
				texts = append(texts, answerText(ans))
				a.Values = ans.Values
			} else {
				a.Stop = ans.Stop
			}
		}
		if err != nil {
			return a, classify(ctx, err)
		}
	}
	a.Response = strings.Join(texts, "\n\n")
	return a, nil
}

// reportModel is the model as the case report's header shows it, as
// analyst run's report shows a run's.
func (s *AgentSolver) reportModel(ag *agent.Agent, a *Attempt, repeat int) *report.ModelInfo {
	cellTimeout := s.CellTimeout
	if cellTimeout <= 0 {
		cellTimeout = kernel.DefaultLimits().CellTimeout
	}
	m := pipeline.NewManifestModel(s.Spec, s.Info, ag, s.Seed+repeat, s.ReflectRounds, cellTimeout)
	m.PromptTokens, m.CompletionTokens = a.PromptTokens, a.CompletionTokens
	for _, ans := range a.Record.Answers {
		m.Calls += len(ans.Calls)
	}
	return m.Report()
}

// caseKernel is how a case's kernel is started.
type caseKernel struct {
	opts        kernel.Options
	cellTimeout time.Duration
	tempDir     string
	noProfile   bool // setup and load only: the oracle needs no prompt
	setupDone   bool // the kernel ran setup already (a root kernel)
}

// caseData is a case's kernel with its data loaded: the dataset, what its
// load stages found; done closes the kernel and removes its output folder
// and anything made for the data.
type caseData struct {
	k      *kernel.Kernel
	ds     *dataset.Dataset
	loaded *pipeline.Loaded
	done   func()
}

// caseTempPrefix names the temporary folders of a case's or a parent's
// kernel output.
const caseTempPrefix = "analyst-eval-"

// startCase starts a fresh kernel on the case's data (a file or a folder)
// and runs the setup, load and profile stages, as analyst run does.
func startCase(ctx context.Context, ck caseKernel, c Case, a *Attempt) (*caseData, error) {
	ds, err := openCaseData(c.Dataset)
	if err != nil {
		return nil, err
	}
	out, err := os.MkdirTemp(ck.tempDir, caseTempPrefix)
	if err != nil {
		ds.Close()
		return nil, &SolveError{ClassSandboxError, err}
	}
	k, err := kernel.Start(ctx, ds.KernelOptions(ck.opts, out))
	if err != nil {
		ds.Close()
		os.RemoveAll(out)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &SolveError{ClassSandboxError, fmt.Errorf("starting the kernel: %w", err)}
	}
	cd := &caseData{k: k, ds: ds, done: func() { k.Close(); os.RemoveAll(out); ds.Close() }}
	if cd.loaded, err = prepare(ctx, k, ds, ck, a); err != nil {
		cd.done()
		return nil, err
	}
	return cd, nil
}

// openCaseData checks the case's dataset, a file or a folder, and makes it
// ready for a kernel (Parquet converted, as analyst run does).
func openCaseData(path string) (*dataset.Dataset, error) {
	in, err := dataset.Check(path, false)
	if err == nil {
		var ds *dataset.Dataset
		if ds, err = dataset.Open(in, "", "", eda.LoadOptions{}); err == nil {
			return ds, nil
		}
	}
	return nil, &SolveError{ClassSandboxError, fmt.Errorf("the case's data: %w", err)}
}

// prepare runs the setup, load and profile stages with the pipeline's own
// stage runner, recording their cells, and returns what they found; the
// profile without its sketch (eda.WithoutSketch). Without
// the profile (noProfile), a file's are setup and load only; a folder's
// tables are profiled all the same (the main table is chosen by rows).
func prepare(ctx context.Context, k *kernel.Kernel, ds *dataset.Dataset, ck caseKernel, a *Attempt) (*pipeline.Loaded, error) {
	run := func(st eda.Stage) (pipeline.StageResult, error) {
		st = eda.WithoutSketch(st) // it feeds only a run's --baseline and report
		if ck.setupDone && st.Name == eda.StageSetup {
			return pipeline.StageResult{Info: report.StageInfo{Name: st.Name, Title: st.Title, Status: report.StatusOK}}, nil
		}
		sr := &pipeline.StageRunner{Kernel: k, Notebook: a.Record.Notebook, Data: ds.StagePath(st), CellTimeout: ck.cellTimeout}
		res, err := sr.Run(ctx, st)
		a.KernelMS += ms(res.Kernel)
		a.Record.addStage(st, res.Info.Status)
		if err != nil {
			return res, stageError(ctx, st.Name, err)
		}
		return res, nil
	}
	if ck.noProfile && !ds.IsFolder() {
		for _, st := range ds.LoadStages(nil)[:2] {
			if _, err := run(st); err != nil {
				return nil, err
			}
		}
		return &pipeline.Loaded{}, nil
	}
	loaded, err := pipeline.RunLoad(ds, nil, run)
	var se *SolveError
	if err != nil && !errors.As(err, &se) { // a profile that did not come
		err = stageError(ctx, eda.StageProfile, err)
	}
	return loaded, err
}

// stageError is a stage that failed before the model was asked: a sandbox
// error of the case, unless ctx ended.
func stageError(ctx context.Context, stage string, err error) error {
	var se *pipeline.StageError
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &se):
		return &SolveError{ClassSandboxError, fmt.Errorf("stage %s failed before the model was asked: %s: %s", stage, se.Err.Name, se.Err.Value)}
	}
	return classify(ctx, fmt.Errorf("stage %s failed before the model was asked: %w", stage, err))
}

// answerText is an answer as a DABench response: its named values, then
// the narrative.
func answerText(ans *agent.Answer) string {
	t := agent.FormatAnswers(ans.Values)
	if ans.Summary != "" {
		t += "\n" + ans.Summary
	}
	return t
}

// add takes the trace, charts, tokens and times of an answer.
func (a *Attempt) add(ans *agent.Answer) {
	for _, c := range ans.Calls {
		a.PromptTokens += c.PromptTokens
		a.CompletionTokens += c.CompletionTokens
		a.ModelMS += c.DurationMS
	}
	for _, st := range ans.Steps {
		ts := TraceStep{Status: st.Status}
		if st.Exec != nil {
			a.KernelMS += ms(st.Exec.Duration)
			if st.Exec.Error != nil {
				ts.ErrorName, ts.ErrorMsg = st.Exec.Error.Name, st.Exec.Error.Value
			}
			for _, ch := range st.Exec.Charts() {
				a.Charts = append(a.Charts, ch.Description)
			}
		}
		a.Steps = append(a.Steps, ts)
	}
}

// classify turns an agent error into a SolveError with its class.
func classify(ctx context.Context, err error) error {
	var le *llm.Error
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &le):
		return &SolveError{ClassModelError, err}
	case errors.Is(err, context.DeadlineExceeded):
		return &SolveError{ClassTimeout, err}
	}
	return &SolveError{ClassSandboxError, err}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
