package evals

import (
	"context"
	"errors"
	"math"
	"strings"

	"github.com/analyst-cli/analyst/evals/dabench"
)

// scoreCase turns what the solver did into a result (provenance aside).
func scoreCase(c Case, a *Attempt, solveErr error) Result {
	r := Result{Case: c.ID, Index: c.Index, Concepts: c.Concepts, Level: c.Level, Tags: c.Tags, DABenchID: c.DABenchID,
		DABstepID: c.DABstepID, Total: len(c.Expect)}
	if a != nil {
		r.Response = a.Response
		r.PromptTokens, r.CompletionTokens = a.PromptTokens, a.CompletionTokens
		r.ModelMS, r.KernelMS, r.WaitMS = a.ModelMS, a.KernelMS, a.WaitMS
		r.ForkOf = a.ForkOf
	}
	// Extraction is the official one for every suite: the last duplicate
	// wins, values are taken as written. A DABstep answer is the model's
	// named value as it gave it (a list in brackets stays whole).
	pred := dabench.Extract(r.Response)
	if c.DABstepID != "" {
		pred = map[string]string{}
		if a != nil {
			r.Trace = a.Trace
			if v, ok := dabstepAnswer(a.Values); ok {
				pred[DABstepAnswer], r.AgentAnswer = v, v
			}
		}
	}
	for _, e := range c.Expect {
		got, has := pred[e.Name]
		ok := e.Match.Match(got, has, e.Value)
		if ok {
			r.Correct++
		}
		r.Answers = append(r.Answers, SubAnswer{Name: e.Name, Want: e.Value, Got: got, Has: has, OK: ok})
	}
	chartsOK := true
	if a != nil && len(c.Charts) > 0 {
		r.Charts = CheckCharts(c.Charts, a.Charts)
		for _, ch := range r.Charts {
			chartsOK = chartsOK && ch.OK
		}
	}
	if solveErr != nil {
		r.Status, r.Error, r.Class = StatusError, solveErr.Error(), errorClass(solveErr)
		return r
	}
	if c.DABstepID != "" && len(c.Expect) == 0 {
		r.Status = StatusUnscored
		return r
	}
	if r.Correct == r.Total && chartsOK {
		r.Status = StatusPass
		return r
	}
	r.Status = StatusFail
	r.Class = failureClass(r, a, len(pred) > 0)
	return r
}

func errorClass(err error) string {
	var se *SolveError
	switch {
	case errors.As(err, &se):
		return se.Class
	case errors.Is(err, context.DeadlineExceeded):
		return ClassTimeout
	}
	return ClassSandboxError
}

// failureClass says why a case is wrong, from its answers and the trace
// of its cells.
func failureClass(r Result, a *Attempt, anyAnswer bool) string {
	if !anyAnswer {
		// No answer at all (out of turns, too many failed cells): the
		// trace says why, if it can; text without @name[value] is a
		// format failure.
		if a != nil && a.Response == "" {
			if c := traceClass(a.Steps, true); c != "" {
				return c
			}
		}
		return ClassNoAnswer
	}
	near := true
	for _, s := range r.Answers {
		if !s.OK && !nearMiss(s) {
			near = false
		}
	}
	if near && r.Correct < r.Total {
		return ClassNearMiss
	}
	if a != nil {
		if c := traceClass(a.Steps, false); c != "" {
			return c
		}
	}
	return ClassWrongValue
}

// traceClass is the failure its cells show, "" for none: a name that is
// not a column (a KeyError, or an undefined name in df.query/df.eval), then
// a dtype error; with stops, also a cell cut off at its timeout and a
// kernel that died.
func traceClass(steps []TraceStep, stops bool) string {
	for _, st := range steps {
		if st.ErrorName == "KeyError" || st.ErrorName == "UndefinedVariableError" {
			return ClassColumn
		}
	}
	for _, st := range steps {
		if isDtypeError(st) {
			return ClassDtype
		}
	}
	if !stops {
		return ""
	}
	for _, st := range steps {
		switch st.Status {
		case "timeout":
			return ClassTimeout
		case "died":
			return ClassSandboxError
		}
	}
	return ""
}

// nearMiss is a wrong numeric value within 1% of the expected one.
func nearMiss(s SubAnswer) bool {
	if !s.Has {
		return false
	}
	g, err1 := dabench.ParsePyFloat(s.Got)
	w, err2 := dabench.ParsePyFloat(s.Want)
	if err1 != nil || err2 != nil || math.IsNaN(g) || math.IsInf(w, 0) {
		return false
	}
	return math.Abs(g-w) <= 0.01*math.Abs(w)
}

func isDtypeError(st TraceStep) bool {
	if st.ErrorName != "TypeError" && st.ErrorName != "ValueError" {
		return false
	}
	m := strings.ToLower(st.ErrorMsg)
	for _, w := range []string{"dtype", "convert", "could not", "unsupported operand", "not supported between", "invalid literal", "must be real number"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}
