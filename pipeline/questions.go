package pipeline

import (
	"context"
	"errors"
	"fmt"
	"github.com/analyst-cli/analyst/agent"
	"strings"
	"time"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/report"
)

// Stage names of the model stages: StageQuestion(i) then StageReflection(i)
// for the i-th question (1-based).
func StageQuestion(i int) string   { return fmt.Sprintf("question-%d", i) }
func StageReflection(i int) string { return fmt.Sprintf("reflection-%d", i) }

// ManifestModel is the model of a run and what it cost.
type ManifestModel struct {
	Spec     string `json:"spec"`
	Provider string `json:"provider"`
	Name     string `json:"name"`
	Digest   string `json:"digest,omitempty"`
	Tools    bool   `json:"tools"`
	Vision   bool   `json:"vision"`
	Mode     string `json:"mode"` // tools or code-blocks
	// ToolsRefused is the server's refusal of tool calling that switched
	// the run to code-block mode ("" if none).
	ToolsRefused     string  `json:"tools_refused,omitempty"`
	ContextLength    int     `json:"context_length,omitempty"` // the model's window, as the server said`
	Temperature      float64 `json:"temperature"`
	Seed             int     `json:"seed"`
	MaxTurns         int     `json:"max_turns"`
	MaxRepairs       int     `json:"max_repairs"`
	ReflectRounds    int     `json:"reflect_rounds"`
	SystemPrompt     string  `json:"system_prompt"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	Calls            int     `json:"calls"`
	Turns            int     `json:"turns"`
	Repairs          int     `json:"repairs"`
	// Retries counts model requests made again after a failure (429, 5xx,
	// dropped connections), when the client reports them.
	Retries int `json:"retries"`
	// Truncations counts replies cut off by the token limit.
	Truncations int `json:"truncations,omitempty"`
	// Unanswered counts the questions that got no answer.
	Unanswered int `json:"unanswered"`
}

func (r *runner) reflectRounds() int {
	if r.opts.ReflectRounds == nil {
		return agent.DefaultReflectRounds
	}
	return max(0, *r.opts.ReflectRounds)
}

func (r *runner) seed() int {
	if r.opts.Seed == 0 {
		return agent.DefaultSeed
	}
	return r.opts.Seed
}

// ask runs the model stages: per question, the visualization loop, then
// reflection on its charts.
func (r *runner) ask(ctx context.Context) error {
	if len(r.opts.Questions) == 0 {
		return nil
	}
	ag := &agent.Agent{
		Client: r.opts.Model, Info: r.modelInfo, Kernel: r.k, Columns: r.profile.ColumnNames(),
		MaxTurns: r.opts.MaxTurns, MaxRepairs: r.opts.MaxRepairs, CellTimeout: r.opts.CellTimeout, Seed: r.seed(),
		OnTurn: func(e agent.TurnEvent) {
			if e.Notice != "" {
				r.emit(Event{Type: EventNotice, Stage: e.Phase, Message: e.Notice})
				return
			}
			if e.Cell {
				r.emit(Event{Type: EventCell, Stage: e.Phase, Turn: e.Turn, Status: e.Status})
				return
			}
			r.tokens += e.Tokens
			r.emit(Event{Type: EventModelTurn, Stage: e.Phase, Turn: e.Turn, Tokens: r.tokens, Retries: r.retries()})
		},
	}
	turns, repairs := ag.Budgets()
	r.system = agent.SystemPrompt(agent.PromptInput{DataName: r.in.Name, Profile: r.profile, Versions: r.opts.Versions,
		Tools: r.modelInfo.Capabilities.Tools, Vision: r.modelInfo.Capabilities.Vision,
		MaxTurns: turns, MaxRepairs: repairs, CellTimeout: r.cellTimeout()})
	ag.System = r.system
	r.agent = ag
	for i, q := range r.opts.Questions {
		phase := StageQuestion(i + 1)
		var ans *agent.Answer
		err := r.modelStage(phase, fmt.Sprintf("Question %d", i+1), func() (report.StageStatus, error) {
			r.nb.AddMarkdown("**Question:** "+q, nbformat.StageTag(phase))
			a, err := ag.Ask(ctx, phase, q)
			ans = a
			r.answers = append(r.answers, a)
			r.addSteps(phase, a)
			r.nb.AddMarkdown(answerBlock(a), nbformat.StageTag(phase), nbformat.TagAnswer)
			return stageStatus(a.Answered, err), err
		})
		if err != nil {
			return err
		}
		if !ans.Answered || r.reflectRounds() == 0 {
			continue
		}
		rphase := StageReflection(i + 1)
		err = r.modelStage(rphase, fmt.Sprintf("Reflection on question %d", i+1), func() (report.StageStatus, error) {
			before := len(ans.Verdicts)
			err := ag.Reflect(ctx, rphase, ans, r.reflectRounds())
			r.addSteps(rphase, ans)
			for _, v := range ans.Verdicts[before:] {
				r.nb.AddMarkdown(verdictText(v), nbformat.StageTag(rphase), nbformat.TagReflection)
			}
			if ans.Revised {
				r.nb.AddMarkdown("Revised "+answerBlock(ans), nbformat.StageTag(rphase), nbformat.TagAnswer)
			}
			return stageStatus(true, err), err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func stageStatus(answered bool, err error) report.StageStatus {
	switch {
	case err != nil && ctxErr(err):
		return report.StatusInterrupted
	case err != nil:
		return report.StatusError
	case !answered:
		return report.StatusNoAnswer
	}
	return report.StatusOK
}

func ctxErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// modelStage runs a model stage with its heading, events and StageInfo; a
// model server failure becomes a *ModelError.
func (r *runner) modelStage(name, title string, body func() (report.StageStatus, error)) error {
	start := time.Now()
	r.emit(Event{Type: EventStageStart, Stage: name, Message: title})
	r.nb.AddMarkdown("## "+title, nbformat.StageTag(name), nbformat.TagNotebookOnly)
	status, err := body()
	info := report.StageInfo{Name: name, Title: title, Status: status, Duration: time.Since(start), Lead: true}
	r.stages = append(r.stages, info)
	r.emit(Event{Type: EventStageEnd, Stage: name, Status: string(status), Duration: info.Duration})
	var le *llm.Error
	if err != nil && !ctxErr(err) && asLLM(err, &le) {
		return &ModelError{err}
	}
	return err
}

// addSteps writes the cells of phase: the model's code with its outputs,
// failed attempts tagged (the report collapses them).
func (r *runner) addSteps(phase string, a *agent.Answer) {
	for _, s := range a.Steps {
		if s.Phase != phase || s.Exec == nil {
			continue
		}
		tags := []string{nbformat.StageTag(phase), nbformat.TagModel, nbformat.TurnTag(s.Turn)}
		if s.Failed {
			tags = append(tags, nbformat.TagFailedAttempt)
			if s.Status != string(kernel.StatusError) {
				tags = append(tags, s.Status)
			}
		}
		r.nb.AddCode(s.Code, nbformat.CopyOutputs(s.Exec.Outputs), s.Exec.ExecutionCount, tags...)
	}
}

// answerBlock is an answer as markdown: named values, then the narrative.
func answerBlock(a *agent.Answer) string {
	var b strings.Builder
	if !a.Answered {
		b.WriteString("**No answer.** " + a.Stop + "\n")
		return b.String()
	}
	b.WriteString("**Answer**\n\n")
	for _, v := range a.Values {
		fmt.Fprintf(&b, "- `@%s[%s]`\n", v.Name, mdEscape(v.Value))
	}
	if s := a.SummaryMarkdown(); s != "" {
		b.WriteString("\n" + s + "\n")
	}
	if a.Unverified {
		b.WriteString("\n" + unverifiedNote + "\n")
	}
	return b.String()
}

// unverifiedNote marks an answer no code was run for.
const unverifiedNote = "**Unverified:** the model gave this answer without any code having run for it, even when told to compute it first."

func verdictText(v agent.Verdict) string {
	what := "**Reflection round %d: revised.**"
	if v.Accepted {
		what = "**Reflection round %d: accepted.**"
	}
	s := fmt.Sprintf(what, v.Round)
	if v.Charts != "" {
		s += " Charts checked: " + mdEscape(v.Charts) + "."
	}
	if v.Note != "" {
		s += "\n\n> " + strings.ReplaceAll(strings.TrimSpace(v.Note), "\n", "\n> ")
	}
	return s
}

func mdEscape(s string) string {
	return strings.NewReplacer("`", "'", "\n", " ").Replace(s)
}

// answerMarkdown is the report's answer box: each question's named values,
// narrative and reflection outcome.
func answerMarkdown(questions []string, answers []*agent.Answer) string {
	if len(questions) == 0 {
		return ""
	}
	var b strings.Builder
	for i, q := range questions {
		if len(questions) > 1 {
			fmt.Fprintf(&b, "**%d. %s**\n\n", i+1, mdEscape(q))
		}
		if i >= len(answers) {
			b.WriteString("Not asked: the run stopped before this question.\n\n")
			continue
		}
		a := answers[i]
		if !a.Answered {
			b.WriteString("No answer: " + a.Stop + "\n\n")
			continue
		}
		for _, v := range a.Values {
			fmt.Fprintf(&b, "- **%s**: %s\n", mdEscape(v.Name), mdEscape(v.Value))
		}
		if s := a.SummaryMarkdown(); s != "" {
			b.WriteString("\n" + s + "\n")
		}
		if a.Unverified {
			b.WriteString("\n" + unverifiedNote + "\n")
		}
		switch {
		case a.Revised:
			b.WriteString("\n*Revised after the model checked its charts.*\n")
		case len(a.Verdicts) > 0 && a.Verdicts[len(a.Verdicts)-1].Accepted:
			b.WriteString("\n*The model checked its charts and kept the answer.*\n")
		case len(a.Verdicts) > 0:
			b.WriteString("\n*The model checked its charts and did not accept them.* " + mdEscape(a.Verdicts[len(a.Verdicts)-1].Note) + "\n")
		}
		b.WriteString("\n")
	}
	return strings.TrimSpace(b.String())
}

func (r *runner) manifestModel() *ManifestModel {
	if r.modelInfo == nil {
		return nil
	}
	i := r.modelInfo
	turns, repairs := (&agent.Agent{MaxTurns: r.opts.MaxTurns, MaxRepairs: r.opts.MaxRepairs}).Budgets()
	m := &ManifestModel{Spec: r.opts.ModelSpec, Provider: i.Provider, Name: i.Name, Digest: i.Digest,
		Tools: i.Capabilities.Tools, Vision: i.Capabilities.Vision, Mode: agent.ModeCodeBlocks, Seed: r.seed(),
		MaxTurns: turns, MaxRepairs: repairs,
		ReflectRounds: r.reflectRounds(), SystemPrompt: r.system, ContextLength: i.ContextLength, Retries: r.retries()}
	switch {
	case r.agent != nil:
		m.Mode, m.ToolsRefused = r.agent.Mode(), r.agent.ToolsRefused
	case i.Capabilities.Tools:
		m.Mode = agent.ModeTools
	}
	for _, a := range r.answers {
		m.Turns += a.Turns
		m.Repairs += a.Repairs
		m.Truncations += a.Truncations
		if !a.Answered {
			m.Unanswered++
		}
		for _, c := range a.Calls {
			m.Calls++
			m.PromptTokens += c.PromptTokens
			m.CompletionTokens += c.CompletionTokens
		}
	}
	return m
}

// reportModel is the model as the report's header and "About this run"
// show it.
func (r *runner) reportModel() *report.ModelInfo {
	m := r.manifestModel()
	if m == nil {
		return nil
	}
	name := m.Spec
	if name == "" {
		name = m.Provider + ":" + m.Name
	}
	set := func(k string, v any) report.Setting { return report.Setting{Name: k, Value: fmt.Sprint(v)} }
	settings := []report.Setting{set("Temperature", m.Temperature), set("Seed", m.Seed), set("Max turns", m.MaxTurns),
		set("Max repairs", m.MaxRepairs), set("Reflection rounds", m.ReflectRounds), set("Cell timeout", r.cellTimeout())}
	if m.ContextLength > 0 {
		settings = append(settings, set("Context length", m.ContextLength))
	}
	mode := m.Mode
	if m.ToolsRefused != "" {
		mode += " (the server refused tool calling)"
	}
	return &report.ModelInfo{Name: name, Digest: m.Digest, Mode: mode, Settings: settings,
		PromptTokens: m.PromptTokens, CompletionTokens: m.CompletionTokens, Calls: m.Calls, Retries: m.Retries}
}

func asLLM(err error, target **llm.Error) bool { return errors.As(err, target) }
