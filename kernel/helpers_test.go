package kernel_test

import (
	"os"
	"sync"
	"syscall"
	"testing"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

func testOptions(t *testing.T) kernel.Options { return kerneltest.Options(t) }

func startKernel(t *testing.T, mod func(*kernel.Options)) *kernel.Kernel {
	if _, ok := inSession.Load(t); ok {
		return startSession(t, mod)
	}
	return kerneltest.Start(t, mod)
}

// inSession holds the tests that run against a forked session instead of a
// kernel (TestForkIsolation): startKernel gives them a session of a fresh
// kernel, with the output folder the test asked for.
var inSession sync.Map // *testing.T -> struct{}

func startSession(t *testing.T, mod func(*kernel.Options)) *kernel.Kernel {
	var out string
	k := kerneltest.Start(t, func(o *kernel.Options) {
		if mod != nil {
			mod(o)
		}
		if out = o.OutputDir; out != "" {
			o.OutputDir = t.TempDir() // the parent's own
		}
	})
	mustOK(t, k, "forked_from = 'the parent'")
	return fork(t, k, kernel.ForkOptions{OutputDir: out})
}

// outputPath is where k's code writes the files to keep: /output, or a
// forked session's /output/NAME.
func outputPath(k *kernel.Kernel) string {
	if s := k.Session(); s != nil {
		return s.OutputPath
	}
	return kernel.OutputMount
}

func statUID(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}
