package cmd

import (
	"context"
	"errors"
	"fmt"
)

// Exit codes. They are documented in README.md and in `analyst --help`;
// scripts depend on them, so they never change meaning.
const (
	ExitOK          = 0
	ExitFailure     = 1   // the command failed (kernel exec: the code raised)
	ExitUsage       = 2   // bad flags or arguments; outputs in the way (run --force)
	ExitBadData     = 3   // the dataset is missing, unreadable or malformed, or changed during the run
	ExitModel       = 4   // the model server is unreachable or refused us, or its replies never end
	ExitSandbox     = 5   // the sandbox cannot run: podman, runtime, image; the data will not fit in its memory
	ExitBelowTarget = 6   // analyst eval scored below --min-score, or compare found a significant regression
	ExitNoAnswer    = 7   // the run finished, but a question got no answer
	ExitChanges     = 8   // run --baseline --fail-on: a change at that level or above (everything written)
	ExitInterrupted = 130 // SIGINT or SIGTERM
)

const exitCodeHelp = `Exit codes:
  0    success
  1    the command failed (kernel exec: the code raised an error or timed out;
       verify: something differs; replay --data: a recorded cell fails on
       the new data)
  2    usage error: bad flags or arguments, or outputs that would replace
       files no previous run wrote (see analyst run --help: --force)
  3    bad data: the dataset is missing, unreadable or malformed, or it
       changed or became unreadable while the run read it (verify: not the
       run's data)
  4    model error: the model server is unreachable or refused the request,
       or its replies ran on past the completion limit (--max-reply-tokens)
       without ending, again after a request to restate
  5    sandbox error: podman, the OCI runtime or the kernel image is not usable,
       or the data will not fit in the kernel's memory limit (--memory) or
       load within its cell timeout (--cell-timeout) (verify: the recorded
       image is not available)
  6    eval score below --min-score, or a significant regression (eval compare)
  7    no answer: the run finished, but a question got no answer (turn or
       repair bound reached, no clear reply); the reason is printed
  8    changes: analyst run --baseline --fail-on LEVEL found a change at LEVEL
       or above since the baseline; every output was written first
  130  interrupted (Ctrl-C or SIGTERM)`

// ExitError carries an exit code with the error that caused it.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &ExitError{Code: code, Err: err}
}

func usageErrorf(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// silentError ends a command with a code after it has printed its own report.
type silentError struct{ code int }

func (e silentError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// exitCode maps an error from a command to the process exit code.
func exitCode(err error) int {
	var ee *ExitError
	var se silentError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.As(err, &se):
		return se.code
	case errors.As(err, &ee):
		return ee.Code
	default:
		return ExitFailure
	}
}
