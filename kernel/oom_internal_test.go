package kernel

import (
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/internal/meminfo"
	"github.com/analyst-cli/analyst/internal/units"
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

// The hint suggests a limit that fits the host and says what the host has:
// on a 24 GiB host with the default limit (12 GiB), twice the limit would be
// all of its RAM.
func TestOutOfMemoryHintFitsTheHost(t *testing.T) {
	for _, tt := range []struct {
		limit, host int64
		want        []string
		not         string
	}{
		{2 << 30, 0, []string{"(limit 2 GiB)", "--memory 4GiB"}, "this host has"},
		{12 << 30, 24 << 30, []string{"(limit 12 GiB)", "--memory 18GiB", "this host has 24 GiB of RAM"}, "24GiB"},
		{23 << 29, 23 << 30, []string{"--memory 17GiB", "this host has 23 GiB of RAM"}, "23GiB"},
		{18 << 30, 24 << 30, []string{"This host has 24 GiB of RAM: a limit above 18 GiB would leave too little", "--out-of-core"}, "--memory"},
		{1 << 30, 8 << 30, []string{"--memory 2GiB", "this host has 8 GiB"}, ""},
	} {
		got := OutOfMemoryMessage(tt.limit, tt.host)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("limit %d, host %d: lacks %q:\n%s", tt.limit, tt.host, w, got)
			}
		}
		if tt.not != "" && strings.Contains(got, tt.not) {
			t.Errorf("limit %d, host %d: says %q:\n%s", tt.limit, tt.host, tt.not, got)
		}
	}
}

// On this host, with the default limit (half its RAM), the cause of a
// kernel killed at the limit suggests a limit that leaves the host a
// quarter of its RAM, and says how much it has.
func TestOutOfMemoryCauseFitsThisHost(t *testing.T) {
	in, err := meminfo.Read()
	if err != nil {
		t.Skip("no /proc/meminfo")
	}
	exited := make(chan struct{})
	close(exited)
	k := &Kernel{runner: inspectRunner{"true 137\n"}, podman: "podman", exited: exited, stderr: &tailBuffer{max: 100},
		limits: Limits{MemoryBytes: DefaultMemoryBytes()}}
	cause, _ := k.exitCause()
	m := regexp.MustCompile(`--memory (\d+)GiB`).FindStringSubmatch(cause)
	if !strings.Contains(cause, "this host has "+units.Bytes(in.Total)+" of RAM") {
		t.Errorf("the cause does not say what the host has (%s):\n%s", units.Bytes(in.Total), cause)
	}
	if m != nil {
		if n, _ := strconv.ParseInt(m[1], 10, 64); n<<30 > in.Total*3/4 {
			t.Errorf("suggests --memory %sGiB on a host with %s of RAM:\n%s", m[1], units.Bytes(in.Total), cause)
		}
	}
}
