package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/runrecord"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/numtrace"
	"github.com/analyst-cli/analyst/report"
)

// StageExploration is the model's exploration of the data without a
// question: goals from the profile, a chart per goal, reflection on it, a
// finding. Its model phases are PhaseGoals, PhaseGoal(i), and
// PhaseGoalReflection(i); every cell is tagged stage:exploration.
const StageExploration = "exploration"

// Model phases of the exploration.
const (
	PhaseGoals       = "goals"
	PhaseKeyFindings = "key-findings"
)

// PhaseGoal is the phase of the i-th goal (1-based), PhaseGoalReflection
// the phase of the reflection on its charts.
func PhaseGoal(i int) string           { return fmt.Sprintf("goal-%d", i) }
func PhaseGoalReflection(i int) string { return PhaseGoal(i) + "-reflection" }

// exploring says whether the run explores: a model and no opt-out.
func (r *runner) exploring() bool { return r.opts.Model != nil && !r.opts.NoExplore }

func (r *runner) goalsAsked() int {
	if r.opts.Goals > 0 {
		return r.opts.Goals
	}
	return agent.DefaultGoals
}

// explore runs the exploration stage: the model proposes goals from the
// profile summary, each goal is asked as a question in the kernel (with the
// questions' repair and turn bounds and chart checks), its charts are
// reflected on, and its finding kept; the findings are then ranked for the
// report's Key findings. Goals that cannot be read leave a note, not a
// failed run.
func (r *runner) explore(ctx context.Context) error {
	if !r.exploring() {
		return nil
	}
	ag := r.newAgent()
	ex := &runrecord.Exploration{GoalsAsked: r.goalsAsked()}
	r.exploration = ex
	tag := nbformat.StageTag(StageExploration)
	defer func() {
		// Unlike the questions, the exploration is not shown before the
		// data: the Key findings at the top of the report link down to it.
		for i := range r.stages {
			if r.stages[i].Name == StageExploration {
				r.stages[i].Lead = false
			}
		}
	}()
	return r.modelStage(StageExploration, "Exploration", func() (report.StageStatus, error) {
		set, err := ag.ProposeGoals(ctx, PhaseGoals, agent.GoalRequest{DataName: r.in.Name, Profile: r.profile,
			N: ex.GoalsAsked, Charts: r.drawnCharts()})
		if r.opts.Rerun != nil && err == nil {
			r.followRecordedGoals(set)
		}
		ex.Proposal = set
		r.nb.AddMarkdown(goalsMarkdown(set, ex.GoalsAsked), tag, "goals")
		if err != nil {
			return StageStatusOf(false, err), err
		}
		for i, g := range set.Goals {
			eg, err := r.exploreGoal(ctx, ag, i+1, g)
			ex.Goals = append(ex.Goals, eg)
			if err != nil {
				return StageStatusOf(true, err), err
			}
		}
		var texts []string
		var from []int
		for i, eg := range ex.Goals {
			if eg.Finding != "" {
				texts = append(texts, eg.Finding)
				from = append(from, i)
			}
		}
		if len(texts) == 0 {
			return report.StatusOK, nil
		}
		rank, err := ag.RankFindings(ctx, PhaseKeyFindings, texts)
		ex.Ranking = rank
		for _, k := range rank.Order {
			eg := ex.Goals[from[k]]
			ex.KeyFindings = append(ex.KeyFindings, runrecord.KeyFinding{Goal: from[k] + 1, Finding: eg.Finding, Cell: eg.Cell, Chart: eg.Chart})
		}
		return StageStatusOf(true, err), err
	})
}

// exploreGoal asks goal i as a question, reflects on its charts and keeps
// its finding, writing the cells as it goes.
func (r *runner) exploreGoal(ctx context.Context, ag *agent.Agent, i int, g agent.Goal) (*runrecord.ExploredGoal, error) {
	phase := PhaseGoal(i)
	tag := nbformat.StageTag(StageExploration)
	r.nb.AddMarkdown(goalHeading(i, g), tag, phase, "goal")
	ans, err := ag.Ask(ctx, phase, agent.GoalQuestion(i, g))
	eg := &runrecord.ExploredGoal{Goal: g, Answer: ans}
	cells := addSteps(r.nb, StageExploration, phase, ans)
	if err == nil && ans.Answered && r.reflectRounds() > 0 {
		rphase := PhaseGoalReflection(i)
		before := len(ans.Verdicts)
		err = ag.Reflect(ctx, rphase, ans, r.reflectRounds())
		for k, c := range addSteps(r.nb, StageExploration, rphase, ans) {
			cells[k] = c
		}
		for _, v := range ans.Verdicts[before:] {
			r.nb.AddMarkdown(verdictText(v), tag, rphase, nbformat.TagReflection)
		}
	}
	// The chart of the goal is the last one its successful cells drew.
	for k, s := range ans.Steps {
		if c, ok := cells[k]; ok && !s.Failed && s.Exec != nil {
			if charts := s.Exec.Charts(); len(charts) > 0 {
				eg.Cell, eg.Chart = c.ID, chartName(charts[len(charts)-1])
			}
		}
	}
	switch {
	case ans.Answered:
		eg.Finding = strings.TrimSpace(ans.SummaryMarkdown())
		if eg.Finding == "" {
			eg.Finding = agent.FormatAnswers(ans.Values)
		}
		text := findingText(i, eg, ans)
		if r.opts.Rerun != nil {
			text += r.goalValuesText(i, ans)
		}
		eg.FindingCell = r.nb.AddMarkdown(text, tag, phase, "finding").ID
	default:
		r.nb.AddMarkdown(fmt.Sprintf("**No finding for goal %d.** %s", i, mdEscape(ans.Stop)), tag, phase, "finding")
	}
	return eg, err
}

func chartName(c kernel.Chart) string {
	kind := c.Kind
	if kind == "" {
		kind = "chart"
	}
	if c.Title == "" {
		return kind
	}
	return fmt.Sprintf("%s %q", kind, c.Title)
}

func goalHeading(i int, g agent.Goal) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Goal %d: %s\n\n", i, mdEscape(g.Question))
	fmt.Fprintf(&b, "*Chart:* %s of %s", g.Chart, mdCodes(g.Columns))
	if g.Visualization != "" {
		b.WriteString(" — " + mdEscape(g.Visualization))
	}
	if g.Rationale != "" {
		b.WriteString("  \n*Why it matters:* " + mdEscape(g.Rationale))
	}
	return b.String()
}

func findingText(i int, eg *runrecord.ExploredGoal, ans *agent.Answer) string {
	s := fmt.Sprintf("**Finding of goal %d:** %s", i, eg.Finding)
	if ans.Revised {
		s += "\n\n*Revised after the model checked its chart.*"
	}
	if ans.Unverified {
		s += "\n\n" + unverifiedNote
	}
	return s
}

func mdCodes(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + mdEscape(n) + "`"
	}
	return strings.Join(q, ", ")
}

// goalsMarkdown lists the goals proposed: those explored, those dropped
// with the reason, and any note.
func goalsMarkdown(set *agent.GoalSet, asked int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The model read the profile summary (schema, sample values, alerts, distribution statistics, correlations; "+
		"no other rows) and was asked for %d analysis goals, each a question, the chart that answers it and why it matters. "+
		"Goals that would draw a chart the sections below already have, or that name columns the data does not have, are dropped.\n\n", asked)
	if len(set.Goals) > 0 {
		b.WriteString("**Goals explored**\n\n")
		for i, g := range set.Goals {
			fmt.Fprintf(&b, "%d. %s (%s of %s)\n", i+1, mdEscape(g.Question), g.Chart, mdCodes(g.Columns))
		}
		b.WriteString("\n")
	}
	if len(set.Dropped) > 0 {
		b.WriteString("**Goals dropped**\n\n")
		for _, d := range set.Dropped {
			fmt.Fprintf(&b, "- %s (%s of %s): %s\n", mdEscape(d.Goal.Question), d.Goal.Chart, mdCodes(d.Goal.Columns), mdEscape(d.Reason))
		}
		b.WriteString("\n")
	}
	if set.Note != "" {
		b.WriteString("**Note:** " + mdEscape(set.Note) + "\n")
	}
	return strings.TrimSpace(b.String())
}

// keyFindingsMarkdown is the report's Key findings: each finding with a
// link to the cell that drew its chart; the notes of an exploration that
// found nothing, or whose ranking was not used. With trace, the numbers of
// every goal's finding are traced to cells (each goal's answer records
// them, for run.json) and marked, in the key findings and in each goal's
// finding cell of nb (cellMarks, by cell id).
//
// In a replay on new data, goalValues holds each goal's named values old →
// new (by goal, from 1), listed under its key finding.
func keyFindingsMarkdown(ex *runrecord.Exploration, trace traceFunc, nb *nbformat.Notebook, goalValues map[int][]runrecord.ValueChange) (md string, marks []report.NumberMark, cellMarks map[string][]report.NumberMark) {
	if ex == nil {
		return "", nil, nil
	}
	prose := map[int][]numtrace.Trace{}
	cellMarks = map[string][]report.NumberMark{}
	for i, eg := range ex.Goals {
		if eg.Finding == "" || trace == nil {
			continue
		}
		vals, p := trace(eg.Answer.Question, eg.Answer.Values, eg.Finding)
		var all []numtrace.Trace
		for _, t := range p {
			// A finding without a summary is its @name[value] pairs: their
			// numbers are the named values, counted once, as values.
			if t.Answer == "" {
				all = append(all, t)
			}
		}
		for _, v := range vals {
			all = append(all, v...)
		}
		eg.Answer.Numbers = numtrace.NewRecord(all)
		prose[i+1] = p
		if src, ok := cellSource(nb, eg.FindingCell); ok {
			if at := strings.Index(src, eg.Finding); at >= 0 {
				cellMarks[eg.FindingCell] = numberMarks(at, p)
			}
		}
	}
	var b strings.Builder
	for i, k := range ex.KeyFindings {
		fmt.Fprintf(&b, "%d. ", i+1)
		marks = append(marks, numberMarks(b.Len(), prose[k.Goal])...)
		b.WriteString(strings.ReplaceAll(k.Finding, "\n", " ")) // same length: the marks stay in place
		if k.Cell != "" {
			fmt.Fprintf(&b, " ([%s](#cell-%s), goal %d)", mdEscape(k.Chart), k.Cell, k.Goal)
		} else {
			fmt.Fprintf(&b, " (goal %d)", k.Goal)
		}
		b.WriteString("\n")
		for _, c := range goalValues[k.Goal] {
			fmt.Fprintf(&b, "   - **%s**, old → new: %s%s\n", mdEscape(c.Name), valueChangeText(c), readFrom(c, true))
		}
	}
	if len(marks) > 0 {
		b.WriteString("\n" + tracedNote + "\n")
	}
	var notes []string
	if ex.Proposal != nil && ex.Proposal.Note != "" {
		notes = append(notes, ex.Proposal.Note)
	}
	if len(goalValues) > 0 {
		notes = append(notes, "a replay on new data: the findings are the model's words for the recorded data; "+
			"under each, its named values old → new")
	}
	if len(ex.KeyFindings) == 0 {
		notes = append(notes, "the exploration produced no finding; see the runrecord.Exploration section")
	} else if ex.Ranking != nil && ex.Ranking.Note != "" {
		notes = append(notes, ex.Ranking.Note)
	}
	for _, n := range notes {
		b.WriteString("\n*Note: " + mdEscape(n) + ".*\n")
	}
	return strings.TrimSpace(b.String()), marks, cellMarks
}

// numberMarks are the report's marks of traces found in text written at
// offset.
func numberMarks(offset int, traces []numtrace.Trace) []report.NumberMark {
	var out []report.NumberMark
	for _, t := range traces {
		out = append(out, report.NumberMark{Start: offset + t.Start, End: offset + t.End, Cell: t.Source, Output: t.Output})
	}
	return out
}

// cellSource is the source of nb's cell id.
func cellSource(nb *nbformat.Notebook, id string) (string, bool) {
	if id == "" {
		return "", false
	}
	for _, c := range nb.Cells {
		if c.ID == id {
			return c.Source, true
		}
	}
	return "", false
}

// drawnCharts are the charts the distributions and visualization stages
// drew, by kind and columns, so that goals do not draw them again. They
// follow from the same choices the stages made; the pairs drawn are read
// from the pairs cell's chart descriptions (the cell ranks them).
func (r *runner) drawnCharts() []agent.ChartRef {
	if r.profile == nil {
		return nil
	}
	var out []agent.ChartRef
	add := func(kind, title string, cols ...string) {
		out = append(out, agent.ChartRef{Kind: kind, Title: title, Columns: cols})
	}
	c := eda.Choose(r.profile, r.opts.EDA)
	for _, col := range c.Hist {
		add("hist", "Distributions of the numeric columns", col)
	}
	for _, col := range c.Bars {
		add("bar", "Most frequent values of the categorical columns", col)
	}
	if len(c.Correlation) >= 2 {
		add("heatmap", "Pearson r between numeric columns", c.Correlation...)
	}
	if c.Date != "" {
		add("line", "Rows per period", c.Date)
		if c.Value != "" {
			add("line", "Sum per period", c.Date, c.Value)
		}
	}
	v := eda.ChooseVisualization(r.profile, r.opts.EDA)
	for _, col := range v.Grouped {
		add("box", "Numeric columns by "+v.Category, v.Category, col)
	}
	if v.Date != "" {
		add("line", "Sum of "+v.Value+" over time by "+v.Category, v.Date, v.Value, v.Category)
	}
	for i, a := range v.PairPlot {
		for _, b := range v.PairPlot[i+1:] {
			add("scatter", "Pair plot of the numeric columns", a, b)
		}
	}
	names := r.profile.ColumnNames()
	for _, cell := range r.nb.Cells {
		if !cell.HasTag("viz-pairs") {
			continue
		}
		for _, o := range cell.Outputs {
			raw, ok := o.Data[nbformat.MimeChart]
			if !ok {
				continue
			}
			var d struct {
				Axes []struct {
					Title  string `json:"title"`
					XLabel string `json:"x_label"`
					YLabel string `json:"y_label"`
				} `json:"axes"`
			}
			_ = json.Unmarshal(raw, &d)
			for _, ax := range d.Axes {
				x, y := columnOfLabel(ax.XLabel, names), columnOfLabel(ax.YLabel, names)
				if x != "" && y != "" {
					add("scatter", ax.Title, x, y)
				}
			}
		}
	}
	return out
}

// columnOfLabel is the column a chart label names, as the stages' chart_label
// writes it (cut with "…", "$" escaped); "" for none.
func columnOfLabel(label string, names []string) string {
	label = strings.ReplaceAll(label, `\$`, "$")
	cut, clipped := strings.CutSuffix(label, "…")
	for _, n := range names {
		if n == label || (clipped && strings.HasPrefix(n, cut)) {
			return n
		}
	}
	return ""
}

// modelAnswers are the exploration's goals' answers, then the questions'.
func (r *runner) modelAnswers() []*agent.Answer { return modelAnswers(r.exploration, r.answers) }

func modelAnswers(ex *runrecord.Exploration, answers []*agent.Answer) []*agent.Answer {
	var out []*agent.Answer
	if ex != nil {
		for _, g := range ex.Goals {
			out = append(out, g.Answer)
		}
	}
	return append(out, answers...)
}

// explorationCalls are the model calls of the goal proposal and the
// ranking (the goals' own are in their answers).
func (r *runner) explorationCalls() []agent.ModelCall {
	ex := r.exploration
	if ex == nil {
		return nil
	}
	var out []agent.ModelCall
	if ex.Proposal != nil {
		out = append(out, ex.Proposal.Calls...)
	}
	if ex.Ranking != nil {
		out = append(out, ex.Ranking.Calls...)
	}
	return out
}
