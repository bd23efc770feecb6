package kernel_test

// Each test here tries to break one isolation property of the sandbox.

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/kernel"
)

// jsonCell runs code whose stdout is one JSON document and decodes it.
func jsonCell(t *testing.T, k *kernel.Kernel, code string, v any) {
	t.Helper()
	ex := mustOK(t, k, code)
	if err := json.Unmarshal([]byte(ex.Stdout()), v); err != nil {
		t.Fatalf("decoding %q: %v", ex.Stdout(), err)
	}
}

func token(t *testing.T) string {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

func TestIsolationNoNetwork(t *testing.T) {
	// A server on the host's loopback that records any connection.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- struct{}{}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	k := startKernel(t, nil)

	// First make sure nothing can leave: only the loopback interface exists.
	// Only then try to connect out, so a broken sandbox sends no traffic.
	var ifaces []string
	jsonCell(t, k, "import os, json\nprint(json.dumps(sorted(os.listdir('/sys/class/net'))))", &ifaces)
	if len(ifaces) != 1 || ifaces[0] != "lo" {
		t.Fatalf("network interfaces in the sandbox: %v, want only lo", ifaces)
	}
	var hostAddrs []string
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLoopback() {
				hostAddrs = append(hostAddrs, ipn.IP.String())
			}
		}
	}
	code := fmt.Sprintf(`
import json, socket
res = {}
def attempt(name, fn):
    try:
        fn()
        res[name] = "connected"
    except Exception as e:
        res[name] = type(e).__name__ + ": " + str(e)
attempt("outside", lambda: socket.create_connection(("192.0.2.1", 80), timeout=3))
attempt("dns", lambda: socket.getaddrinfo("example.com", 80))
attempt("host-loopback", lambda: socket.create_connection(("127.0.0.1", %d), timeout=3))
for a in %s:
    attempt("host-" + a, lambda: socket.create_connection((a, %d), timeout=3))
print(json.dumps(res))
`, port, pyList(hostAddrs), port)
	var res map[string]string
	jsonCell(t, k, code, &res)
	if len(res) < 3 {
		t.Fatalf("attempts: %v", res)
	}
	for name, outcome := range res {
		if outcome == "connected" {
			t.Errorf("%s: connected, want failure", name)
		}
		t.Logf("%s: %s", name, outcome)
	}
	select {
	case <-accepted:
		t.Errorf("the host's loopback server accepted a connection from the sandbox")
	default:
	}
}

func pyList(ss []string) string {
	b, _ := json.Marshal(ss)
	return string(b)
}

func TestIsolationHostFilesInvisible(t *testing.T) {
	secret := token(t)
	sentinel := filepath.Join(t.TempDir(), "sentinel.txt")
	if err := os.WriteFile(sentinel, []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	// A second sentinel in the caller's home, under a name nobody else uses.
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	homeSentinel := filepath.Join(home, ".analyst-test-sentinel-"+secret)
	if err := os.WriteFile(homeSentinel, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(homeSentinel) })
	data := writeData(t, "a,b\n1,2\n")
	out := t.TempDir()
	k := startKernel(t, func(o *kernel.Options) { o.Data = data; o.OutputDir = out })

	code := fmt.Sprintf(`
import json, os
paths = [%q, %q, %q]
seen = {p: os.path.exists(p) for p in paths}
mounts = []
for line in open("/proc/self/mountinfo"):
    f = line.split()
    fstype = f[f.index("-") + 1]
    mounts.append([f[4], fstype])
print(json.dumps({"seen": seen, "mounts": mounts, "data": sorted(os.listdir("/data"))}))
`, sentinel, filepath.Dir(sentinel), homeSentinel)
	var res struct {
		Seen   map[string]bool
		Mounts [][2]string
		Data   []string
	}
	jsonCell(t, k, code, &res)
	for p, seen := range res.Seen {
		if seen {
			t.Errorf("host path %s is visible in the sandbox", p)
		}
	}
	if len(res.Data) != 1 || res.Data[0] != filepath.Base(data) {
		t.Errorf("/data holds %v, want only %s", res.Data, filepath.Base(data))
	}
	// Every mount is either a kernel filesystem or one of the shares we made.
	virtual := map[string]bool{"proc": true, "sysfs": true, "tmpfs": true, "devpts": true, "mqueue": true, "cgroup": true, "cgroup2": true, "devtmpfs": true}
	allowed := map[string]bool{"/": true, "/opt/analyst": true, "/etc/resolv.conf": true, "/data/" + filepath.Base(data): true, "/output": true,
		// Files podman writes for this container alone (not host files).
		"/etc/hostname": true, "/etc/passwd": true, "/etc/group": true, "/run/.containerenv": true}
	var shares []string
	for _, m := range res.Mounts {
		point, fstype := m[0], m[1]
		if virtual[fstype] {
			continue
		}
		if !allowed[point] {
			t.Errorf("unexpected mount in the sandbox: %s (%s)", point, fstype)
		}
		shares = append(shares, point)
	}
	sort.Strings(shares)
	t.Logf("non-virtual mounts: %v", shares)

	// The secret is nowhere in what the sandbox can read under / either.
	ex := run(t, k, fmt.Sprintf("import subprocess\nr = subprocess.run(['grep', '-rlsF', %q, '/etc', '/opt', '/tmp', '/data', '/output', '/root', '/home', '/srv', '/mnt', '/var'], capture_output=True, text=True)\nprint(repr(r.stdout))", secret))
	if strings.TrimSpace(ex.Stdout()) != "''" {
		t.Errorf("the secret was found in the sandbox: %s", ex.Stdout())
	}
}

func writeData(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "sales.csv")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func fileSHA(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestIsolationDatasetReadOnly(t *testing.T) {
	data := writeData(t, "region,revenue\nnorth,10\nsouth,20\n")
	before := fileSHA(t, data)
	fi, _ := os.Stat(data)
	out := t.TempDir()
	k := startKernel(t, func(o *kernel.Options) { o.Data = data; o.OutputDir = out })

	code := `
import json, os
p = "/data/sales.csv"
res = {}
def attempt(name, fn):
    try:
        fn()
        res[name] = "allowed"
    except Exception as e:
        res[name] = type(e).__name__ + ": " + str(e)
def append():
    with open(p, "a") as f:
        f.write("evil,1\n")
attempt("append", append)
attempt("truncate", lambda: open(p, "w").close())
attempt("remove", lambda: os.remove(p))
attempt("rename", lambda: os.rename(p, "/data/x.csv"))
attempt("chmod", lambda: os.chmod(p, 0o777))
attempt("create", lambda: open("/data/new.csv", "w").close())
attempt("utime", lambda: os.utime(p, (0, 0)))
print(json.dumps(res))
`
	var res map[string]string
	jsonCell(t, k, code, &res)
	for name, outcome := range res {
		if outcome == "allowed" {
			t.Errorf("%s on /data: allowed, want failure", name)
		}
	}
	// The data is readable, and the output folder is the one writable share.
	ex := mustOK(t, k, "df = pd.read_csv('/data/sales.csv')\nopen('"+outputPath(k)+"/total.txt', 'w').write(str(df.revenue.sum()))\nint(df.revenue.sum())")
	if ex.Text() != "30" {
		t.Errorf("sum = %q", ex.Text())
	}
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
	if after := fileSHA(t, data); after != before {
		t.Errorf("dataset changed: sha256 %s -> %s", before, after)
	}
	if fi2, _ := os.Stat(data); !fi2.ModTime().Equal(fi.ModTime()) || fi2.Mode() != fi.Mode() {
		t.Errorf("dataset metadata changed")
	}
	b, err := os.ReadFile(filepath.Join(out, "total.txt"))
	if err != nil || string(b) != "30" {
		t.Errorf("output file: %q, %v", b, err)
	}
	st, _ := os.Stat(filepath.Join(out, "total.txt"))
	if uid := statUID(st); uid != os.Getuid() {
		t.Errorf("output file owned by uid %d, want the caller %d", uid, os.Getuid())
	}
}

func TestIsolationNoPrivileges(t *testing.T) {
	k := startKernel(t, nil)
	code := `
import ctypes, json, os
status = dict(l.split(":\t", 1) for l in open("/proc/self/status").read().splitlines() if ":\t" in l)
libc = ctypes.CDLL(None, use_errno=True)
os.makedirs("/tmp/m", exist_ok=True)
mount = libc.mount(b"none", b"/tmp/m", b"tmpfs", 0, None)
mount_errno = ctypes.get_errno()
CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000
unshare = libc.unshare(CLONE_NEWUSER | CLONE_NEWNS)
unshare_errno = ctypes.get_errno()
chroot = libc.chroot(b"/tmp")
chroot_errno = ctypes.get_errno()
print(json.dumps({
  "uid": os.getuid(), "euid": os.geteuid(),
  "caps": {k: status[k].strip() for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")},
  "nnp": status["NoNewPrivs"].strip(), "seccomp": status["Seccomp"].strip(),
  "mount": [mount, mount_errno], "unshare": [unshare, unshare_errno], "chroot": [chroot, chroot_errno],
}))
`
	var res struct {
		UID, EUID int
		Caps      map[string]string
		NNP       string
		Seccomp   string
		Mount     [2]int
		Unshare   [2]int
		Chroot    [2]int
	}
	jsonCell(t, k, code, &res)
	if res.UID == 0 || res.EUID == 0 {
		t.Errorf("sandbox runs as uid %d/%d, want non-root", res.UID, res.EUID)
	}
	for name, v := range res.Caps {
		if strings.Trim(v, "0") != "" {
			t.Errorf("%s = %s, want no capabilities", name, v)
		}
	}
	if res.NNP != "1" {
		t.Errorf("NoNewPrivs = %s, want 1", res.NNP)
	}
	if res.Seccomp != "2" {
		t.Errorf("Seccomp = %s, want 2 (filter)", res.Seccomp)
	}
	// EPERM, the refusal, and nothing else: this process has threads, so
	// unshare(CLONE_NEWUSER) would fail with EINVAL even where it is allowed
	// (TestIsolationNoNestedNamespaces tries it from a single-threaded child).
	const eperm = 1
	for name, r := range map[string][2]int{"mount": res.Mount, "unshare(CLONE_NEWUSER|CLONE_NEWNS)": res.Unshare, "chroot": res.Chroot} {
		if r[0] != -1 || r[1] != eperm {
			t.Errorf("%s in the sandbox: returned %d, errno %d; want -1, EPERM", name, r[0], r[1])
		}
	}
	// Seen from the host, the kernel process is not root either.
	out, err := exec.Command("podman", "inspect", "--format", "{{.State.Pid}}", k.Name()).Output()
	if err != nil {
		t.Fatalf("podman inspect: %v", err)
	}
	pid := strings.TrimSpace(string(out))
	uids := hostStatusField(t, pid, "Uid")
	for _, u := range strings.Fields(uids) {
		if u == "0" {
			t.Errorf("kernel process %s runs as root on the host (Uid: %s)", pid, uids)
		}
	}
}

func hostStatusField(t *testing.T, pid, field string) string {
	t.Helper()
	f, err := os.Open("/proc/" + pid + "/status")
	if err != nil {
		t.Fatalf("reading the kernel's status on the host: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("no %s in /proc/%s/status", field, pid)
	return ""
}

func TestIsolationEnvironmentAllowlist(t *testing.T) {
	secret := token(t)
	t.Setenv("ANALYST_TEST_SECRET", secret)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	t.Setenv("OPENAI_API_KEY", secret)
	k := startKernel(t, nil)
	var env map[string]string
	jsonCell(t, k, "import json, os\nprint(json.dumps(dict(os.environ)))", &env)
	allowed := map[string]bool{}
	for _, key := range kernel.EnvironmentKeys() {
		allowed[key] = true
	}
	for key, v := range env {
		if !allowed[key] {
			t.Errorf("variable %s=%q is not on the allowlist", key, v)
		}
		if strings.Contains(v, secret) {
			t.Errorf("secret leaked in %s", key)
		}
	}
	// The driver's own environment too (the cell runs in its process, or a
	// forked session's): without the secret, or unreadable even to itself
	// (the driver's process is not dumpable, so its /proc files are root's).
	ex := mustOK(t, k, "try:\n    print(open('/proc/self/environ', 'rb').read().decode())\nexcept PermissionError as e:\n    print(e.strerror)")
	if strings.Contains(ex.Stdout(), secret) {
		t.Errorf("secret in the kernel process environment")
	}
	if ex.Stdout() == "" {
		t.Errorf("/proc/self/environ: read nothing")
	}
}

func TestResourceMemoryBombCgroup(t *testing.T) {
	base := testOptions(t)
	if !base.CgroupLimits {
		t.Skip("this host does not enforce cgroup memory limits for this user (rootless on cgroup v1); the rlimit path is tested by TestResourceMemoryBombRlimit")
	}
	k := startKernel(t, func(o *kernel.Options) { o.Limits.MemoryBytes = 512 << 20 })
	mustOK(t, k, "x = 1")
	ex := runTimeout(t, k, "hog = []\nwhile True:\n    hog.append(b'x' * (32 << 20))", time.Minute)
	if ex.Status != kernel.StatusDied || !ex.StateLost || !strings.Contains(ex.Cause, "out of memory") {
		t.Fatalf("status %s stateLost %v cause %q", ex.Status, ex.StateLost, ex.Cause)
	}
	if _, err := k.Execute(context.Background(), "x", kernel.ExecOptions{}); err == nil {
		t.Errorf("Execute after the kernel died: want an error")
	}
	assertHostHealthy(t)
}

func TestResourceMemoryBombRlimit(t *testing.T) {
	k := startKernel(t, func(o *kernel.Options) {
		o.CgroupLimits = false // force the driver's rlimit fallback
		o.Limits.MemoryBytes = 1 << 30
	})
	if got := k.RLimits()["as"]; got != float64(1<<30) {
		t.Fatalf("driver rlimit as = %v, want %d", got, 1<<30)
	}
	mustOK(t, k, "x = 1")
	ex := runTimeout(t, k, "hog = []\nwhile True:\n    hog.append(b'x' * (32 << 20))", time.Minute)
	if ex.Status != kernel.StatusError || ex.Error == nil || ex.Error.Name != "MemoryError" {
		t.Fatalf("status %s error %+v cause %q", ex.Status, ex.Error, ex.Cause)
	}
	// The kernel survives a MemoryError with its state.
	if got := mustOK(t, k, "del hog\nx + 1").Text(); got != "2" {
		t.Errorf("after MemoryError: %q", got)
	}
	assertHostHealthy(t)
}

const forkBomb = "import os\nwhile True:\n    os.fork()"

func TestResourceForkBombCgroup(t *testing.T) {
	base := testOptions(t)
	if !base.CgroupLimits {
		t.Skip("this host does not enforce cgroup pids limits for this user (rootless on cgroup v1); the rlimit path is tested by TestResourceForkBombRlimit")
	}
	k := startKernel(t, func(o *kernel.Options) { o.Limits.Pids = 64 })
	checkForkBomb(t, k)
}

func TestResourceForkBombRlimit(t *testing.T) {
	k := startKernel(t, func(o *kernel.Options) {
		o.CgroupLimits = false
		o.Limits.Pids = 64
	})
	if got := k.RLimits()["nproc"]; got != float64(64) {
		t.Fatalf("driver rlimit nproc = %v, want 64", got)
	}
	checkForkBomb(t, k)
}

func checkForkBomb(t *testing.T, k *kernel.Kernel) {
	t.Helper()
	// Every process of the container; in a forked session, those of its
	// process session (the kernel's spare copy comes and goes beside it).
	processes := "import os\nprint(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))"
	if k.Session() != nil {
		processes = "import os\ndef sid(p):\n    try:\n        return os.getsid(p)\n    except OSError:\n        return None\n" +
			"print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit() and sid(int(p)) == os.getsid(0)))"
	}
	before := mustOK(t, k, processes+"\nx = 1").Stdout()
	ex := runTimeout(t, k, forkBomb, 30*time.Second)
	if ex.Status != kernel.StatusError || ex.Error == nil || ex.Error.Name != "BlockingIOError" {
		t.Fatalf("status %s error %+v cause %q", ex.Status, ex.Error, ex.Cause)
	}
	t.Logf("fork bomb stopped: %s: %s; %d stray processes killed", ex.Error.Name, ex.Error.Value, ex.KilledProcesses)
	// Nothing of the bomb is left (the kernel alone; or the session alone in
	// its process session), and the kernel goes on.
	ex = mustOK(t, k, processes+"\nx + 1")
	want := "[1]\n"
	if s := k.Session(); s != nil {
		want = fmt.Sprintf("[%d]\n", s.PID)
	}
	if ex.Stdout() != want || before != want || ex.Text() != "2" {
		t.Errorf("processes before the fork bomb %q, after %q, want %q; x+1 = %q", before, ex.Stdout(), want, ex.Text())
	}
	assertHostHealthy(t)
}

func TestResourceTmpFull(t *testing.T) {
	k := startKernel(t, func(o *kernel.Options) { o.Limits.TmpBytes = 64 << 20 })
	ex := runTimeout(t, k, "with open('/tmp/fill', 'wb') as f:\n    while True:\n        f.write(b'0' * (1 << 20))", time.Minute)
	if ex.Status != kernel.StatusError || ex.Error == nil || !strings.Contains(ex.Error.Value, "No space left") {
		t.Fatalf("status %s error %+v", ex.Status, ex.Error)
	}
	ex = mustOK(t, k, "import os\nsize = os.path.getsize('/tmp/fill')\nos.remove('/tmp/fill')\nsize")
	if n, _ := strconv.Atoi(ex.Text()); n > 64<<20 || n < 32<<20 {
		t.Errorf("filled %s bytes, want about the 64 MiB cap", ex.Text())
	}
}

func TestResourceOutputFlood(t *testing.T) {
	k := startKernel(t, func(o *kernel.Options) {
		o.Limits.StreamBytes = 100_000
		o.Limits.StreamStopBytes = 5_000_000
	})
	ex := runTimeout(t, k, "while True:\n    print('x' * 1000)", time.Minute)
	if ex.Status != kernel.StatusError || ex.Error == nil || ex.Error.Name != "OutputLimitExceeded" {
		t.Fatalf("print flood: status %s error %+v", ex.Status, ex.Error)
	}
	if n := len(ex.Stdout()); n > 100_000 {
		t.Errorf("print flood kept %d bytes of stdout, want at most 100000", n)
	}
	// A flood written straight to the file descriptor by a child process is
	// capped too, and the timeout ends it.
	ex = runTimeout(t, k, "import subprocess\nsubprocess.run(['yes'])", 3*time.Second)
	if ex.Status != kernel.StatusTimeout || ex.StateLost {
		t.Fatalf("fd flood: status %s stateLost %v", ex.Status, ex.StateLost)
	}
	if n := len(ex.Stdout()); n > 100_000 || n == 0 {
		t.Errorf("fd flood kept %d bytes of stdout, want 1..100000", n)
	}
	if !strings.Contains(ex.Stderr(), "output truncated") {
		t.Errorf("no truncation marker after the fd flood")
	}
	if got := mustOK(t, k, "'alive'").Text(); got != "'alive'" {
		t.Errorf("after floods: %q", got)
	}
}

// assertHostHealthy checks the host can still start processes and has memory.
func assertHostHealthy(t *testing.T) {
	t.Helper()
	if out, err := exec.Command("sh", "-c", "echo ok").Output(); err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Errorf("host cannot start a process after the attack: %v", err)
	}
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			kb, _ := strconv.Atoi(strings.Fields(v)[0])
			if kb < 256<<10 {
				t.Errorf("host has only %d kB available after the attack", kb)
			}
		}
	}
}

// A kernel must not change its image: the root filesystem is shared by every
// run, and names of one run's files must not show in the next.
func TestKernelLeavesTheImageUnchanged(t *testing.T) {
	opts := testOptions(t)
	list := func() []string {
		var names []string
		for _, dir := range []string{"data", "run", "output", "opt/analyst", "tmp", "etc"} {
			entries, err := os.ReadDir(filepath.Join(opts.RootFS, dir))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				names = append(names, dir+"/"+e.Name())
			}
		}
		return names
	}
	before := list()
	data := writeData(t, "a\n1\n")
	k := startKernel(t, func(o *kernel.Options) { o.Data = data; o.OutputDir = t.TempDir() })
	mustOK(t, k, "open('/data/sales.csv').read()")
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
	if after := list(); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("the image's folders changed:\nbefore %v\nafter  %v", before, after)
	}
}
