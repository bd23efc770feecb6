package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/report"
)

// The question stage is the one path from a loaded kernel to an answer
// that analyst run and analyst eval share (a benchmark measures what
// ships): the agent made by NewAgent, each question asked and reflected on
// by QuestionStage.Ask, its cells written under the same headings.

// NewAgent is the agent of the question stage: agent.New(s), with the
// untraced-number push-back on — the numbers of an answer that no output
// of nb's cells (nor of the answer's own cells) shows are told to the
// model once, as analyst run tells them.
func NewAgent(s agent.Setup, nb *nbformat.Notebook) *agent.Agent {
	ag := agent.New(s)
	ag.Trace = untracedIn(nb, s.Profile)
	return ag
}

// QuestionStage asks questions of one agent (follow-ups share its
// conversation and the kernel's state) and writes each question's and
// reflection's cells into Notebook, each under its heading.
type QuestionStage struct {
	Agent    *agent.Agent
	Notebook *nbformat.Notebook
	// ReflectRounds are the rounds in which the model checks its charts
	// after an answer (0: none).
	ReflectRounds int
	// End receives each stage's StageInfo as it ends; Begin, if set, hears
	// of its start.
	Begin func(name, title string)
	End   func(report.StageInfo)
	// Enter, if set, runs first in each question's stage (an independent
	// question's fork point).
	Enter func(ctx context.Context, phase string) error
	// Block, if set, is answer n's markdown cell (a replay on new data
	// shows its values old → new); else the answer as given.
	Block func(n int, a *agent.Answer) string
}

// Ask asks question n (from 1), then has the model reflect on its charts.
// The answer is nil only when the stage failed before the model was asked.
func (s *QuestionStage) Ask(ctx context.Context, n int, q string) (*agent.Answer, error) {
	phase := agent.StageQuestion(n)
	var ans *agent.Answer
	block := func() string { return s.block(n, ans) }
	err := s.stage(phase, QuestionTitle(n), func() (report.StageStatus, error) {
		if s.Enter != nil {
			if err := s.Enter(ctx, phase); err != nil {
				return report.StatusError, err
			}
		}
		a, err := s.Agent.Ask(ctx, phase, q)
		ans = a
		addQuestion(s.Notebook, phase, q, a, block)
		return StageStatusOf(a.Answered, err), err
	})
	if err != nil || !ans.Answered || s.ReflectRounds <= 0 {
		return ans, err
	}
	rphase := agent.StageReflection(n)
	err = s.stage(rphase, ReflectionTitle(n), func() (report.StageStatus, error) {
		before := len(ans.Verdicts)
		err := s.Agent.Reflect(ctx, rphase, ans, s.ReflectRounds)
		addReflection(s.Notebook, rphase, ans, before, block)
		return StageStatusOf(true, err), err
	})
	return ans, err
}

// QuestionTitle and ReflectionTitle are the headings of question n's
// stages.
func QuestionTitle(n int) string   { return fmt.Sprintf("Question %d", n) }
func ReflectionTitle(n int) string { return fmt.Sprintf("Reflection on question %d", n) }

func (s *QuestionStage) block(n int, a *agent.Answer) string {
	if s.Block != nil {
		return s.Block(n, a)
	}
	return answerBlock(a)
}

// stage runs a model stage: its heading cell, then body; End gets its
// StageInfo.
func (s *QuestionStage) stage(name, title string, body func() (report.StageStatus, error)) error {
	start := time.Now()
	if s.Begin != nil {
		s.Begin(name, title)
	}
	s.Notebook.AddMarkdown("## "+title, nbformat.StageTag(name), nbformat.TagNotebookOnly)
	status, err := body()
	s.End(report.StageInfo{Name: name, Title: title, Status: status, Duration: time.Since(start), Lead: true})
	return err
}

// SetProvenance writes the provenance every notebook of a kernel's cells
// carries, run's and eval's alike: the Python version, the driver and the
// image.
func SetProvenance(nb *nbformat.Notebook, versions map[string]string, imageID string) {
	nb.Metadata.LanguageInfo.Version = versions["python"]
	nb.SetProvenance("driver", kernel.DriverHash())
	nb.SetProvenance("image", imageID)
}

// untracedIn is the agent's Trace hook: the numbers of an answer no output
// of nb's cells shows, counting the cells of the answer not yet in nb; the
// question's numbers and profile's column names are given.
func untracedIn(nb *nbformat.Notebook, profile *eda.Profile) func(*agent.Answer, []agent.NamedValue, string) []string {
	return func(a *agent.Answer, values []agent.NamedValue, narrative string) []string {
		return untraced(nb, profile, a, values, narrative)
	}
}
