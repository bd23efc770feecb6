package kernel_test

import (
	"context"
	"os"
	"sync"
	"syscall"
	"testing"

	"github.com/analyst-cli/analyst/internal/command"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/host"
	"github.com/analyst-cli/analyst/kernel/image"
)

var (
	hostOnce sync.Once
	hostOpts kernel.Options
	hostErr  error
)

// testOptions are the options for a kernel on this host, found the way the
// CLI finds them: the cached image (or ANALYST_TEST_ROOTFS) and a probe of
// podman for the runtime, rootless mode and the limits it enforces.
func testOptions(t *testing.T) kernel.Options {
	t.Helper()
	hostOnce.Do(func() {
		cacheDir, err := image.DefaultCacheDir()
		if err != nil {
			hostErr = err
			return
		}
		rootfs := os.Getenv("ANALYST_TEST_ROOTFS")
		if rootfs == "" {
			img, err := image.Lookup(cacheDir, image.DefaultRecipe())
			if err != nil {
				hostErr = err
				return
			}
			rootfs = img.RootFS
		}
		info, err := host.Probe(context.Background(), command.Exec{}, rootfs, cacheDir)
		if err != nil {
			hostErr = err
			return
		}
		hostOpts = kernel.Options{RootFS: rootfs, Runtime: info.Runtime, Rootless: info.Rootless,
			CgroupLimits: info.Enforced.Memory && info.Enforced.Pids}
	})
	if hostErr != nil {
		if testing.Short() {
			t.Skipf("kernel tests need podman and the kernel image (make kernel): %v", hostErr)
		}
		t.Fatalf("kernel tests need podman and the kernel image (make kernel): %v", hostErr)
	}
	return hostOpts
}

func statUID(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}
