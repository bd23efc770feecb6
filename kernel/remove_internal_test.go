package kernel

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/internal/command"
)

// flakyRm answers podman rm with the given failures, then success.
type flakyRm struct {
	failures []error
	calls    [][]string
}

func (f *flakyRm) Run(_ context.Context, name string, args ...string) ([]byte, error) {
	f.calls = append(f.calls, append([]string{name}, args...))
	if len(f.calls) <= len(f.failures) {
		return nil, f.failures[len(f.calls)-1]
	}
	return nil, nil
}

func (f *flakyRm) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, name, args...)
}

func rmError(stderr string) error {
	return &command.Error{Args: []string{"podman", "rm"}, Stderr: stderr, Err: errors.New("exit status 2")}
}

// Podman 4.3 refuses to kill a container that is stopping on its own
// ("container state improper: stopped", seen in CI closing a kernel whose
// process had just ended): Close asks again instead of failing; any other
// failure is reported at once.
func TestRemoveRetriesTheStoppingRace(t *testing.T) {
	race := rmError(`level=error msg="container not running"
Error: cannot remove container dcba67 as it could not be stopped: sending SIGKILL to container dcba67: container state improper: stopped`)
	f := &flakyRm{failures: []error{race, race}}
	k := &Kernel{runner: f, podman: "podman", name: "analyst-kernel-x"}
	if err := k.remove(); err != nil {
		t.Fatalf("remove after two races: %v", err)
	}
	if len(f.calls) != 3 {
		t.Fatalf("podman rm ran %d times, want 3: %q", len(f.calls), f.calls)
	}

	other := rmError("Error: no such container")
	f = &flakyRm{failures: []error{other}}
	k = &Kernel{runner: f, podman: "podman", name: "analyst-kernel-x"}
	if err := k.remove(); err == nil || !strings.Contains(err.Error(), "no such container") || len(f.calls) != 1 {
		t.Fatalf("remove on another failure: err=%v after %d calls", err, len(f.calls))
	}

	f = &flakyRm{failures: []error{race, race, race, race, race, race, race}}
	k = &Kernel{runner: f, podman: "podman", name: "analyst-kernel-x"}
	if err := k.remove(); err == nil || len(f.calls) != removeRetries+1 {
		t.Fatalf("remove on a race that never ends: err=%v after %d calls", err, len(f.calls))
	}
}
