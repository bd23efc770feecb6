// Package command runs external programs (podman, debootstrap, ...) behind a
// small interface, so that every failure names the exact command line and what
// it printed, and every call has a deadline.
package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// DefaultTimeout bounds a command whose caller gave no deadline of its own.
const DefaultTimeout = 2 * time.Minute

// Runner starts external commands. Production code uses Exec; tests may wrap it
// to record what was run.
type Runner interface {
	// Run runs name with args and returns its standard output.
	Run(ctx context.Context, name string, args ...string) ([]byte, error)
	// Command prepares a long-lived command (for example an interactive
	// container) that the caller starts and waits for itself.
	Command(ctx context.Context, name string, args ...string) *exec.Cmd
}

// Exec is the Runner that runs real processes.
type Exec struct {
	// Timeout applies when ctx has no deadline. Zero means DefaultTimeout.
	Timeout time.Duration
	// Stdin, if set, is given to commands started by Run.
	Stdin io.Reader
	// Env, if set, replaces the environment of started commands.
	Env []string
}

// Run runs the command to completion. The error, if any, is an *Error.
func (e Exec) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	if _, ok := ctx.Deadline(); !ok {
		t := e.Timeout
		if t == 0 {
			t = DefaultTimeout
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t)
		defer cancel()
	}
	cmd := e.Command(ctx, name, args...)
	cmd.Stdin = e.Stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		return stdout.Bytes(), &Error{Args: append([]string{name}, args...), Stderr: stderr.String(), Err: err}
	}
	return stdout.Bytes(), nil
}

// Command returns an *exec.Cmd bound to ctx; WaitDelay keeps a stuck child
// from holding its pipes open forever after ctx ends.
func (e Exec) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = 5 * time.Second
	if e.Env != nil {
		cmd.Env = e.Env
	}
	return cmd
}

// Error is a failed command: the command line a user can paste, what it wrote
// to stderr, and the underlying error.
type Error struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("command failed: %s: %v", Line(e.Args...), e.Err)
	if s := strings.TrimSpace(e.Stderr); s != "" {
		const max = 2000
		if len(s) > max {
			s = "..." + s[len(s)-max:]
		}
		msg += "\n" + s
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// ExitCode returns the exit code of a command that ran and failed, or -1.
func ExitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// Line renders args as a shell command line that can be pasted.
func Line(args ...string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = quote(a)
	}
	return strings.Join(quoted, " ")
}

func quote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@%+", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
