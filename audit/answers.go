package audit

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/nbformat"
)

// AnswerCheck is one named answer looked up in the cells' outputs.
type AnswerCheck struct {
	Question string `json:"question"`
	Name     string `json:"name"`
	Value    string `json:"value"`
	Found    bool   `json:"found"`
	Cell     int    `json:"cell,omitempty"` // the first cell whose output shows it, from 1
}

var numberRe = regexp.MustCompile(`-?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?`)

// checkAnswers looks each named answer up in the text the code cells
// printed or displayed: as written, or, for a number, as a number in an
// output that rounds to it at the answer's precision (an answer 12.35 is
// shown by an output 12.3456).
func checkAnswers(nb *nbformat.Notebook, questions []RecordQuestion) []AnswerCheck {
	var out []AnswerCheck
	texts := make([]string, len(nb.Cells))
	for i, c := range nb.Cells {
		if c.CellType == nbformat.Code {
			texts[i] = outputText(c)
		}
	}
	for _, q := range questions {
		for _, v := range q.Values {
			a := AnswerCheck{Question: q.Question, Name: v.Name, Value: v.Value}
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

func outputText(c *nbformat.Cell) string {
	var b strings.Builder
	for _, o := range c.Outputs {
		b.WriteString(o.Text)
		for _, m := range []string{nbformat.MimePlain, nbformat.MimeHTML, nbformat.MimeMarkdown} {
			if s, ok := o.DataString(m); ok {
				b.WriteString("\n" + s)
			}
		}
	}
	return b.String()
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
	decimals := 0
	if _, frac, ok := strings.Cut(value, "."); ok {
		decimals = len(frac)
	}
	for _, n := range numberRe.FindAllString(text, -1) {
		got, err := strconv.ParseFloat(strings.ReplaceAll(n, ",", ""), 64)
		if err == nil && strconv.FormatFloat(got, 'f', decimals, 64) == strconv.FormatFloat(want, 'f', decimals, 64) {
			return true
		}
	}
	return false
}
