package kernel_test

import (
	"os"
	"syscall"
	"testing"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

func testOptions(t *testing.T) kernel.Options { return kerneltest.Options(t) }

func startKernel(t *testing.T, mod func(*kernel.Options)) *kernel.Kernel {
	return kerneltest.Start(t, mod)
}

func statUID(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}
