// Package kerneltest gives tests in any package a real kernel on this host,
// found the way the CLI finds it: the cached image (or ANALYST_TEST_ROOTFS)
// and a probe of podman for the runtime, rootless mode and enforced limits.
package kerneltest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/host"
	"github.com/analyst-cli/analyst/kernel/image"
)

var (
	once sync.Once
	opts kernel.Options
	err  error
)

// Options returns kernel options for this host. In -short mode (make
// test-unit: no podman) the test is skipped; without podman or an image it
// fails.
func Options(t testing.TB) kernel.Options {
	t.Helper()
	if testing.Short() {
		t.Skip("needs podman and the kernel image: not in -short mode (make test-unit)")
	}
	once.Do(func() { opts, err = probe() })
	if err != nil {
		if testing.Short() {
			t.Skipf("needs podman and the kernel image (make kernel): %v", err)
		}
		t.Fatalf("needs podman and the kernel image (make kernel): %v", err)
	}
	return opts
}

// CacheDir is the image cache the tests use: $ANALYST_CACHE_DIR (as the
// CLI reads it, and make sets it for root), else the CLI's default.
func CacheDir() (string, error) {
	if d := os.Getenv("ANALYST_CACHE_DIR"); d != "" {
		return d, nil
	}
	return image.DefaultCacheDir()
}

func probe() (kernel.Options, error) {
	cacheDir, err := CacheDir()
	if err != nil {
		return kernel.Options{}, err
	}
	rootfs := os.Getenv("ANALYST_TEST_ROOTFS")
	if rootfs == "" {
		img, err := image.Lookup(cacheDir, image.DefaultRecipe())
		if err != nil {
			return kernel.Options{}, err
		}
		rootfs = img.RootFS
	}
	info, err := host.Probe(context.Background(), nil, rootfs, cacheDir)
	if err != nil {
		return kernel.Options{}, err
	}
	runtime := info.RuntimePath
	if runtime == "" {
		runtime = info.Runtime
	}
	return kernel.Options{RootFS: rootfs, Runtime: runtime, Rootless: info.Rootless,
		CgroupLimits: info.Enforced.Memory && info.Enforced.Pids}, nil
}

// Start starts a kernel with Options changed by mod (may be nil) and closes
// it when the test ends.
func Start(t testing.TB, mod func(*kernel.Options)) *kernel.Kernel {
	t.Helper()
	o := Options(t)
	if mod != nil {
		mod(&o)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	k, err := kernel.Start(ctx, o)
	if err != nil {
		t.Fatalf("starting kernel: %v", err)
	}
	t.Cleanup(func() {
		if err := k.Close(); err != nil {
			t.Errorf("closing kernel: %v", err)
		}
	})
	return k
}

// RunOnce runs entry in a throw-away sandbox with the isolation, limits and
// mounts of a kernel with opts — the way a fresh-process-per-task agent
// runs code — and returns how long the whole podman run took.
func RunOnce(t testing.TB, opts kernel.Options, entry ...string) time.Duration {
	t.Helper()
	args, cleanup, err := kernel.SandboxArgs(opts, false, entry...)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	start := time.Now()
	if out, err := exec.Command("podman", args...).CombinedOutput(); err != nil {
		t.Fatalf("running %v in a sandbox: %v\n%s", entry, err, out)
	}
	return time.Since(start)
}

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// AnalystBinary builds the analyst command once per test binary (into a
// temporary folder) and returns its path: for benchmarks that time it.
func AnalystBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "analyst-bench-")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "analyst")
		out, err := exec.Command("go", "build", "-o", binary, "github.com/analyst-cli/analyst").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building analyst: %v", buildErr)
	}
	return binary
}

// KernelExec runs `analyst kernel exec --data DATA -c CODE` as a user would
// (the image from ANALYST_CACHE_DIR, as the CLI finds it) and returns how
// long the process took: a cold kernel start, from nothing to the cell's
// result.
func KernelExec(t testing.TB, analyst, data, code string) time.Duration {
	t.Helper()
	cmd := exec.Command(analyst, "kernel", "exec", "--data", data, "-c", code)
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("analyst kernel exec: %v\n%s", err, out)
	}
	return time.Since(start)
}
