package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/analyst-cli/analyst/internal/clip"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/llm"
)

// reflectMaxCharts bounds the charts shown in one reflection round.
const reflectMaxCharts = 3

// Reflect shows the model each chart made for its answer — as an image when
// it has vision, else as the chart's description — with the question and
// the claimed answer, for at most rounds rounds. The model accepts, or
// revises (running code as it needs) and answers again; the verdicts and any
// revision go into ans.
func (a *Agent) Reflect(ctx context.Context, phase string, ans *Answer, rounds int) error {
	if !ans.Answered || rounds <= 0 {
		return nil
	}
	from := 0 // the steps whose charts stand: all, or those of the last revision that drew one
	for round := 1; round <= rounds; round++ {
		charts := answerCharts(ans, from)
		start := len(ans.Steps)
		if !a.askAgain(phase, 0, len(charts) > 0, FindingReflection, "") {
			ans.Verdicts = append(ans.Verdicts, Verdict{Round: round, Accepted: true, Note: uncheckedNote(len(charts))})
			return nil
		}
		var labels []string
		var imgs [][]byte
		var b strings.Builder
		fmt.Fprintf(&b, "Check your work before it is reported.\nQuestion: %s\nYour answer: %s\n", ans.Question, FormatAnswers(ans.Values))
		if ans.Summary != "" {
			b.WriteString("Your summary: " + ans.Summary + "\n")
		}
		b.WriteString("The chart(s) made for it:\n")
		for i, c := range charts {
			labels = append(labels, chartLabel(c))
			fmt.Fprintf(&b, "%d. %s\n", i+1, chartLabel(c))
			if a.vision() && len(c.PNG) > 0 {
				imgs = append(imgs, c.PNG)
			} else {
				b.WriteString("   description: " + clip.Bytes(compactJSON(c.Description), feedbackDesc) + "\n")
			}
		}
		b.WriteString("For each chart: does it have a title and labelled axes, can it be read (no overlapping labels, sensible scale), " +
			"and does it support the answer? ")
		if a.tools() {
			b.WriteString("If everything is right, call accept(reason). Otherwise call revise(reason) saying what is wrong, " +
				"fix it (run_python: redraw the chart, recompute) and give the answer again with final_answer.")
		} else {
			b.WriteString("Start your reply with one of these lines:\nVERDICT: ACCEPT — then one line saying why, if everything is right;\n" +
				"VERDICT: REVISE — then what is wrong, and the ```python code that fixes it (redraw the chart, recompute); " +
				"then give the answer again as @name[value] pairs.")
		}
		out, err := a.converse(ctx, ans, phase, llm.Message{Role: llm.RoleUser, Content: b.String(), Images: imgs}, true)
		v := Verdict{Round: round, Charts: strings.Join(labels, "; ")}
		switch {
		case err != nil:
			v.Note = "reflection stopped: " + FailureText(err)
			ans.Verdicts = append(ans.Verdicts, v)
			return err
		case out.accepted:
			v.Accepted, v.Note = true, out.note
			ans.Verdicts = append(ans.Verdicts, v)
			return nil
		case out.answered:
			v.Revised, v.Reason = true, out.reason
			v.Note = "revised: " + FormatAnswers(out.values)
			if out.summary != "" {
				v.Note += " — " + out.summary
			}
			ans.setAnswer(out)
			ans.Revised = true
			if len(answerCharts(ans, start)) > 0 {
				// The revision redrew: the charts it replaced are not
				// judged again.
				from = start
			}
			ans.Verdicts = append(ans.Verdicts, v)
		default:
			v.Note = "not accepted: " + out.stop
			ans.Verdicts = append(ans.Verdicts, v)
			return nil
		}
	}
	return nil
}

// uncheckedNote is the verdict of a round the model was not asked: there
// was no chart, or (in a replay on new data) the recorded run asked no
// round here although the new data drew charts.
func uncheckedNote(charts int) string {
	if charts == 0 {
		return "no chart was made for this answer; nothing to check"
	}
	return "not checked: the recorded run asked the model no reflection round here (it had no chart to check), so the replay asks none"
}

// answerCharts are the charts of the answer's successful cells from step
// from on, the last reflectMaxCharts of them. A chart that failed the checks and was followed
// by one that passes them was redrawn (the model was told what is wrong):
// it is left out, so reflection judges the chart that stands, not one
// already replaced.
func answerCharts(ans *Answer, from int) []kernel.Chart {
	var charts []kernel.Chart
	for _, s := range ans.Steps[from:] {
		if !s.Failed && s.Exec != nil {
			charts = append(charts, s.Exec.Charts()...)
		}
	}
	var kept []kernel.Chart
	redrawn := false // a later chart passes the checks
	for i := len(charts) - 1; i >= 0; i-- {
		passes := len(CheckChart(charts[i].Description)) == 0
		if passes || !redrawn {
			kept = append(kept, charts[i])
		}
		redrawn = redrawn || passes
	}
	slices.Reverse(kept)
	if len(kept) > reflectMaxCharts {
		kept = kept[len(kept)-reflectMaxCharts:]
	}
	return kept
}
