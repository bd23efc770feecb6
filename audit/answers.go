package audit

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/numtrace"
)

// AnswerCheck is one named answer looked up in the cells' outputs.
type AnswerCheck struct {
	Question string `json:"question"`
	Name     string `json:"name"`
	Value    string `json:"value"`
	Found    bool   `json:"found"`
	Cell     int    `json:"cell,omitempty"` // the cell whose output shows it, from 1
	// Problem says why it was not found in the cell run.json links it to.
	Problem string `json:"problem,omitempty"`
}

// NumberCheck is a number of an answer's narrative that run.json traces to
// a cell, looked up again in that cell's outputs.
type NumberCheck struct {
	Question string `json:"question"`
	Text     string `json:"text"`
	CellID   string `json:"cell_id"`
	Cell     int    `json:"cell,omitempty"` // position in the notebook, from 1
	Found    bool   `json:"found"`
	Problem  string `json:"problem,omitempty"`
}

var numberRe = regexp.MustCompile(`-?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?`)

// checkAnswers looks each named answer up in the cells' outputs. A run
// that traced its answers (run.json's "numbers") links each value to a
// cell, which must show it in the notebook and in the re-run (reran, by
// cell ID). An older run's value may be shown by any cell's re-run output:
// as written, or, for a number, as a number in an output that rounds to it
// at the answer's precision (an answer 12.35 is shown by an output 12.3456).
func checkAnswers(nb *nbformat.Notebook, reran map[string][]nbformat.Output, questions []*agent.Answer) []AnswerCheck {
	var out []AnswerCheck
	texts := make([]string, len(nb.Cells))
	for i, c := range nb.Cells {
		if c.CellType == nbformat.Code {
			texts[i] = strings.Join(numtrace.OutputTexts(reran[c.ID]), "\n")
		}
	}
	for _, q := range questions {
		for _, v := range q.Values {
			a := AnswerCheck{Question: q.Question, Name: v.Name, Value: v.Value}
			if linked := answerTraces(q.Numbers, v.Name); len(linked) > 0 {
				a.Found = true
				for _, t := range linked {
					i, problem := checkTrace(t, nb, reran)
					a.Cell = i + 1
					if problem != "" {
						a.Found, a.Problem = false, problem
						break
					}
				}
				out = append(out, a)
				continue
			}
			for i, t := range texts {
				if t != "" && shows(t, v.Value) {
					a.Found, a.Cell = true, i+1
					break
				}
			}
			out = append(out, a)
		}
	}
	return out
}

// answerTraces are the traced entries of the named value name.
func answerTraces(r *numtrace.Record, name string) []numtrace.Trace {
	if r == nil {
		return nil
	}
	var out []numtrace.Trace
	for _, t := range r.Traced {
		if t.Answer == name {
			out = append(out, t)
		}
	}
	return out
}

// checkNumbers looks each number of the answers' narratives that run.json
// traces to a cell up again in that cell, by the rule that traced it.
func checkNumbers(nb *nbformat.Notebook, reran map[string][]nbformat.Output, questions []*agent.Answer) []NumberCheck {
	var out []NumberCheck
	for _, q := range questions {
		if q.Numbers == nil {
			continue
		}
		for _, t := range q.Numbers.Traced {
			if t.Answer != "" {
				continue // a named value: see checkAnswers
			}
			i, problem := checkTrace(t, nb, reran)
			out = append(out, NumberCheck{Question: q.Question, Text: t.Text, CellID: t.Source, Cell: i + 1, Found: problem == "", Problem: problem})
		}
	}
	return out
}

// checkTrace looks a traced number (or named value) up in the outputs of
// the cell it is linked to, as the notebook holds them and as the re-run
// produced them, so that an edited output and a re-run that no longer
// computes the number are both named. It returns the cell's index in nb
// (-1 if gone) and what is wrong ("" when both show it).
func checkTrace(t numtrace.Trace, nb *nbformat.Notebook, reran map[string][]nbformat.Output) (int, string) {
	for i, c := range nb.Cells {
		if c.ID != t.Source {
			continue
		}
		for _, w := range []struct {
			where string
			outs  []nbformat.Output
		}{{"in the notebook", c.Outputs}, {"when re-run", reran[c.ID]}} {
			src := []numtrace.Source{{ID: c.ID, Texts: numtrace.OutputTexts(w.outs)}}
			found := false
			if t.Literal {
				_, found = numtrace.FindText(t.Text, src)
			} else {
				found = numtrace.Find([]numtrace.Number{t.Number}, src)[0].Found
			}
			if !found {
				return i, fmt.Sprintf("%s is not in the output of cell %d %s (run.json traced it to %q there)", t.Text, i+1, w.where, t.Output)
			}
		}
		return i, ""
	}
	return -1, fmt.Sprintf("%s was traced to cell %s, which is not in the notebook", t.Text, t.Source)
}

func shows(text, value string) bool {
	value = strings.TrimSpace(value)
	if value == "" {
		return false
	}
	want, err := strconv.ParseFloat(strings.ReplaceAll(value, ",", ""), 64)
	if err != nil {
		return strings.Contains(text, value)
	}
	// A number is matched as a number: 12.34 is not shown by 12.3456.
	d := decimals(value)
	for _, n := range numberRe.FindAllString(text, -1) {
		got, err := strconv.ParseFloat(strings.ReplaceAll(n, ",", ""), 64)
		if err == nil && strconv.FormatFloat(got, 'f', d, 64) == strconv.FormatFloat(want, 'f', d, 64) {
			return true
		}
	}
	return false
}
