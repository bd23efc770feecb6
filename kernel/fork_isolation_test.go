package kernel_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/analyst-cli/analyst/kernel"
)

// The sandbox's attack tests, each run against a forked session of a fresh
// kernel instead of the kernel: what a session's code can do is what the
// kernel's can (startKernel gives these tests a session, see inSession). The
// memory bombs are not among them: a session has a cap of its own
// (TestForkSessionMemoryIsBounded).
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
		{"SocketFamilies", TestIsolationSocketFamilies},
		{"ProcCmdlineMasked", TestIsolationProcCmdlineMasked},
		{"ForkBombCgroup", TestResourceForkBombCgroup},
		{"ForkBombRlimit", TestResourceForkBombRlimit},
		{"TmpFull", TestResourceTmpFull},
		{"TmpFilesCapped", TestResourceTmpFilesCapped},
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
	if ex.Error == nil || !strings.Contains(ex.Error.Value, "output folder full (limit 96 MiB): /output/a/two.bin (60 MiB) was not copied out") {
		t.Errorf("a session over its budget: %+v", ex.Error)
	}
	// A sibling has a budget of its own (the tmpfs is shared: a's file goes first).
	mustOK(t, a, "os.remove('/output/a/two.bin')")
	mustOK(t, b, "open('/output/b/one.bin', 'wb').write(b'1' * (60 << 20))")
	if fi, err := os.Stat(filepath.Join(bOut, "one.bin")); err != nil || fi.Size() != 60<<20 {
		t.Errorf("the sibling's 60 MiB: %v %v", fi, err)
	}
}

// Out of memory in a session past its own cap: a session's address space is
// capped (TestForkSessionMemoryIsBounded), but pages it shares with the
// kernel and writes to are copied without growing it. The container's
// limit holds for the kernel and its sessions together; the session is the
// one killed, and says so, while the kernel keeps its state.
func TestForkOutOfMemoryKillsTheSession(t *testing.T) {
	if !testOptions(t).CgroupLimits {
		t.Skip("this host does not enforce cgroup memory limits for this user (rootless on cgroup v1): each process has its own rlimit, tested by TestForkSessionMemoryIsBounded")
	}
	k := startKernel(t, func(o *kernel.Options) { o.Limits.MemoryBytes = 768 << 20 })
	mustOK(t, k, "kept = np.ones(56 << 20)  # 448 MiB the session shares")
	s := fork(t, k, kernel.ForkOptions{})
	ex := runTimeout(t, s, "kept += 1  # every shared page copied", time.Minute)
	const want = "the kernel and its forked sessions ran out of memory together (limit 768 MiB) and this session was killed; " +
		"its state is lost, the kernel and its other sessions keep theirs. "
	if ex.Status != kernel.StatusDied || !ex.OutOfMemory || !strings.HasPrefix(ex.Cause, want) || !strings.Contains(ex.Cause, "--memory") {
		t.Fatalf("status %s oom %v cause %q", ex.Status, ex.OutOfMemory, ex.Cause)
	}
	if got := mustOK(t, k, "int(kept.sum())").Text(); got != "58720256" {
		t.Errorf("the kernel after the session ran out of memory: %s", got)
	}
}

// processAttack tries, from inside the sandbox, to reach into other
// processes of the same user: write access to their memory
// (/proc/PID/mem), a listing of their descriptors, and a copy of each of
// their descriptors (pidfd_getfd: the kernel's protocol pipe would let a
// session speak for the kernel and for every session). TARGETS names the
// processes; each outcome is "opened", "listed", "stole [fds]" or the errno's
// name.
const processAttack = `
import ctypes, errno, json, os
libc = ctypes.CDLL(None, use_errno=True)
SYS_pidfd_open, SYS_pidfd_getfd = 434, 438
name = lambda e: errno.errorcode.get(e, str(e))
res = {}
for target, pid in TARGETS.items():
    try:
        open('/proc/%d/mem' % pid, 'r+b').close()
        res[target + ' mem'] = 'opened'
    except OSError as e:
        res[target + ' mem'] = name(e.errno)
    try:
        os.listdir('/proc/%d/fd' % pid)
        res[target + ' fds'] = 'listed'
    except OSError as e:
        res[target + ' fds'] = name(e.errno)
    pidfd = libc.syscall(SYS_pidfd_open, pid, 0)
    if pidfd < 0:
        res[target + ' pidfd_getfd'] = 'pidfd_open: ' + name(ctypes.get_errno())
        continue
    stolen, errors = [], set()
    for fd in range(64):
        got = libc.syscall(SYS_pidfd_getfd, pidfd, fd, 0)
        if got >= 0:
            stolen.append(fd)
            os.close(got)
        else:
            errors.add(name(ctypes.get_errno()))
    os.close(pidfd)
    res[target + ' pidfd_getfd'] = 'stole %s' % stolen if stolen else ','.join(sorted(errors))
print(json.dumps(res))
`

// A session's code, and a process it starts, cannot reach into the kernel's
// process or a sibling's: their memory, their descriptors (the kernel's
// protocol pipe among them) are refused, so a session cannot change the state
// later sessions are forked from, nor speak for them. A session can still
// kill a sibling, which runs as the same user (the README says so).
func TestForkSessionCannotReachOtherProcesses(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the attack uses x86-64 system call numbers")
	}
	k := startKernel(t, nil)
	mustOK(t, k, "secret = 'the parent'")
	sibling := fork(t, k, kernel.ForkOptions{Name: "sibling"})
	attacker := fork(t, k, kernel.ForkOptions{Name: "attacker"})
	script := fmt.Sprintf("TARGETS = {'kernel': 1, 'sibling': %d}\n", sibling.Session().PID) + processAttack
	want := map[string]string{
		"kernel mem": "EACCES", "kernel fds": "EACCES", "kernel pidfd_getfd": "EPERM",
		"sibling mem": "EACCES", "sibling fds": "EACCES", "sibling pidfd_getfd": "EPERM",
	}
	for from, code := range map[string]string{"the session": script, "a process it started": childPython(script)} {
		var got map[string]string
		jsonCell(t, attacker, code, &got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("from %s (-want +got):\n%s", from, diff)
		}
	}
	for name, s := range map[string]*kernel.Kernel{"the kernel": k, "the sibling": sibling} {
		if got := mustOK(t, s, "secret").Text(); got != "'the parent'" {
			t.Errorf("%s after the attack: secret = %s", name, got)
		}
	}
	// Not dumpable, a process cannot open its own oom_score_adj: the session
	// is still the one the memory limit kills first.
	const score = "int(open('/proc/self/oom_score_adj').read())"
	kernelScore, _ := strconv.Atoi(mustOK(t, k, score).Text())
	if got, want := mustOK(t, attacker, score).Text(), strconv.Itoa(min(1000, max(kernelScore, 0)+500)); got != want {
		t.Errorf("the session's oom_score_adj is %s, want %s (the kernel's %d + 500)", got, want, kernelScore)
	}
	if got := mustOK(t, k, score).Text(); got != strconv.Itoa(kernelScore) {
		t.Errorf("the kernel's oom_score_adj moved from %d to %s", kernelScore, got)
	}
	// Signals: the kernel, the container's first process, does not die of
	// them; a sibling does (same user): the limit of this isolation.
	mustOK(t, attacker, fmt.Sprintf("import os, signal\nfor sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT):\n    os.kill(1, sig)\nos.kill(%d, signal.SIGKILL)", sibling.Session().PID))
	if got := mustOK(t, k, "secret").Text(); got != "'the parent'" {
		t.Errorf("the kernel after signals from a session: secret = %s", got)
	}
	if ex := run(t, sibling, "secret"); ex.Status != kernel.StatusDied || ex.Cause != "the forked session was killed by signal 9; its state is lost" {
		t.Errorf("the sibling after a SIGKILL from a session: status %s, cause %q", ex.Status, ex.Cause)
	}
}
