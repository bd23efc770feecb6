package pipeline

import (
	"fmt"
	"time"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/dataset"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
)

// SandboxError is a kernel that could not start or died (the agent's
// type, so a kernel lost under a question is the same error).
type SandboxError = agent.SandboxError

// ModelError is a model server that could not be used: unreachable,
// refusing the key, not knowing the model, rate limiting past the retries
// (test the cause with errors.Is and llm.ErrUnreachable etc.).
type ModelError struct{ Err error }

func (e *ModelError) Error() string { return e.Err.Error() }
func (e *ModelError) Unwrap() error { return e.Err }

// StageError is a generated cell that failed for another reason.
type StageError struct {
	Stage string
	Err   *kernel.ExecError
}

func (e *StageError) Error() string {
	return fmt.Sprintf("stage %s failed: %s: %s", e.Stage, e.Err.Name, e.Err.Value)
}

// pythonPermissionError is the exception Python raises when the file
// system refuses an open (EACCES, EPERM).
const pythonPermissionError = "PermissionError"

// cellError classifies a failed cell of a run of the dataset data.
func cellError(stage, data string, ex *kernel.Execution) error {
	switch {
	case ex.OutOfMemory:
		return &SandboxError{Err: fmt.Errorf("stage %s: %s; or analyse the data out of core with --out-of-core", stage, ex.Cause)}
	case ex.Status == kernel.StatusDied || ex.StateLost:
		return &SandboxError{Err: fmt.Errorf("stage %s: %s", stage, ex.Cause)}
	case ex.Status == kernel.StatusTimeout:
		// The stages' cells are ours, not a model's: one that runs out of
		// time has met a limit of the sandbox, as one out of memory has.
		// A gzip bomb's load either ignores the interrupt past its grace
		// (the kernel is killed: StateLost above) or stops at it with a
		// KeyboardInterrupt; seen rootful and rootless respectively, by
		// timing, not by design: both are this limit.
		return &SandboxError{Err: fmt.Errorf("stage %s: %s did not finish within the cell timeout (stopped after %s); "+
			"compressed data can expand to far more than its size on disk: raise --cell-timeout, or read it chunk by chunk with --out-of-core",
			stage, data, ex.Duration.Round(time.Second))}
	case ex.Error != nil && ex.Error.Name == eda.DataErrorName:
		return &dataset.DataError{Path: data, Msg: ex.Error.Value}
	case ex.Error != nil && ex.Error.Name == pythonPermissionError:
		// The generated cells open nothing but the data: it was made
		// unreadable after the preflight read it.
		return &dataset.DataError{Path: data, Msg: fmt.Sprintf("the kernel was refused reading it (%s): was it made unreadable during the run? "+
			"Check its permissions (chmod a+r) and run again", ex.Error.Value)}
	case ex.Error != nil:
		return &StageError{Stage: stage, Err: ex.Error}
	default:
		return &StageError{Stage: stage, Err: &kernel.ExecError{Name: string(ex.Status), Value: ex.Cause}}
	}
}
