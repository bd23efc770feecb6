package kernel

import (
	"context"
	"os/exec"
	"strings"
	"testing"
)

// inspectRunner answers podman inspect as podman does for a container the
// kernel's cgroup killed at its memory limit.
type inspectRunner struct{ out string }

func (r inspectRunner) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	return []byte(r.out), nil
}

func (r inspectRunner) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "true")
}

// A kernel killed at its memory limit says which limit, and what to change:
// the flag, the config key and the environment variable.
func TestOutOfMemoryCauseSaysWhatToChange(t *testing.T) {
	exited := make(chan struct{})
	close(exited)
	k := &Kernel{runner: inspectRunner{"true 137\n"}, podman: "podman", exited: exited, stderr: &tailBuffer{max: 100},
		limits: Limits{MemoryBytes: 2 << 30}}
	cause, oom := k.exitCause()
	if !oom {
		t.Errorf("exitCause: not out of memory: %q", cause)
	}
	for _, want := range []string{"the kernel ran out of memory (limit 2 GiB) and was killed", "--memory 4GiB", "kernel.memory", "ANALYST_KERNEL_MEMORY", "half of the host's RAM"} {
		if !strings.Contains(cause, want) {
			t.Errorf("cause lacks %q:\n%s", want, cause)
		}
	}
	k.runner = inspectRunner{"false 1\n"}
	if cause, oom := k.exitCause(); oom || strings.Contains(cause, "memory") {
		t.Errorf("exit 1 reported as out of memory: %q", cause)
	}
}
