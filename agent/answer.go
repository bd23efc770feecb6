package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/internal/clip"
	"github.com/analyst-cli/analyst/internal/namedvalue"
)

// NamedValue is one named part of an answer, written @name[value] as DABench
// writes them.
type NamedValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ParseAnswers returns the @name[value] pairs of text, in order. A name given
// twice keeps its last value, in the place of its first.
func ParseAnswers(text string) []NamedValue {
	var out []NamedValue
	seen := map[string]int{}
	for _, m := range namedvalue.Find(text) {
		v := NamedValue{Name: m.Name, Value: strings.TrimSpace(m.Value)}
		if i, ok := seen[v.Name]; ok {
			out[i] = v
			continue
		}
		seen[v.Name] = len(out)
		out = append(out, v)
	}
	return out
}

// FormatAnswers writes values back as @name[value] pairs, space separated.
func FormatAnswers(vs []NamedValue) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = "@" + v.Name + "[" + v.Value + "]"
	}
	return strings.Join(parts, " ")
}

// narrative is the text of an answer without its list of values: pairs
// that lead a line (the answer list) are left out, and a pair inside a
// sentence ("The peak month is @peak_month[2024-07].") becomes its value —
// plain, and in bold in md.
func narrative(text string) (plain, md string) {
	var pl, ml []string
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		rest, stripped := line, false
		for {
			t := strings.TrimLeft(rest, " \t-*•,;:")
			spans := namedvalue.Find(t)
			if len(spans) == 0 || spans[0].Start != 0 {
				if stripped {
					rest = t
				}
				break
			}
			rest, stripped = t[spans[0].End:], true
		}
		if stripped && strings.TrimSpace(rest) == "" {
			continue
		}
		pl = append(pl, replaceAnswers(rest, func(v string) string { return v }))
		ml = append(ml, replaceAnswers(rest, func(v string) string { return "**" + strings.TrimSpace(v) + "**" }))
	}
	return strings.TrimSpace(strings.Join(pl, "\n")), strings.TrimSpace(strings.Join(ml, "\n"))
}

// replaceAnswers is text with each @name[value] replaced by with(value).
func replaceAnswers(text string, with func(value string) string) string {
	var b strings.Builder
	last := 0
	for _, s := range namedvalue.Find(text) {
		b.WriteString(text[last:s.Start] + with(s.Value))
		last = s.End
	}
	return b.String() + text[last:]
}

var validAnswerName = regexp.MustCompile(`^\w+$`)

// parseFinalAnswer reads final_answer's arguments: {"answers": {name:
// value}, "summary": "..."}. Its errors are written for the model to act on.
func parseFinalAnswer(args string) ([]NamedValue, string, error) {
	var raw struct {
		Answers json.RawMessage `json:"answers"`
		Summary *string         `json:"summary"`
	}
	if err := json.Unmarshal([]byte(args), &raw); err != nil {
		return nil, "", fmt.Errorf(`final_answer: the arguments are not a JSON object (%v); send {"answers": {"name": value, ...}, "summary": "two or three sentences"}`, shortErr(err))
	}
	if len(raw.Answers) == 0 || string(raw.Answers) == "null" {
		return nil, "", errors.New(`final_answer: "answers" is missing; send {"answers": {"name": value, ...}, "summary": "..."} with one entry per value the question asks for`)
	}
	var obj map[string]any
	if err := json.Unmarshal(raw.Answers, &obj); err != nil {
		// Some models send the DABench string form: "@peak[March] @total[12]".
		var s string
		if json.Unmarshal(raw.Answers, &s) == nil {
			if vs := ParseAnswers(s); len(vs) > 0 {
				return vs, summaryOf(raw.Summary), nil
			}
		}
		return nil, "", fmt.Errorf(`final_answer: "answers" must be an object of name to value, like {"peak_month": "2024-03", "total": 1234.5}; got %s`, clip.Bytes(string(raw.Answers), 120))
	}
	if len(obj) == 0 {
		return nil, "", errors.New(`final_answer: "answers" is empty; give at least one named value`)
	}
	names := make([]string, 0, len(obj))
	for k := range obj {
		if !validAnswerName.MatchString(k) {
			return nil, "", fmt.Errorf("final_answer: answer name %q must be letters, digits and underscores only", k)
		}
		names = append(names, k)
	}
	// JSON objects have no order; keep the model's order where we can.
	sort.SliceStable(names, func(i, j int) bool {
		return strings.Index(string(raw.Answers), strconv.Quote(names[i])) < strings.Index(string(raw.Answers), strconv.Quote(names[j]))
	})
	vs := make([]NamedValue, 0, len(names))
	for _, n := range names {
		vs = append(vs, NamedValue{Name: n, Value: valueText(obj[n])})
	}
	return vs, summaryOf(raw.Summary), nil
}

func summaryOf(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}

// valueText writes a JSON value the way an answer shows it.
func valueText(v any) string {
	switch v := v.(type) {
	case string:
		return strings.TrimSpace(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case nil:
		return "null"
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = valueText(x)
		}
		return strings.Join(parts, ", ")
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

func shortErr(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, err)
	}
	return err.Error()
}
