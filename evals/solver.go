package evals

import (
	"context"
	"encoding/json"

	"github.com/analyst-cli/analyst/agent"
)

// Solver answers a case: the real agent in a fresh kernel, or a fake in
// tests of the runner.
type Solver interface {
	// Model names the model and its digest, recorded with every result.
	Model() Model
	// Solve answers c. An error is a case that could not be attempted (a
	// *SolveError says whether the model or the sandbox failed); an
	// Attempt comes back whenever something was tried, also with an error.
	Solve(ctx context.Context, c Case) (*Attempt, error)
}

// Model identifies what answered.
type Model struct {
	Spec   string `json:"spec"`
	Digest string `json:"digest,omitempty"`
}

// Attempt is what a solver produced for a case.
type Attempt struct {
	// Response is the answer text with its @name[value] pairs, as a
	// DABench responses file holds it.
	Response string      `json:"response"`
	Steps    []TraceStep `json:"steps,omitempty"`
	// Charts are the chart descriptions of the cells that ran.
	Charts           []json.RawMessage `json:"-"`
	PromptTokens     int               `json:"prompt_tokens"`
	CompletionTokens int               `json:"completion_tokens"`
	ModelMS          float64           `json:"model_ms"`
	KernelMS         float64           `json:"kernel_ms"`
	// WaitMS is how long the case waited for a parent another case started.
	WaitMS float64 `json:"-"`
	// Stop says why there is no answer, when there is none.
	Stop string `json:"stop,omitempty"`
	// Values are the named values of the last answer, as the model gave
	// them (a DABstep answer is taken from them, not from Response).
	Values []agent.NamedValue `json:"-"`
	// Trace is the run's steps in words, for a DABstep submission.
	Trace string `json:"-"`
	// Record, if set, is written as the case's notebook and HTML report.
	Record *CaseRecord `json:"-"`
	// ForkOf is the digest of the parent kernel's stage cells when the case
	// ran in a forked session ("": in a kernel of its own).
	ForkOf string `json:"-"`
}

// TraceStep is a cell the model ran, reduced to what failure classes need.
type TraceStep struct {
	Status    string `json:"status"`
	ErrorName string `json:"error_name,omitempty"`
	ErrorMsg  string `json:"error_msg,omitempty"`
}

// Failure classes of a case that is not right.
const (
	ClassModelError   = "model-error"
	ClassSandboxError = "sandbox-error"
	ClassTimeout      = "timeout"
	ClassNoAnswer     = "no-answer-format" // no @name[value] in the answer
	ClassNearMiss     = "near-miss"        // every wrong value within 1%
	ClassColumn       = "hallucinated-column"
	ClassDtype        = "dtype-error"
	ClassWrongValue   = "wrong-value"
)

// SolveError is a case that could not be attempted, with its class
// (ClassModelError, ClassSandboxError or ClassTimeout).
type SolveError struct {
	Class string
	Err   error
}

func (e *SolveError) Error() string { return e.Class + ": " + e.Err.Error() }
func (e *SolveError) Unwrap() error { return e.Err }
