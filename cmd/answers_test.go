package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/internal/iostreams"
	"github.com/analyst-cli/analyst/numtrace"
	"github.com/analyst-cli/analyst/pipeline"
)

// An answer's untraced numbers are named on the terminal and in --json.
func TestAnswersNameUntracedNumbers(t *testing.T) {
	a := &agent.Answer{Question: "How many?", Answered: true, Summary: "10 rows and 99 stores.",
		Values: []agent.NamedValue{{Name: "rows", Value: "10"}},
		Numbers: &numtrace.Record{
			Traced:   []numtrace.Trace{{Number: numtrace.Number{Text: "10"}, Found: true, Source: "c1"}},
			Untraced: []numtrace.Trace{{Number: numtrace.Number{Text: "99"}}, {Number: numtrace.Number{Text: "99"}}},
		}}
	io, _, out, _ := iostreams.Test()
	printAnswers(NewFactory(io), &pipeline.Result{Answers: []*agent.Answer{a, {Question: "Untraced?", Answered: true}}})
	if got := out.String(); strings.Count(got, "(not traced to any cell: 99)\n") != 1 {
		t.Errorf("terminal output:\n%s", got)
	}
	io, _, out, _ = iostreams.Test()
	printRunFiles(NewFactory(io), true, &pipeline.Result{Answers: []*agent.Answer{a}})
	var res struct {
		Answers []struct {
			Untraced []string `json:"untraced"`
		} `json:"answers"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || len(res.Answers) != 1 || strings.Join(res.Answers[0].Untraced, ",") != "99" {
		t.Errorf("--json result: %v %s", err, out.String())
	}
}
