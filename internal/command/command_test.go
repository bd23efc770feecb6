package command

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestLine(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"podman", "run", "--rm"}, "podman run --rm"},
		{[]string{"python3", "-c", "print('hi')"}, `python3 -c 'print('\''hi'\'')'`},
		{[]string{"echo", ""}, "echo ''"},
		{[]string{"a b"}, "'a b'"},
	}
	for _, tt := range tests {
		if got := Line(tt.args...); got != tt.want {
			t.Errorf("Line(%q) = %s, want %s", tt.args, got, tt.want)
		}
	}
}

func TestRunErrorCarriesCommandAndStderr(t *testing.T) {
	_, err := Exec{}.Run(context.Background(), "sh", "-c", "echo boom >&2; exit 3")
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want *Error", err)
	}
	if !strings.Contains(err.Error(), "sh -c 'echo boom >&2; exit 3'") || !strings.Contains(err.Error(), "boom") {
		t.Errorf("error text lacks command line or stderr: %q", err)
	}
	if got := ExitCode(err); got != 3 {
		t.Errorf("ExitCode = %d, want 3", got)
	}
}

// The timeout kills the command (the mechanism, not the time it took: a
// loaded machine makes any wall-clock bound flaky).
func TestRunTimeout(t *testing.T) {
	_, err := Exec{Timeout: 200 * time.Millisecond}.Run(context.Background(), "sleep", "10")
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	if !strings.Contains(err.Error(), "signal: killed") {
		t.Errorf("err = %v: the command was not killed at the deadline", err)
	}
}

func TestRunOutput(t *testing.T) {
	out, err := Exec{}.Run(context.Background(), "printf", "ok")
	if err != nil || string(out) != "ok" {
		t.Fatalf("Run = %q, %v", out, err)
	}
}
