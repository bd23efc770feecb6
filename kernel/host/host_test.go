package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/internal/command"
	"github.com/analyst-cli/analyst/kernel/image"
)

// childProbeEnv makes the test binary run one pair of probes and print them
// as JSON instead of testing: TestProbeRootless runs it as another user.
const childProbeEnv = "ANALYST_HOST_TEST_PROBE"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childProbeEnv); spec != "" {
		rootfs, cacheDir, _ := strings.Cut(spec, ",")
		var res [2]*Info
		for i := range res {
			info, err := Probe(context.Background(), command.Exec{}, rootfs, cacheDir)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			res[i] = info
		}
		json.NewEncoder(os.Stdout).Encode(res)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// testRootFS is a real kernel image to start trial containers in:
// ANALYST_TEST_ROOTFS (make test sets it), else the default image if it
// is built.
func testRootFS(t *testing.T) string {
	t.Helper()
	needPodman(t)
	if p := os.Getenv("ANALYST_TEST_ROOTFS"); p != "" {
		return p
	}
	cache := os.Getenv("ANALYST_CACHE_DIR") // as kerneltest.CacheDir, which imports this package
	if cache == "" {
		cache, _ = image.DefaultCacheDir()
	}
	if cache != "" {
		if im, err := image.Lookup(cache, image.DefaultRecipe()); err == nil {
			return im.RootFS
		}
	}
	t.Fatal("runtime probes need a kernel image: set ANALYST_TEST_ROOTFS or build it (analyst kernel build; make test does)")
	return ""
}

// needPodman keeps -short runs (make test-unit) free of podman.
func needPodman(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts podman; run without -short")
	}
}

// recorder is the real command.Exec that also notes what it ran.
type recorder struct {
	command.Exec
	mu    sync.Mutex
	calls [][]string
}

func (r *recorder) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	r.mu.Lock()
	r.calls = append(r.calls, append([]string{name}, args...))
	r.mu.Unlock()
	return r.Exec.Run(ctx, name, args...)
}

// containerRuns counts the podman run commands recorded.
func (r *recorder) containerRuns() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.calls {
		if c[0] == "podman" && slices.Contains(c, "run") {
			n++
		}
	}
	return n
}

// hostCgroupVersion asks the kernel, not podman: cgroup2 mounted at
// /sys/fs/cgroup means v2; anything else (tmpfs of v1 hierarchies, hybrid
// included) means v1.
func hostCgroupVersion(t *testing.T) string {
	var st syscall.Statfs_t
	if err := syscall.Statfs("/sys/fs/cgroup", &st); err != nil {
		t.Fatal(err)
	}
	if st.Type == 0x63677270 { // CGROUP2_SUPER_MAGIC
		return "v2"
	}
	return "v1"
}

// hostHasController asks the kernel whether root's cgroups have controller
// c available.
func hostHasController(t *testing.T, version, c string) bool {
	if version == "v1" {
		_, err := os.Stat(filepath.Join("/sys/fs/cgroup", c))
		return err == nil
	}
	b, err := os.ReadFile("/sys/fs/cgroup/cgroup.controllers")
	if err != nil {
		t.Fatal(err)
	}
	return slices.Contains(strings.Fields(string(b)), c)
}

// works starts a trial container with the runtime at path, independently
// of Probe.
func works(t *testing.T, path, rootfs string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := command.Exec{}.Run(ctx, "podman", probeArgs(path, rootfs)...)
	return err
}

func TestProbe(t *testing.T) {
	rootfs := testRootFS(t)
	cache := t.TempDir()
	rec := &recorder{}
	ctx := context.Background()
	info, err := Probe(ctx, rec, rootfs, cache)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", *info)

	out, err := command.Exec{}.Run(ctx, "podman", "version", "--format", "{{.Client.Version}}")
	if err != nil {
		t.Fatal(err)
	}
	if info.PodmanVersion == "" || info.PodmanVersion != strings.TrimSpace(string(out)) {
		t.Errorf("PodmanVersion = %q, podman version says %q", info.PodmanVersion, out)
	}
	me, _ := user.Current()
	if info.UID != os.Geteuid() || info.User != me.Username || info.Rootless != (os.Geteuid() != 0) {
		t.Errorf("UID %d User %q Rootless %v; running as %d (%s)", info.UID, info.User, info.Rootless, os.Geteuid(), me.Username)
	}
	version := hostCgroupVersion(t)
	if info.CgroupVersion != version {
		t.Errorf("CgroupVersion = %q, the host has %s", info.CgroupVersion, version)
	}
	switch {
	case info.Rootless && version == "v1":
		if info.Enforced != (Enforcement{}) {
			t.Errorf("rootless on cgroup v1: Enforced = %+v, want nothing", info.Enforced)
		}
	case !info.Rootless:
		want := Enforcement{
			Memory: hostHasController(t, version, "memory"),
			Pids:   hostHasController(t, version, "pids"),
			CPU:    hostHasController(t, version, "cpu"),
		}
		if info.Enforced != want {
			t.Errorf("Enforced = %+v, the host's controllers give %+v", info.Enforced, want)
		}
	}
	if os.Geteuid() == 0 && !info.SubIDs {
		t.Error("SubIDs false for root")
	}

	// The chosen runtime starts containers; every one preferred to it was
	// tried and failed.
	if info.Runtime == "" || !info.RuntimeVerified || info.RuntimeCached {
		t.Fatalf("Runtime %q verified %v cached %v; errors %v", info.Runtime, info.RuntimeVerified, info.RuntimeCached, info.RuntimeErrors)
	}
	if err := works(t, info.RuntimePath, rootfs); err != nil {
		t.Errorf("the chosen runtime does not start a container: %v", err)
	}
	for _, k := range knownRuntimes {
		if k.name == info.Runtime {
			break
		}
		if info.RuntimeErrors[k.name] == "" {
			t.Errorf("%s is preferred to %s but has no failure recorded", k.name, info.Runtime)
		}
	}
	if findBinary("crun") == "" && !strings.Contains(info.RuntimeErrors["crun"], "not installed") {
		t.Errorf("crun is not installed; RuntimeErrors[crun] = %q", info.RuntimeErrors["crun"])
	}
	if rec.containerRuns() == 0 {
		t.Error("no trial container was started")
	}

	// Second probe: the choice comes from the cache, no container started.
	rec2 := &recorder{}
	start := time.Now()
	info2, err := Probe(ctx, rec2, rootfs, cache)
	if err != nil {
		t.Fatal(err)
	}
	if n := rec2.containerRuns(); n != 0 || !info2.RuntimeCached {
		t.Errorf("second probe started %d containers, cached %v; want the cache used", n, info2.RuntimeCached)
	}
	info2.RuntimeCached = false
	if fmt.Sprint(*info2) != fmt.Sprint(*info) {
		t.Errorf("second probe differs:\n%+v\n%+v", *info2, *info)
	}
	t.Logf("cached probe took %v", time.Since(start).Round(time.Millisecond))

	// A cache written for another podman is not used.
	path := cachePath(cache)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cf cacheFile
	if err := json.Unmarshal(b, &cf); err != nil {
		t.Fatal(err)
	}
	cf.Key.PodmanVersion = "0.0.1"
	if err := writeCache(path, cf); err != nil {
		t.Fatal(err)
	}
	rec3 := &recorder{}
	info3, err := Probe(ctx, rec3, rootfs, cache)
	if err != nil {
		t.Fatal(err)
	}
	if rec3.containerRuns() == 0 || info3.RuntimeCached || info3.Runtime != info.Runtime {
		t.Errorf("probe with a stale cache: %d containers, cached %v, runtime %q", rec3.containerRuns(), info3.RuntimeCached, info3.Runtime)
	}
}

func TestProbeCandidates(t *testing.T) {
	rootfs := testRootFS(t)
	real, err := Probe(context.Background(), command.Exec{}, rootfs, "")
	if err != nil {
		t.Fatal(err)
	}
	if real.Runtime == "" {
		t.Fatalf("no working runtime on this host: %v", real.RuntimeErrors)
	}
	// A runtime binary that exists and refuses, as crun does under hybrid
	// cgroups.
	broken := filepath.Join(t.TempDir(), "crun")
	script := "#!/bin/sh\necho 'crun: cgroups in hybrid mode not supported (test stand-in)' >&2\nexit 1\n"
	if err := os.WriteFile(broken, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		cands    []candidate
		want     string // chosen runtime name
		wantErrs map[string]string
	}{
		{"crun not installed", []candidate{{"crun", ""}, {real.Runtime + "-real", real.RuntimePath}},
			real.Runtime + "-real", map[string]string{"crun": "not installed"}},
		{"crun installed but failing", []candidate{{"crun", broken}, {real.Runtime + "-real", real.RuntimePath}},
			real.Runtime + "-real", map[string]string{"crun": "hybrid mode not supported"}},
		{"the first that works wins", []candidate{{"first", real.RuntimePath}, {"crun", broken}},
			"first", nil},
		{"none works", []candidate{{"crun", ""}, {"runc", broken}},
			"", map[string]string{"crun": "not installed", "runc": "hybrid mode not supported"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cache := t.TempDir()
			info, err := probe(context.Background(), command.Exec{}, rootfs, cache, tt.cands)
			if err != nil {
				t.Fatal(err)
			}
			if info.Runtime != tt.want || info.RuntimeVerified != (tt.want != "") {
				t.Errorf("Runtime = %q (verified %v), want %q", info.Runtime, info.RuntimeVerified, tt.want)
			}
			if len(info.RuntimeErrors) != len(tt.wantErrs) {
				t.Errorf("RuntimeErrors = %q, want entries for %v", info.RuntimeErrors, tt.wantErrs)
			}
			for name, want := range tt.wantErrs {
				if got := info.RuntimeErrors[name]; !strings.Contains(got, want) || strings.Contains(got, "\n") {
					t.Errorf("RuntimeErrors[%s] = %q, want one line containing %q", name, got, want)
				}
			}
			_, err = os.Stat(cachePath(cache))
			if cached := err == nil; cached != (tt.want != "") {
				t.Errorf("cache file written = %v; only a success is cached", cached)
			}
		})
	}
}

func TestProbeWithoutRootFS(t *testing.T) {
	needPodman(t)
	rec := &recorder{}
	info, err := Probe(context.Background(), rec, "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out, err := command.Exec{}.Run(context.Background(), "podman", "info", "--format", "{{.Host.OCIRuntime.Name}}")
	if err != nil {
		t.Fatal(err)
	}
	if info.Runtime != strings.TrimSpace(string(out)) || info.RuntimeVerified || rec.containerRuns() != 0 {
		t.Errorf("Runtime %q verified %v, %d containers; want podman's default %q, unverified, none started",
			info.Runtime, info.RuntimeVerified, rec.containerRuns(), out)
	}
}

func TestProbeMissingRootFS(t *testing.T) {
	needPodman(t)
	_, err := Probe(context.Background(), command.Exec{}, filepath.Join(t.TempDir(), "nope"), "")
	if err == nil || !strings.Contains(err.Error(), "root filesystem") {
		t.Errorf("Probe with a missing rootfs = %v", err)
	}
}

// noPodman is the real Exec on a host where podman's name resolves to
// nothing.
type noPodman struct{ command.Exec }

func (n noPodman) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	if name == "podman" {
		name = "analyst-test-no-such-podman"
	}
	return n.Exec.Run(ctx, name, args...)
}

func TestProbePodmanMissing(t *testing.T) {
	_, err := Probe(context.Background(), noPodman{}, "", "")
	if err == nil || !strings.Contains(err.Error(), "podman not found: install it with: apt-get install -y podman runc uidmap") {
		t.Errorf("Probe without podman = %v", err)
	}
}

func TestEnforcement(t *testing.T) {
	all := []string{"cpuset", "cpu", "cpuacct", "blkio", "memory", "devices", "freezer", "pids"}
	tests := []struct {
		version     string
		rootless    bool
		controllers []string
		want        Enforcement
	}{
		{"v1", false, all, Enforcement{true, true, true}},
		{"v1", true, nil, Enforcement{}},
		{"v1", true, all, Enforcement{}}, // ignored by podman whatever it lists
		{"v2", true, []string{"memory", "pids"}, Enforcement{Memory: true, Pids: true}},
		{"v2", false, []string{"cpuset", "cpu", "io", "memory", "hugetlb", "pids"}, Enforcement{true, true, true}},
		{"v2", true, []string{"cpuset"}, Enforcement{}},
	}
	for _, tt := range tests {
		if got := enforcement(tt.version, tt.rootless, tt.controllers); got != tt.want {
			t.Errorf("enforcement(%s, rootless %v, %v) = %+v, want %+v", tt.version, tt.rootless, tt.controllers, got, tt.want)
		}
	}
}

func TestParseSubIDs(t *testing.T) {
	const content = "alice:100000:65536\n1002:165536:65536\nbob:231072:0\n"
	tests := []struct {
		name string
		uid  int
		want bool
	}{
		{"alice", 1001, true},
		{"carol", 1002, true}, // listed by uid
		{"bob", 1003, false},  // empty range
		{"dave", 1004, false},
	}
	for _, tt := range tests {
		if got := parseSubIDs(content, tt.name, tt.uid); got != tt.want {
			t.Errorf("parseSubIDs(%s, %d) = %v, want %v", tt.name, tt.uid, got, tt.want)
		}
	}
}

func TestWhy(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&command.Error{Stderr: "time=\"x\" level=warning msg=\"w\"\nError: default OCI runtime \"crun\" not found: invalid argument\n", Err: errors.New("exit status 125")},
			`default OCI runtime "crun" not found: invalid argument`},
		{&command.Error{Stderr: "\nfake runtime refuses\nmore\n", Err: errors.New("exit status 126")}, "fake runtime refuses"},
		{&command.Error{Err: errors.New("exit status 1")}, "exit status 1"},
		{errors.New("one\ntwo"), "one"},
	}
	for _, tt := range tests {
		if got := why(tt.err); got != tt.want {
			t.Errorf("why(%q) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// TestProbeRootless runs the probe as an unprivileged user (with su): on
// this project's hosts rootless podman is the normal case, and on cgroup
// v1 it enforces no limits, which the kernel must know.
func TestProbeRootless(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("already running rootless: TestProbe covers it")
	}
	name := os.Getenv("ANALYST_TEST_ROOTLESS_USER")
	if name == "" {
		name = "rl"
	}
	u, err := user.Lookup(name)
	if err != nil {
		msg := fmt.Sprintf("needs a user with /etc/subuid and /etc/subgid ranges: %v (create one with: useradd -m %s, or set ANALYST_TEST_ROOTLESS_USER)", err, name)
		if testing.Short() {
			t.Skip(msg)
		}
		t.Fatal(msg)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	rootfs := testRootFS(t)

	// The user may not reach the image (it is often under /root), and a
	// bind mount made now would not show in the mount namespace rootless
	// podman keeps: give them a hard-linked copy (a full copy across file
	// systems).
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for p := filepath.Dir(dir); p != "/"; p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o001 == 0 {
			os.Chmod(p, fi.Mode().Perm()|0o001) // t.TempDir's parent is 0700
		}
	}
	userRootFS := filepath.Join(dir, "rootfs")
	if _, err := (command.Exec{}).Run(context.Background(), "cp", "-al", rootfs, userRootFS); err != nil {
		os.RemoveAll(userRootFS)
		if _, err := (command.Exec{Timeout: 10 * time.Minute}).Run(context.Background(), "cp", "-a", rootfs, userRootFS); err != nil {
			t.Fatalf("copying the image for %s: %v", name, err)
		}
	}
	bin := filepath.Join(dir, "host.test")
	if err := copyFile(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	os.Mkdir(cache, 0o755)
	if err := os.Chown(cache, uid, gid); err != nil {
		t.Fatal(err)
	}

	script := fmt.Sprintf("cd / && exec env %s=%s,%s %s -test.run='^$'", childProbeEnv, userRootFS, cache, bin)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := command.Exec{}.Run(ctx, "su", "-", name, "-s", "/bin/sh", "-c", script)
	if err != nil {
		t.Fatalf("probe as %s: %v", name, err)
	}
	var res [2]Info
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("reading the child's answer %q: %v", out, err)
	}
	info := res[0]
	t.Logf("as %s: %+v", name, info)
	if !info.Rootless || info.UID != uid || info.User != name {
		t.Errorf("Rootless %v UID %d User %q; want rootless as %s (%d)", info.Rootless, info.UID, info.User, name, uid)
	}
	if info.CgroupVersion == "v1" && info.Enforced != (Enforcement{}) {
		t.Errorf("rootless on cgroup v1: Enforced = %+v, want nothing", info.Enforced)
	}
	if !info.SubIDs {
		t.Errorf("SubIDs false for %s", name)
	}
	if info.Runtime == "" || !info.RuntimeVerified || info.RuntimeCached {
		t.Errorf("Runtime %q verified %v cached %v; errors %v", info.Runtime, info.RuntimeVerified, info.RuntimeCached, info.RuntimeErrors)
	}
	if !res[1].RuntimeCached || res[1].Runtime != info.Runtime {
		t.Errorf("the user's second probe did not use the cache: %+v", res[1])
	}
	if _, err := os.Stat(filepath.Join(cache, "host-"+u.Uid+".json")); err != nil {
		t.Errorf("the user's cache file: %v", err)
	}
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o755)
}

func TestDiscover(t *testing.T) {
	tests := []struct {
		defName, defPath string
		wantFirst        []candidate // the list starts with these
	}{
		{"runc", "/opt/podman-default/runc", []candidate{{"crun", findBinary("crun")}, {"runc", "/opt/podman-default/runc"}}},
		{"crun", "/opt/x/crun", []candidate{{"crun", "/opt/x/crun"}, {"runc", findBinary("runc")}}},
		{"custom", "/opt/x/custom", []candidate{{"crun", findBinary("crun")}, {"runc", findBinary("runc")}, {"custom", "/opt/x/custom"}}},
	}
	for _, tt := range tests {
		got := discover(tt.defName, tt.defPath)
		if len(got) < len(tt.wantFirst) || !slices.Equal(got[:len(tt.wantFirst)], tt.wantFirst) {
			t.Errorf("discover(%s, %s) = %v, want it to start with %v", tt.defName, tt.defPath, got, tt.wantFirst)
		}
		for _, c := range got[len(tt.wantFirst):] {
			if c.Path == "" {
				t.Errorf("discover lists %s, which is not installed", c.Name)
			}
		}
	}
}
