package evals

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/evals/dabench"
	"github.com/analyst-cli/analyst/evals/dabstep"
	"github.com/analyst-cli/analyst/internal/clip"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/nbformat"
)

// KindDABstep is the Kind of a suite read from a DABstep snapshot.
const KindDABstep = "dabstep"

// DABstepAnswer is the named value a DABstep task's answer is asked as:
// @answer[VALUE], one string, the submission's agent_answer.
const DABstepAnswer = "answer" //houserules:literal the answer's name, not the cell tag

// DABstepPrompt is a task as DABstep's baseline agent gives it to a model
// (the chat prompt of its baseline: the data folder, the question, the
// guidelines, the reminder to read the documentation), the data folder
// being the kernel's /data, and the answer asked as one named value.
func DABstepPrompt(t dabstep.Task) string {
	return "You are an expert data analyst and you will answer factoid questions by referencing files in the data directory: `" +
		kernel.DataMount + "`\nDon't forget to reference any documentation in the data dir before answering a question.\n\n" +
		"Here is the question you need to answer: " + t.Question + "\n\n" +
		"Here are the guidelines you MUST follow when answering the question above: " + t.Guidelines + "\n\n" +
		"Before answering the question, reference any documentation in the data dir and leverage its information in your reasoning / planning.\n\n" +
		"Give the final answer as the one named value " + DABstepAnswer + " (@" + DABstepAnswer + "[VALUE]), written exactly as the guidelines ask."
}

// LoadDABstep reads a split of a DABstep snapshot (dabstep.Open; "" the
// default split) as a suite: each task a case on the context folder, at
// its level, scored as DABstep's question_scorer scores when the split has
// answers (MatchDABstep), else only answered (StatusUnscored). The hash
// covers the tasks file and the context's files.
func LoadDABstep(dir, split string) (*Suite, error) {
	b, err := dabstep.Open(dir, split)
	if err != nil {
		return nil, err
	}
	s := &Suite{Name: filepath.Base(filepath.Clean(dir)) + " (DABstep " + b.Split + ")", Path: dir, Kind: KindDABstep}
	files := []string{dabstep.TasksFile(dir, b.Split)}
	for _, f := range dabstep.ContextFiles {
		files = append(files, filepath.Join(b.Context(), f))
	}
	for i, t := range b.Tasks {
		c := Case{ID: t.ID, Index: i, Dataset: b.Context(), Prompt: DABstepPrompt(t), Level: t.Level, DABstepID: t.ID}
		if b.Answered {
			c.Expect = []Expect{{Name: DABstepAnswer, Value: t.Answer, Match: Matcher{Kind: MatchDABstep}}}
		}
		s.Cases = append(s.Cases, c)
	}
	if s.Hash, err = suiteHash([]string{KindDABstep, b.Split}, files); err != nil {
		return nil, err
	}
	return s, nil
}

// dabstepAnswer is a DABstep case's answer: the named value answer of the
// model's last answer, else its only named value; ok is false without one.
func dabstepAnswer(vs []agent.NamedValue) (string, bool) {
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i].Name == DABstepAnswer {
			return vs[i].Value, true
		}
	}
	if len(vs) == 1 {
		return vs[0].Value, true
	}
	return "", false
}

// Bounds of a reasoning trace's parts (the whole is cut at
// dabstep.MaxTraceBytes).
const (
	traceCodeBytes   = 2000
	traceOutputBytes = 1500
)

// reasoningTrace is an answer's steps in words: each cell the model ran
// with its outcome and output, then its answer and summary.
func reasoningTrace(answers []*agent.Answer) string {
	var b strings.Builder
	for _, ans := range answers {
		for i, st := range ans.Steps {
			fmt.Fprintf(&b, "Step %d (%s, turn %d): ran\n%s\n", i+1, st.Status, st.Turn, clip.Bytes(st.Code, traceCodeBytes))
			if st.Exec != nil {
				if out := cellText(st.Exec); out != "" {
					fmt.Fprintf(&b, "Output:\n%s\n", clip.Bytes(out, traceOutputBytes))
				}
				if e := st.Exec.Error; e != nil {
					fmt.Fprintf(&b, "Error: %s: %s\n", e.Name, clip.Bytes(e.Value, traceOutputBytes))
				}
			}
		}
		switch {
		case ans.Answered:
			fmt.Fprintf(&b, "Answer: %s\n%s\n", agent.FormatAnswers(ans.Values), ans.Summary)
		default:
			fmt.Fprintf(&b, "No answer: %s\n", ans.Stop)
		}
	}
	return strings.TrimSpace(b.String())
}

// cellText is what a cell showed as text, in order: what it printed
// (stdout, stderr) and the text of its displays and last expression's
// value.
func cellText(ex *kernel.Execution) string {
	var parts []string
	for _, o := range ex.Outputs {
		switch o.OutputType {
		case nbformat.OutputStream:
			parts = append(parts, strings.TrimRight(o.Text, "\n"))
		case nbformat.OutputExecuteResult, nbformat.OutputDisplayData:
			if s, ok := o.DataString(nbformat.MimePlain); ok {
				parts = append(parts, s)
			}
		}
	}
	return strings.Join(parts, "\n")
}

// dabstepSummary is a model's DABstep figures over its first repeats, nil
// when the results are not a DABstep suite's.
func dabstepSummary(model string, rs []Result) *DABstepSummary {
	s := &DABstepSummary{Overall: dabench.Accuracy{Key: "overall"}, Easy: dabench.Accuracy{Key: "easy"}, Hard: dabench.Accuracy{Key: "hard"},
		Submission: dabstep.SubmissionFile("", Slug(model))}
	found := false
	for _, r := range rs {
		if r.Repeat != 0 || r.DABstepID == "" {
			continue
		}
		found = true
		if r.Status == StatusUnscored {
			continue
		}
		accs := []*dabench.Accuracy{&s.Overall}
		switch r.Level {
		case s.Easy.Key:
			accs = append(accs, &s.Easy)
		case s.Hard.Key:
			accs = append(accs, &s.Hard)
		}
		for _, a := range accs {
			a.Total++
			if r.Right() {
				a.Correct++
			}
		}
	}
	if !found {
		return nil
	}
	for _, a := range []*dabench.Accuracy{&s.Overall, &s.Easy, &s.Hard} {
		if a.Total > 0 {
			a.Value = dabench.Round4(float64(a.Correct) / float64(a.Total))
		}
	}
	return s
}

// dabstepMarkdown is the report's DABstep section of a model: its accuracy
// overall, easy and hard as the leaderboard computes it, with 95% Wilson
// intervals, and its submission file ("" for other suites).
func dabstepMarkdown(m ModelSummary) string {
	d := m.DABstep
	if d == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## %s on DABstep\n\nAccuracy as DABstep's leaderboard computes it (question_scorer; a task without an answer is wrong). "+
		"Submission: `%s`.\n\n", m.Model, d.Submission)
	if m.Unscored > 0 {
		fmt.Fprintf(&b, "%d task(s) have no gold answer in this split: they are in the submission, not in the figures.\n\n", m.Unscored)
	}
	if d.Overall.Total > 0 {
		accuracyTable(&b, "tasks", []dabench.Accuracy{d.Overall, d.Easy, d.Hard})
	}
	if len(m.Errored) > 0 {
		fmt.Fprintf(&b, "\n%d task(s) ended in an error: %s. Each is in the submission with the empty answer, which question_scorer "+
			"counts right where the gold is empty (\"\" or the empty list), and so do these figures.\n", len(m.Errored), strings.Join(m.Errored, ", "))
	}
	return b.String()
}

// submissions are a DABstep run's submission files, one per model, a line
// appended as each task's first repeat ends (WriteOutputs rewrites them
// from the results at the end).
type submissions map[string]*dabstep.SubmissionWriter

// openSubmissions opens the submission file of each model of a DABstep
// suite's run; none for other suites.
func (o Options) openSubmissions(cases []Case) (submissions, error) {
	if o.Suite.Kind != KindDABstep {
		return nil, nil
	}
	var ids []string
	for _, c := range cases {
		ids = append(ids, c.DABstepID)
	}
	subs := submissions{}
	for _, s := range o.Solvers {
		w, err := dabstep.OpenSubmission(dabstep.SubmissionFile(o.Out, Slug(s.Model().Spec)), ids)
		if err != nil {
			subs.close()
			return nil, err
		}
		subs[s.Model().Spec] = w
	}
	return subs, nil
}

func (subs submissions) add(r Result) error {
	w := subs[r.Model]
	if w == nil || r.Repeat != 0 || r.DABstepID == "" {
		return nil
	}
	return w.Add(dabstep.NewLine(r.DABstepID, r.AgentAnswer, r.Trace))
}

func (subs submissions) close() error {
	var errs []error
	for _, w := range subs {
		errs = append(errs, w.Close())
	}
	return errors.Join(errs...)
}
