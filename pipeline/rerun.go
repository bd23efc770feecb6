package pipeline

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/runrecord"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/audit"
)

// A replay on new data (Options.Rerun) runs the recorded model code on
// other data: the schema changes are stated once the profile is known, the
// model's cells run through the Rerun's executor (which stops at a cell
// that fails on the new data), and each named value is shown old → new.

// compareSchema states the schema changes of a replay on new data, on the
// progress display and in the notebook, before any model cell runs.
func (r *runner) compareSchema() {
	var changes []runrecord.SchemaChange
	if r.loaded != nil && r.in.Folder != nil {
		var tables []audit.TableProfile
		for _, t := range r.loaded.Tables {
			tables = append(tables, audit.TableProfile{Name: t.Name, Profile: t.Profile})
		}
		changes = r.opts.Rerun.CompareTables(tables)
	} else {
		changes = r.opts.Rerun.Compare(r.profile)
	}
	for _, c := range changes {
		r.emit(Event{Type: EventNotice, Stage: eda.StageProfile, Message: "schema changed since the recorded run: " + c.String()})
	}
	if len(changes) == 0 {
		r.emit(Event{Type: EventNotice, Stage: eda.StageProfile, Message: "schema: the columns and types of the recorded run"})
	}
	r.nb.AddMarkdown(rerunIntro(r.opts.Rerun.Recorded(), changes), nbformat.TagNotebookOnly)
}

func rerunIntro(run *audit.Run, changes []runrecord.SchemaChange) string {
	var b strings.Builder
	d := run.Record.Data
	fmt.Fprintf(&b, "**Replay on new data.** The model code below is the code recorded in `%s` for `%s` (sha256 `%s`), replayed as it was: "+
		"the model was not asked again unless a cell says otherwise. ", run.Manifest, d.Name, short(d.SHA256))
	if len(changes) == 0 {
		b.WriteString("The new data has the recorded data's columns and types.")
		return b.String()
	}
	b.WriteString("Schema changes from the recorded data:\n\n")
	for _, c := range changes {
		b.WriteString("- " + mdEscape(c.String()) + "\n")
	}
	return b.String()
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// executor is what the model's cells run in.
func (r *runner) executor() agent.Executor {
	if r.opts.Rerun != nil {
		return r.opts.Rerun.Executor(r.k)
	}
	return r.k
}

// answerBlock is the notebook's answer cell; on new data, with each value
// old → new.
func (r *runner) answerBlock(q int, a *agent.Answer) string {
	if r.opts.Rerun == nil || !a.Answered {
		return answerBlock(a)
	}
	// The Rerun keeps them for run.json's "rerun" (the report's answer box).
	changes := r.opts.Rerun.Relocate(q, a.Values, r.nb)
	var b strings.Builder
	b.WriteString("**Answer**, " + r.rerunAnswerNote() + "\n\n")
	b.WriteString(valueChangesList(changes, false))
	if s := a.SummaryMarkdown(); s != "" {
		b.WriteString("\n" + r.narrativeNote() + s + "\n")
	}
	return b.String()
}

// rerunValues are the named values old → new that a replay on new data
// (rec; nil for other runs) found, by question and by exploration goal,
// each from 1.
func rerunValues(rec *runrecord.Rerun) (questions, goals map[int][]runrecord.ValueChange) {
	if rec == nil {
		return nil, nil
	}
	questions, goals = map[int][]runrecord.ValueChange{}, map[int][]runrecord.ValueChange{}
	for _, a := range rec.Answers {
		if a.Goal > 0 {
			goals[a.Goal] = a.Values
		} else {
			questions[a.Question] = a.Values
		}
	}
	return questions, goals
}

func (r *runner) rerunAnswerNote() string {
	if r.opts.Rerun.Live() {
		return "recorded for the old data (old), and on the new data (new) as the model that took over answered"
	}
	return "recorded for the old data (old → new: the new data's value at the place the old one showed in the same cell's output)"
}

func (r *runner) narrativeNote() string {
	if r.opts.Rerun.Live() {
		return "*The model's summary on the new data:* "
	}
	return "*The model's summary, written for the old data:* "
}

// valueChangesList lists named values old → new, each with the place it
// was read from: for the report a link to the cell (link), for the
// notebook its name.
func valueChangesList(changes []runrecord.ValueChange, link bool) string {
	var b strings.Builder
	for _, c := range changes {
		fmt.Fprintf(&b, "- `@%s`: %s%s\n", c.Name, valueChangeText(c), readFrom(c, link))
	}
	return b.String()
}

// readFrom names the place a new value was read from, or the model that
// gave it.
func readFrom(c runrecord.ValueChange, link bool) string {
	switch {
	case !c.Located || c.Where == "":
		return ""
	case c.Cell == "":
		return " (" + mdEscape(c.Where) + ")"
	case link:
		return fmt.Sprintf(" (read from [%s](#cell-%s))", mdEscape(c.Where), c.Cell)
	}
	return " (read from " + mdEscape(c.Where) + ")"
}

func valueChangeText(c runrecord.ValueChange) string {
	old := mdEscape(c.Old)
	if old == "" {
		old = "(none)"
	}
	if !c.Located {
		return old + " → not found on the new data: " + mdEscape(c.Why)
	}
	return old + " → **" + mdEscape(c.New) + "**"
}

// rerunMarkdown opens the report of a replay on new data (rec, run.json's
// "rerun"; nil for other runs) of data: what was replayed on what, the
// schema changes, the model cells whose outcome changed, and where a live
// model took over.
func rerunMarkdown(rec *runrecord.Rerun, data runrecord.Data, profiled bool) string {
	if rec == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**Replay on new data** `%s` (sha256 `%s`) of the analysis recorded in `%s` on `%s` (sha256 `%s`): "+
		"the recorded model code ran again as it was.\n\n", mdEscape(data.Name), short(data.SHA256), mdEscape(rec.From),
		mdEscape(rec.RecordedData.Name), short(rec.RecordedData.SHA256))
	if !profiled {
		b.WriteString("The schema could not be compared: the new data was not profiled.\n\n")
	} else if len(rec.Schema) == 0 {
		b.WriteString("**Schema:** the columns and types of the recorded data.\n\n")
	} else {
		b.WriteString("**Schema changes:**\n\n")
		for _, c := range rec.Schema {
			b.WriteString("- " + mdEscape(c.String()) + "\n")
		}
		b.WriteString("\n")
	}
	changed := false
	for i, c := range rec.Cells {
		if c.RecordedStatus != "" && c.Status != c.RecordedStatus {
			fmt.Fprintf(&b, "- Model cell %d (%s, turn %d): %s on the new data, %s in the recorded run.\n", i+1, c.Phase, c.Turn, c.Status, c.RecordedStatus)
			changed = true
		}
	}
	if changed {
		b.WriteString("\n")
	}
	if len(rec.Checks) > 0 {
		b.WriteString("**Checks on the new data.** What the agent's checks found where a run would tell the model or ask it again. " +
			"The model's replies are the recorded ones: it was asked again only where the recorded run asked it.\n\n")
		for _, f := range rec.Checks {
			b.WriteString("- " + mdEscape(f.String()) + "\n")
		}
		b.WriteString("\n")
	}
	if f := rec.Failure; f != nil {
		fmt.Fprintf(&b, "\n**Model cell %d (%s, turn %d) fails on the new data:** `%s`. Likely cause: %s.", f.Cell, f.Phase, f.Turn, mdEscape(f.Exception), mdEscape(f.Cause))
		if rec.Model != "" {
			fmt.Fprintf(&b, " From there the model `%s` was asked again, with this error as feedback: %d replies replayed, %d new.\n\n", mdEscape(rec.Model), rec.ReplayedReplies, rec.ModelReplies)
		} else {
			b.WriteString(" The recorded code was not repaired; the replay stopped there.\n\n")
		}
	}
	return b.String()
}

// followRecordedGoals makes a replay on new data explore the goals the
// recorded run explored, in its order: the recorded replies that follow are
// theirs. Where the screen of the proposed goals on the new data (its
// columns, the charts its stages drew) keeps others, that is a finding.
func (r *runner) followRecordedGoals(set *agent.GoalSet) {
	rec := r.opts.Rerun.RecordedGoals()
	if rec == nil || reflect.DeepEqual(set.Goals, rec.Goals) {
		return
	}
	r.opts.Rerun.Found(agent.Finding{Phase: PhaseGoals, Check: agent.FindingGoals,
		Found: fmt.Sprintf("on the new data the screen of the proposed goals keeps %s; the replay explores the recorded run's %s",
			goalList(set.Goals), goalList(rec.Goals))})
	set.Goals, set.Dropped, set.Note = rec.Goals, rec.Dropped, rec.Note
}

func goalList(goals []agent.Goal) string {
	if len(goals) == 0 {
		return "no goal"
	}
	q := make([]string, len(goals))
	for i, g := range goals {
		q[i] = fmt.Sprintf("%q", g.Question)
	}
	return strings.Join(q, ", ")
}

// goalValuesText is, in a replay on new data, goal i's named values old →
// new for its finding cell; the Rerun keeps them for run.json's "rerun"
// (the report's key findings).
func (r *runner) goalValuesText(i int, ans *agent.Answer) string {
	if !ans.Answered || len(ans.Values) == 0 {
		return ""
	}
	changes := r.opts.Rerun.RelocateGoal(i, []string{PhaseGoal(i), PhaseGoalReflection(i)}, ans.Values, r.nb)
	return "\n\n*Named values, " + r.rerunAnswerNote() + ":*\n\n" + valueChangesList(changes, false)
}
