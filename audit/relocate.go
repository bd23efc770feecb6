package audit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/runrecord"
)

// ValueMethod says how a replay on new data finds the new value of a named
// answer (run.json records it with the values).
const ValueMethod = "The recorded answers were given for the recorded data. Each named value is looked up in the outputs " +
	"of the recorded run's model cells of its question, the last cell first: the cell, the output and the word where it shows " +
	"(as written, or a number that rounds to it). The new value is the word at that same place in the same cell's output " +
	"on the new data, rounded as the recorded value was; where that place is missing or holds another kind of value " +
	"(text for a number), there is no new value. Values a live model (--model) gave after taking over are its own."

// Relocate finds the new value of each named value vs of question q (from
// 1), given the replay's notebook so far, and keeps the result for Record.
// When a live model took over, vs are its values for the new data, and the
// old ones are the recording's.
func (r *Rerun) Relocate(q int, vs []agent.NamedValue, nb *nbformat.Notebook) []runrecord.ValueChange {
	tags := []string{nbformat.StageTag(agent.StageQuestion(q)), nbformat.StageTag(agent.StageReflection(q))}
	return r.relocateAnswer(answerKey{question: q}, tags, vs, nb)
}

// RelocateGoal is Relocate for the exploration's goal g (from 1), whose
// model cells carry one of tags (its phases).
func (r *Rerun) RelocateGoal(g int, tags []string, vs []agent.NamedValue, nb *nbformat.Notebook) []runrecord.ValueChange {
	return r.relocateAnswer(answerKey{goal: g}, tags, vs, nb)
}

func (r *Rerun) relocateAnswer(key answerKey, tags []string, vs []agent.NamedValue, nb *nbformat.Notebook) []runrecord.ValueChange {
	var out []runrecord.ValueChange
	if r.Live() {
		var old []agent.NamedValue
		if a := answerOf(r.run.Record, runrecord.RerunAnswer{Question: key.question, Goal: key.goal}); a != nil {
			old = a.Values
		}
		for _, v := range vs {
			vc := runrecord.ValueChange{Name: v.Name, New: v.Value, Located: true, Where: "given by the model " + r.liveSpec + " on the new data"}
			for _, o := range old {
				if o.Name == v.Name {
					vc.Old = o.Value
				}
			}
			out = append(out, vc)
		}
	} else {
		oldCells, newCells := modelCells(r.oldNB), modelCells(nb)
		phases := map[string]bool{}
		for _, t := range tags {
			phases[t] = true
		}
		for _, v := range vs {
			out = append(out, relocate(v, oldCells, newCells, phases))
		}
	}
	r.mu.Lock()
	r.answers[key] = out
	r.mu.Unlock()
	return out
}

// modelCell is a code cell the model wrote, with its index in the notebook.
type modelCell struct {
	index int
	cell  *nbformat.Cell
}

func modelCells(nb *nbformat.Notebook) []modelCell {
	var out []modelCell
	for i, c := range nb.Cells {
		if c.CellType == nbformat.Code && c.HasTag(nbformat.TagModel) {
			out = append(out, modelCell{i, c})
		}
	}
	return out
}

// relocate looks v up in the recorded model cells of the question and
// reads the word at the same place of the new cells.
func relocate(v agent.NamedValue, oldCells, newCells []modelCell, phases map[string]bool) runrecord.ValueChange {
	vc := runrecord.ValueChange{Name: v.Name, Old: v.Value}
	want := words(v.Value)
	if len(want) == 0 {
		vc.Why = "the recorded value is empty"
		return vc
	}
	for k := len(oldCells) - 1; k >= 0; k-- {
		c := oldCells[k].cell
		if !inPhases(c, phases) || c.HasTag(nbformat.TagFailedAttempt) {
			continue
		}
		for j, text := range outputTexts(c) {
			t := find(words(text), want, v.Value)
			if t < 0 {
				continue
			}
			where := fmt.Sprintf("%s, output %d, word %d", cellName(oldCells[k]), j+1, t+1)
			if k >= len(newCells) {
				vc.Why = "the replay stopped before the cell that showed it (" + where + ") ran"
				return vc
			}
			nc := newCells[k]
			vc.Where, vc.Cell = fmt.Sprintf("%s, output %d, word %d", cellName(nc), j+1, t+1), nc.cell.ID
			if failed(nc.cell) {
				vc.Why = "the cell that showed it failed on the new data (" + vc.Where + ")"
				return vc
			}
			texts := outputTexts(nc.cell)
			if j >= len(texts) {
				vc.Why = "the cell that showed it printed less on the new data (" + vc.Where + " is missing)"
				return vc
			}
			got := words(texts[j])
			if t+len(want) > len(got) {
				vc.Why = "the output that showed it is shorter on the new data (" + vc.Where + " is missing)"
				return vc
			}
			newValue, ok := sameKind(v.Value, words(text)[t:t+len(want)], got[t:t+len(want)])
			if !ok {
				vc.Why = fmt.Sprintf("%s holds %q on the new data, not the same kind of value", vc.Where, strings.Join(got[t:t+len(want)], " "))
				return vc
			}
			vc.New, vc.Located = newValue, true
			return vc
		}
	}
	vc.Why = "the recorded value shows in no output of its question's cells"
	return vc
}

func inPhases(c *nbformat.Cell, phases map[string]bool) bool {
	for _, t := range c.Metadata.Tags {
		if phases[t] {
			return true
		}
	}
	return false
}

func failed(c *nbformat.Cell) bool {
	for _, o := range c.Outputs {
		if o.OutputType == nbformat.OutputError {
			return true
		}
	}
	return c.HasTag(nbformat.TagFailedAttempt)
}

// cellName is "cell N (question-1, turn 2)": N counts all the notebook's
// cells from 1, as analyst verify does.
func cellName(mc modelCell) string {
	var parts []string
	if s, ok := mc.cell.Stage(); ok {
		parts = append(parts, s)
	}
	if n, ok := mc.cell.Turn(); ok {
		parts = append(parts, fmt.Sprintf("turn %d", n))
	}
	return fmt.Sprintf("cell %d (%s)", mc.index+1, strings.Join(parts, ", "))
}

// outputTexts are the texts of a cell's outputs, in order: what a stream
// printed, or a result's text/plain.
func outputTexts(c *nbformat.Cell) []string {
	var out []string
	for _, o := range c.Outputs {
		switch o.OutputType {
		case nbformat.OutputStream:
			out = append(out, o.Text)
		case nbformat.OutputExecuteResult, nbformat.OutputDisplayData:
			s, _ := o.DataString(nbformat.MimePlain)
			out = append(out, s)
		}
	}
	return out
}

// words splits text at white space, without the punctuation around words.
func words(text string) []string {
	var out []string
	for _, f := range strings.Fields(text) {
		if w := strings.Trim(f, ",;:()[]{}'\""); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// find is the first place in ws where want shows: the same words, or for a
// one-word number, a number that rounds to it at value's precision.
func find(ws, want []string, value string) int {
	for t := 0; t+len(want) <= len(ws); t++ {
		if len(want) == 1 && wordShows(ws[t], want[0]) {
			return t
		}
		if len(want) > 1 && strings.Join(ws[t:t+len(want)], " ") == strings.Join(want, " ") {
			return t
		}
	}
	return -1
}

func wordShows(word, value string) bool {
	if word == value {
		return true
	}
	want, ok := number(value)
	if !ok {
		return false
	}
	got, ok := number(word)
	d := decimals(value)
	return ok && strconv.FormatFloat(got, 'f', d, 64) == strconv.FormatFloat(want, 'f', d, 64)
}

// sameKind is the new value at the place of the old: a number rounded as
// the recorded value was, or the words as they are; ok is false when a
// number became text or text a number.
func sameKind(value string, oldWords, newWords []string) (string, bool) {
	if _, isNum := number(value); isNum {
		if len(newWords) != 1 {
			return "", false
		}
		n, ok := number(newWords[0])
		if !ok {
			return "", false
		}
		if oldWords[0] == value {
			return newWords[0], true
		}
		return strconv.FormatFloat(n, 'f', decimals(value), 64), true
	}
	for i, w := range newWords {
		_, oldNum := number(oldWords[i])
		if _, newNum := number(w); oldNum != newNum {
			return "", false
		}
	}
	return strings.Join(newWords, " "), true
}

func number(s string) (float64, bool) {
	if !numberRe.MatchString(s) || numberRe.FindString(s) != s {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	return f, err == nil
}

func decimals(value string) int {
	if _, frac, ok := strings.Cut(value, "."); ok {
		return len(frac)
	}
	return 0
}
