package kernel_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/kernel"
)

// The sandbox's attack tests, each run against a forked session of a fresh
// kernel instead of the kernel: what a session's code can do is what the
// kernel's can (startKernel gives these tests a session, see inSession).
func TestForkIsolation(t *testing.T) {
	for _, test := range []struct {
		name string
		run  func(*testing.T)
	}{
		{"NoNetwork", TestIsolationNoNetwork},
		{"HostFilesInvisible", TestIsolationHostFilesInvisible},
		{"DatasetReadOnly", TestIsolationDatasetReadOnly},
		{"NoPrivileges", TestIsolationNoPrivileges},
		{"EnvironmentAllowlist", TestIsolationEnvironmentAllowlist},
		{"NoNestedNamespaces", TestIsolationNoNestedNamespaces},
		{"MemoryBombCgroup", TestResourceMemoryBombCgroup},
		{"MemoryBombRlimit", TestResourceMemoryBombRlimit},
		{"ForkBombCgroup", TestResourceForkBombCgroup},
		{"ForkBombRlimit", TestResourceForkBombRlimit},
		{"TmpFull", TestResourceTmpFull},
		{"OutputFlood", TestResourceOutputFlood},
	} {
		t.Run(test.name, func(t *testing.T) {
			inSession.Store(t, struct{}{})
			t.Cleanup(func() { inSession.Delete(t) })
			test.run(t)
		})
	}
}

// A session writes only to /tmp and /output (read-only elsewhere, as the
// kernel); what it keeps is what it writes under /output/NAME, within a
// copy-out budget of its own; a file written directly in /output is not
// copied, and the cell says so.
func TestForkOutputOfASession(t *testing.T) {
	k := startKernel(t, func(o *kernel.Options) {
		o.OutputDir = t.TempDir()
		o.Limits.OutputBytes = 96 << 20
	})
	aOut, bOut := t.TempDir(), t.TempDir()
	a := fork(t, k, kernel.ForkOptions{Name: "a", OutputDir: aOut})
	b := fork(t, k, kernel.ForkOptions{Name: "b", OutputDir: bOut})

	var res map[string]string
	jsonCell(t, a, `
import json
res = {}
for path in ["/x", "/etc/x", "/usr/x", "/opt/analyst/x", "/data/x", "/var/x"]:
    try:
        open(path, "w").write("x")
        res[path] = "written"
    except OSError as e:
        res[path] = e.strerror
print(json.dumps(res))`, &res)
	for path, got := range res {
		if got != "Read-only file system" {
			t.Errorf("writing %s from a session: %s, want Read-only file system", path, got)
		}
	}

	ex := run(t, a, "open('/output/loose.txt', 'w').write('x')\nopen('/output/a/kept.txt', 'w').write('x')")
	if !strings.Contains(ex.Stderr(), "[analyst: not copied out: /output/loose.txt, written directly in /output; this forked session keeps the files it writes under /output/a]") {
		t.Errorf("a file written directly in /output: stderr %q, want the note", ex.Stderr())
	}
	if got := listFiles(t, aOut); strings.Join(got, " ") != "kept.txt" {
		t.Errorf("the session's folder holds %v, want kept.txt", got)
	}

	// The budget is the session's: 60 MiB, then another 60 MiB, is over it.
	mustOK(t, a, "open('/output/a/one.bin', 'wb').write(b'1' * (60 << 20))")
	ex = run(t, a, "import os\nos.remove('/output/a/one.bin')\nopen('/output/a/two.bin', 'wb').write(b'2' * (60 << 20))")
	if ex.Error == nil || !strings.Contains(ex.Error.Value, "output folder full (limit 96 MiB): /output/a/two.bin was not copied out") {
		t.Errorf("a session over its budget: %+v", ex.Error)
	}
	// A sibling has a budget of its own (the tmpfs is shared: a's file goes first).
	mustOK(t, a, "os.remove('/output/a/two.bin')")
	mustOK(t, b, "open('/output/b/one.bin', 'wb').write(b'1' * (60 << 20))")
	if fi, err := os.Stat(filepath.Join(bOut, "one.bin")); err != nil || fi.Size() != 60<<20 {
		t.Errorf("the sibling's 60 MiB: %v %v", fi, err)
	}
}

// Out of memory in a session: the container's limit holds for the kernel and
// its sessions together; the session is the one killed, and says so, while
// the kernel and a sibling keep their state.
func TestForkOutOfMemoryKillsTheSession(t *testing.T) {
	if !testOptions(t).CgroupLimits {
		t.Skip("this host does not enforce cgroup memory limits for this user (rootless on cgroup v1): each process has its own rlimit, tested by TestForkIsolation/MemoryBombRlimit")
	}
	k := startKernel(t, func(o *kernel.Options) { o.Limits.MemoryBytes = 768 << 20 })
	mustOK(t, k, "kept = np.ones(8 << 20)  # 64 MiB the sessions share")
	sibling := fork(t, k, kernel.ForkOptions{})
	s := fork(t, k, kernel.ForkOptions{})
	ex := runTimeout(t, s, "hog = []\nwhile True:\n    hog.append(np.ones(4 << 20))", time.Minute)
	if ex.Status != kernel.StatusDied || !ex.OutOfMemory || !strings.Contains(ex.Cause, "the kernel ran out of memory (limit 768 MiB)") ||
		!strings.Contains(ex.Cause, "this session was the one killed") {
		t.Fatalf("status %s oom %v cause %q", ex.Status, ex.OutOfMemory, ex.Cause)
	}
	for name, k := range map[string]*kernel.Kernel{"the kernel": k, "the sibling": sibling} {
		if got := mustOK(t, k, "int(kept.sum())").Text(); got != "8388608" {
			t.Errorf("%s after the session ran out of memory: %s", name, got)
		}
	}
}
