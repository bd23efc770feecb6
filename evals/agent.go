package evals

import (
	"context"
	"errors"
	"fmt"
	"github.com/analyst-cli/analyst/agent"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/pipeline"
	"github.com/analyst-cli/analyst/report"
)

// AgentSolver answers a case with the agent of `analyst run`, in a fresh
// kernel per case that runs only what the agent needs first: setup, load
// and the profile the system prompt is made from.
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

// Model implements Solver.
func (s *AgentSolver) Model() Model { return Model{Spec: s.Spec, Digest: s.Info.Digest} }

// Solve implements Solver.
func (s *AgentSolver) Solve(ctx context.Context, c Case) (*Attempt, error) {
	a := &Attempt{Record: newCaseRecord(c)}
	a.Record.Versions = s.Versions
	k, profile, done, err := startCase(ctx, caseKernel{opts: s.Kernel, cellTimeout: s.CellTimeout, tempDir: s.TempDir}, c, a)
	if err != nil {
		return a, err
	}
	defer done()
	a.Record.Profile = profile
	name := filepath.Base(c.Dataset)
	maxTurns := s.MaxTurns
	if maxTurns <= 0 {
		maxTurns = agent.DefaultMaxTurns
	}
	// The same prompt and agent as analyst run: the budgets are stated and a
	// KeyError names the closest real columns.
	ag := &agent.Agent{
		Client: s.Client, Info: s.Info, Kernel: k, CellTimeout: s.CellTimeout, MaxTurns: s.MaxTurns, Seed: s.Seed + c.Repeat,
		Columns: profile.ColumnNames(),
		System: agent.SystemPrompt(agent.PromptInput{DataName: name, Profile: profile, Versions: s.Versions,
			Tools: s.Info.Capabilities.Tools, Vision: s.Info.Capabilities.Vision,
			MaxTurns: maxTurns, MaxRepairs: agent.DefaultMaxRepairs, CellTimeout: s.CellTimeout}),
	}
	defer func() { a.Record.Model = s.reportModel(ag, a, maxTurns, c.Repeat) }()
	var texts []string
	for i, q := range append([]string{c.Prompt}, c.FollowUps...) {
		phase := pipeline.StageQuestion(i + 1)
		ans, err := ag.Ask(ctx, phase, q)
		reflected, before := false, 0
		if ans != nil && ans.Answered && s.ReflectRounds > 0 && err == nil {
			reflected, before = true, len(ans.Verdicts)
			err = ag.Reflect(ctx, pipeline.StageReflection(i+1), ans, s.ReflectRounds)
		}
		if ans != nil {
			a.Record.addQuestion(i+1, q, ans, reflected, before, questionStatus(ans, err))
			a.add(ans)
			if ans.Answered {
				texts = append(texts, answerText(ans))
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

// questionStatus is a question stage's status in the case report.
func questionStatus(a *agent.Answer, err error) string {
	switch {
	case err != nil:
		return "error"
	case !a.Answered:
		return "no-answer"
	}
	return "ok"
}

// reportModel is the model as the case report's header shows it.
func (s *AgentSolver) reportModel(ag *agent.Agent, a *Attempt, maxTurns, repeat int) *report.ModelInfo {
	set := func(k string, v any) report.Setting { return report.Setting{Name: k, Value: fmt.Sprint(v)} }
	m := &report.ModelInfo{Name: s.Spec, Digest: s.Info.Digest, Mode: ag.Mode(), PromptTokens: a.PromptTokens, CompletionTokens: a.CompletionTokens,
		Settings: []report.Setting{set("Seed", s.Seed+repeat), set("Max turns", maxTurns), set("Reflection rounds", s.ReflectRounds)}}
	for _, ans := range a.Record.Answers {
		m.Calls += len(ans.Calls)
	}
	return m
}

// caseKernel is how a case's kernel is started.
type caseKernel struct {
	opts        kernel.Options
	cellTimeout time.Duration
	tempDir     string
	noProfile   bool // setup and load only: the oracle needs no prompt
}

// startCase starts a fresh kernel on the case's data and runs the setup,
// load and profile stages; done closes it and removes its output folder.
func startCase(ctx context.Context, ck caseKernel, c Case, a *Attempt) (*kernel.Kernel, *eda.Profile, func(), error) {
	out, err := os.MkdirTemp(ck.tempDir, "analyst-eval-")
	if err != nil {
		return nil, nil, nil, &SolveError{ClassSandboxError, err}
	}
	kopts := ck.opts
	kopts.Data, kopts.OutputDir = c.Dataset, out
	k, err := kernel.Start(ctx, kopts)
	if err != nil {
		os.RemoveAll(out)
		if ctx.Err() != nil {
			return nil, nil, nil, ctx.Err()
		}
		return nil, nil, nil, &SolveError{ClassSandboxError, fmt.Errorf("starting the kernel: %w", err)}
	}
	done := func() { k.Close(); os.RemoveAll(out) }
	profile, err := prepare(ctx, k, ck, c, a)
	if err != nil {
		done()
		return nil, nil, nil, err
	}
	return k, profile, done, nil
}

// prepare runs the setup, load and profile stages, recording their cells,
// and returns the profile.
func prepare(ctx context.Context, k *kernel.Kernel, ck caseKernel, c Case, a *Attempt) (*eda.Profile, error) {
	dataPath := kernel.DataMount + "/" + filepath.Base(c.Dataset)
	var profile *eda.Profile
	stages := []eda.Stage{eda.Setup(), eda.Load(dataPath), eda.ProfileStage()}
	if ck.noProfile {
		stages = stages[:2]
	}
	for _, st := range stages {
		p, err := runStage(ctx, k, ck, st, a)
		status := "ok"
		if err != nil {
			status = "error"
		}
		a.Record.addStage(st, status)
		if err != nil {
			return nil, err
		}
		if p != nil {
			profile = p
		}
	}
	if profile == nil && !ck.noProfile {
		return nil, &SolveError{ClassSandboxError, errors.New("the profile stage produced no profile")}
	}
	return profile, nil
}

// runStage runs a stage's cells into the case's notebook, stopping at the
// first that fails; it returns the profile if one was displayed.
func runStage(ctx context.Context, k *kernel.Kernel, ck caseKernel, st eda.Stage, a *Attempt) (*eda.Profile, error) {
	var profile *eda.Profile
	nb := a.Record.Notebook
	nb.AddMarkdown("## "+st.Title, nbformat.StageTag(st.Name), nbformat.TagNotebookOnly)
	for _, cell := range st.Cells {
		tags := append([]string{nbformat.StageTag(st.Name)}, cell.Tags...)
		if cell.Markdown {
			nb.AddMarkdown(cell.Source, tags...)
			continue
		}
		ex, err := k.Execute(ctx, cell.Source, kernel.ExecOptions{Timeout: ck.cellTimeout})
		if ex != nil {
			a.KernelMS += ms(ex.Duration)
			nb.AddCode(cell.Source, nbformat.CopyOutputs(ex.Outputs), ex.ExecutionCount, tags...)
		}
		if err != nil || ex == nil {
			return nil, classify(ctx, fmt.Errorf("stage %s: %w", st.Name, err))
		}
		if ex.Status != kernel.StatusOK {
			what := ex.Cause
			if ex.Error != nil {
				what = ex.Error.Name + ": " + ex.Error.Value
			}
			return nil, &SolveError{ClassSandboxError, fmt.Errorf("stage %s failed before the model was asked: %s", st.Name, what)}
		}
		for _, o := range ex.Outputs {
			if p, ok, err := eda.ProfileFromData(o.Data); ok && err == nil {
				profile = p
			}
		}
	}
	return profile, nil
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
