package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/numtrace"
	"github.com/analyst-cli/analyst/report"
	"github.com/analyst-cli/analyst/runrecord"
)

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
// reflection on its charts. Follow-ups share one conversation and the
// kernel's state; independent questions are answered each in a fork.
func (r *runner) ask(ctx context.Context) error {
	if len(r.opts.Questions) == 0 {
		return nil
	}
	if r.opts.Independent {
		return r.askIndependent(ctx)
	}
	ag := r.newAgent()
	for i, q := range r.opts.Questions {
		if err := r.askQuestion(ctx, ag, i+1, q); err != nil {
			return err
		}
	}
	return nil
}

// askQuestion asks question n (from 1), then has the model reflect on its
// charts: the question stage eval runs too, with the run's events, stages
// and answer cells.
func (r *runner) askQuestion(ctx context.Context, ag *agent.Agent, n int, q string) error {
	a, err := r.questionStage(ag).Ask(ctx, n, q)
	if a != nil {
		r.answers = append(r.answers, a)
	}
	return modelStageError(err)
}

// questionStage is the run's question stage for ag.
func (r *runner) questionStage(ag *agent.Agent) *QuestionStage {
	return &QuestionStage{Agent: ag, Notebook: r.nb, ReflectRounds: r.reflectRounds(), Enter: r.enterSession, Block: r.answerBlock,
		Begin: func(name, title string) { r.emit(Event{Type: EventStageStart, Stage: name, Message: title}) },
		End: func(info report.StageInfo) {
			r.stages = append(r.stages, info)
			r.emit(Event{Type: EventStageEnd, Stage: info.Name, Status: string(info.Status), Duration: info.Duration})
		}}
}

// onTurn tells the progress display of the agent's model calls, cells and
// notices.
func (r *runner) onTurn(e agent.TurnEvent) {
	switch {
	case e.Notice != "":
		r.emit(Event{Type: EventNotice, Stage: e.Phase, Message: e.Notice})
	case e.Cell:
		r.emit(Event{Type: EventCell, Stage: e.Phase, Turn: e.Turn, Status: e.Status})
	default:
		tokens := r.tokens.Add(int64(e.Tokens))
		r.emit(Event{Type: EventModelTurn, Stage: e.Phase, Turn: e.Turn, Tokens: int(tokens), Retries: r.retries()})
	}
}

// newAgent is the run's agent, made once: the exploration and the questions
// share its conversation and the kernel's state.
func (r *runner) newAgent() *agent.Agent {
	if r.agent != nil {
		return r.agent
	}
	ag := NewAgent(agent.Setup{Client: r.opts.Model, Info: r.modelInfo, Kernel: r.executor(),
		DataName: r.in.Name, Profile: r.profile, Folder: AgentFolder(r.ds, r.loaded), Versions: r.opts.Versions,
		MaxTurns: r.opts.MaxTurns, MaxRepairs: r.opts.MaxRepairs, CellTimeout: r.cellTimeout(), Seed: r.seed()}, r.nb)
	ag.OnTurn = r.onTurn
	if r.opts.Rerun != nil {
		ag.Replay = r.opts.Rerun
	}
	r.system = ag.System
	r.agent = ag
	return ag
}

// StageStatusOf is a model stage's status: interrupted, an error, no
// answer, or ok.
func StageStatusOf(answered bool, err error) report.StageStatus {
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
	return modelStageError(r.questionStage(nil).stage(name, title, body))
}

// modelStageError is a model stage's error, a model server failure made a
// *ModelError.
func modelStageError(err error) error {
	var le *llm.Error
	if err != nil && !ctxErr(err) && asLLM(err, &le) {
		return &ModelError{err}
	}
	return err
}

// addQuestion appends the cells of a question asked in phase: the
// question, the model's code with its outputs, and the answer, its
// markdown made by block once the model's cells are in nb (a replay on new
// data reads the new values from them).
func addQuestion(nb *nbformat.Notebook, phase, question string, a *agent.Answer, block func() string) {
	nb.AddMarkdown("**Question:** "+question, nbformat.StageTag(phase))
	addSteps(nb, phase, phase, a)
	nb.AddMarkdown(block(), nbformat.StageTag(phase), nbformat.TagAnswer)
}

// addReflection appends the cells of the reflection phase on answer a: the
// model's code, the verdicts from the before-th on, and a revised answer.
func addReflection(nb *nbformat.Notebook, phase string, a *agent.Answer, before int, block func() string) {
	addSteps(nb, phase, phase, a)
	for _, v := range a.Verdicts[before:] {
		nb.AddMarkdown(verdictText(v), nbformat.StageTag(phase), nbformat.TagReflection)
	}
	if a.Revised {
		nb.AddMarkdown("Revised "+block(), nbformat.StageTag(phase), nbformat.TagAnswer)
	}
}

// addSteps writes the cells of phase, in stage: the model's code with its
// outputs, failed attempts tagged (the report collapses them). It returns
// the cells by their step's index in a.Steps.
func addSteps(nb *nbformat.Notebook, stage, phase string, a *agent.Answer) map[int]*nbformat.Cell {
	cells := map[int]*nbformat.Cell{}
	for i, s := range a.Steps {
		if s.Phase != phase || s.Exec == nil {
			continue
		}
		tags := []string{nbformat.StageTag(stage), nbformat.TagModel, nbformat.TurnTag(s.Turn)}
		if phase != stage {
			tags = append(tags, phase)
		}
		if s.Failed {
			tags = append(tags, nbformat.TagFailedAttempt)
			if s.Status != string(kernel.StatusError) {
				tags = append(tags, s.Status)
			}
		}
		cells[i] = nb.AddCode(s.Code, nbformat.CopyOutputs(s.Exec.Outputs), s.Exec.ExecutionCount, tags...)
	}
	return cells
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
	what := "**Reflection round %d: not accepted.**"
	switch {
	case v.Accepted:
		what = "**Reflection round %d: accepted.**"
	case v.Revised:
		what = "**Reflection round %d: revised.**"
	}
	s := fmt.Sprintf(what, v.Round)
	if v.Charts != "" {
		s += " Charts checked: " + mdEscape(v.Charts) + "."
	}
	if q := verdictQuote(v); q != "" {
		s += "\n\n> " + strings.ReplaceAll(q, "\n", "\n> ")
	}
	return s
}

// verdictQuote is what a verdict's cell quotes: the model's reason for
// revising, when it gave one, then the note.
func verdictQuote(v agent.Verdict) string {
	note := strings.TrimSpace(v.Note)
	if v.Reason == "" {
		return note
	}
	return reasonLabel + " " + mdEscape(v.Reason) + "\n\n" + note
}

// reasonLabel introduces the model's reason for a revision.
const reasonLabel = "**The model's reason:**"

func mdEscape(s string) string {
	return strings.NewReplacer("`", "'", "\n", " ").Replace(s)
}

// traceFunc traces an answer's named values and narrative (see tracer).
type traceFunc func(question string, values []agent.NamedValue, narrative string) ([][]numtrace.Trace, []numtrace.Trace)

// tracedNote is the report's word on the marks in the answer box.
const tracedNote = "*Each number links to the cell whose output shows it; a number marked untraced appears in no cell's output.*"

// AnswerMarkdown is the report's answer box: each question's named values,
// narrative and reflection outcome.
func AnswerMarkdown(questions []string, answers []*agent.Answer) string {
	md, _ := answerMarkdown(questions, answers, nil, nil)
	return md
}

// answerMarkdown is AnswerMarkdown where, for a replay on new data, rerun
// holds each question's values old → new (by question, from 1), and with
// trace each number and named value is traced to a cell: marks are their
// spans in the markdown, and each answer's Numbers records them (run.json).
func answerMarkdown(questions []string, answers []*agent.Answer, rerun map[int][]runrecord.ValueChange, trace traceFunc) (string, []report.NumberMark) {
	if len(questions) == 0 {
		return "", nil
	}
	var b strings.Builder
	var marks []report.NumberMark
	// mark records traces found in text written at offset.
	mark := func(offset int, traces []numtrace.Trace) {
		marks = append(marks, numberMarks(offset, traces)...)
	}
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
		var vals [][]numtrace.Trace
		var prose []numtrace.Trace
		summary := a.SummaryMarkdown()
		if trace != nil {
			vals, prose = trace(a.Question, a.Values, summary)
			var all []numtrace.Trace
			for _, v := range vals {
				all = append(all, v...)
			}
			a.Numbers = numtrace.NewRecord(append(all, prose...))
		}
		if changes, ok := rerun[i+1]; ok {
			b.WriteString("Named values, old → new:\n\n")
			for _, c := range changes {
				fmt.Fprintf(&b, "- **%s**: %s%s\n", mdEscape(c.Name), valueChangeText(c), readFrom(c, true))
			}
		} else {
			for k, v := range a.Values {
				fmt.Fprintf(&b, "- **%s**: ", mdEscape(v.Name))
				if vals != nil {
					mark(b.Len(), vals[k])
				}
				b.WriteString(mdEscape(v.Value) + "\n")
			}
		}
		if summary != "" {
			b.WriteString("\n")
			mark(b.Len(), prose)
			b.WriteString(summary + "\n")
		}
		if a.Unverified {
			b.WriteString("\n" + unverifiedNote + "\n")
		}
		switch {
		case a.Revised:
			b.WriteString("\n*Revised after the model checked its charts.*")
			if r := revisionReason(a); r != "" {
				b.WriteString(" " + reasonLabel + " " + mdEscape(r))
			}
			b.WriteString("\n")
		case len(a.Verdicts) > 0 && a.Verdicts[len(a.Verdicts)-1].Accepted:
			b.WriteString("\n*The model checked its charts and kept the answer.*\n")
		case len(a.Verdicts) > 0:
			b.WriteString("\n*The model checked its charts and did not accept them.* " + mdEscape(a.Verdicts[len(a.Verdicts)-1].Note) + "\n")
		}
		b.WriteString("\n")
	}
	if len(marks) > 0 {
		b.WriteString(tracedNote + "\n")
	}
	return strings.TrimSpace(b.String()), marks
}

// revisionReason is the model's reason for the last revision of a, if it
// gave one.
func revisionReason(a *agent.Answer) string {
	for i := len(a.Verdicts) - 1; i >= 0; i-- {
		if a.Verdicts[i].Revised {
			return a.Verdicts[i].Reason
		}
	}
	return ""
}

func (r *runner) manifestModel() *runrecord.Model {
	if r.modelInfo == nil {
		return nil
	}
	m := NewManifestModel(r.opts.ModelSpec, r.modelInfo, r.agent, r.seed(), r.reflectRounds(), r.cellTimeout())
	if r.agent == nil {
		// Not asked yet: the budgets as they would have been.
		m.MaxTurns, m.MaxRepairs = (&agent.Agent{MaxTurns: r.opts.MaxTurns, MaxRepairs: r.opts.MaxRepairs}).Budgets()
	}
	m.SystemPrompt, m.Retries = r.system, r.retries()
	if r.exploration != nil {
		m.Explore, m.Goals = true, r.exploration.GoalsAsked
	}
	for _, a := range r.modelAnswers() {
		m.Turns += a.Turns
		m.Repairs += a.Repairs
		m.Truncations += a.Truncations
		if a.Numbers != nil {
			m.TracedNumbers += len(a.Numbers.Traced)
			m.UntracedNumbers += len(a.Numbers.Untraced)
		}
		for _, v := range a.Verdicts {
			// A revision restates an answer: its claims are counted as
			// that answer's.
			if v.Numbers != nil && !v.Revised {
				m.TracedNumbers += len(v.Numbers.Traced)
				m.UntracedNumbers += len(v.Numbers.Untraced)
			}
		}
		for _, c := range a.Calls {
			m.Calls++
			m.PromptTokens += c.PromptTokens
			m.CompletionTokens += c.CompletionTokens
		}
	}
	for _, a := range r.answers {
		if !a.Answered {
			m.Unanswered++
		}
	}
	for _, c := range append(r.explorationCalls(), r.keyChangesCalls()...) {
		m.Calls++
		m.PromptTokens += c.PromptTokens
		m.CompletionTokens += c.CompletionTokens
	}
	return m
}

// NewManifestModel is the model of info, as spec named it, driven by ag
// (nil: no agent made yet) with seed and reflectRounds, its cells given
// cellTimeout; the counts are left for the caller to add.
func NewManifestModel(spec string, info *llm.ModelInfo, ag *agent.Agent, seed, reflectRounds int, cellTimeout time.Duration) *runrecord.Model {
	m := &runrecord.Model{Spec: spec, Provider: info.Provider, Name: info.Name, Digest: info.Digest,
		Tools: info.Capabilities.Tools, Vision: info.Capabilities.Vision, Mode: agent.ModeCodeBlocks, Seed: seed,
		ReflectRounds: reflectRounds, ContextLength: info.ContextLength, MaxReplyTokens: info.MaxReplyTokens,
		CellTimeout: cellTimeout.String()}
	switch {
	case ag != nil:
		m.Mode, m.ToolsRefused = ag.Mode(), ag.ToolsRefused
		m.MaxTurns, m.MaxRepairs = ag.Budgets()
	case info.Capabilities.Tools:
		m.Mode = agent.ModeTools
	}
	return m
}

// reportModel is the model m (run.json's "model") as the report's header
// and "About this run" show it.
func reportModel(m *runrecord.Model) *report.ModelInfo { return m.Report() }

func asLLM(err error, target **llm.Error) bool { return errors.As(err, target) }
