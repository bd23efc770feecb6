package pipeline_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/dataset"
	"github.com/analyst-cli/analyst/pipeline"
)

// A file whose frame will not fit in the memory limit is refused before any
// kernel starts: a *MemoryError that says the file's size, the estimate,
// the limit and what to change; no podman command runs and nothing is
// written.
func TestRunRefusesDataLargerThanMemory(t *testing.T) {
	dir := t.TempDir()
	data := salesCSV(t, dir, 200_000)
	out := filepath.Join(dir, "out")
	opts := options(t, data, out)
	opts.Kernel.Limits.MemoryBytes = 200 << 20
	// Under the default (auto) a CSV that will not fit is read out of core
	// instead: Preflight lets it through.
	if _, _, err := pipeline.Preflight(opts); err != nil {
		t.Fatalf("Preflight with --out-of-core auto: %v, want the run to go out of core", err)
	}
	opts.OutOfCore = pipeline.OutOfCoreOff
	runner := &forbiddenRunner{t: t}
	opts.Kernel.Runner = runner
	res, err := pipeline.Run(context.Background(), opts)
	var memErr *dataset.MemoryError
	if !errors.As(err, &memErr) {
		t.Fatalf("Run: %v, want a *dataset.MemoryError", err)
	}
	msg := err.Error()
	for _, want := range []string{"sales.csv: the data will not fit in the kernel's memory", "the file is 12.", "as a pandas DataFrame it would take about",
		"memory limit of 200 MiB", "--memory 397MiB", "kernel.memory", "ANALYST_KERNEL_MEMORY", "--out-of-core"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if res != nil {
		t.Errorf("a refused run returned a result: %+v", res)
	}
	if runner.calls > 0 {
		t.Errorf("podman ran %d times for a refused run", runner.calls)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused run made its output folder: %v", err)
	}
	// With the limit the message names, the same data passes the check.
	if err := memErr.Estimate; !err.Fits(397 << 20) {
		t.Errorf("the suggested --memory 397MiB does not fit the estimate %+v", err)
	}
}

// forbiddenRunner fails the test if anything runs.
type forbiddenRunner struct {
	t     *testing.T
	calls int
}

func (r *forbiddenRunner) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	r.calls++
	r.t.Errorf("ran %s %v", name, args)
	return nil, errors.New("forbidden")
}

func (r *forbiddenRunner) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	r.calls++
	r.t.Errorf("started %s %v", name, args)
	return exec.CommandContext(ctx, "false")
}
