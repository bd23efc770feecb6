package kernel_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/analyst-cli/analyst/kernel"
)

// Attacks of one forked session on the kernel, its siblings and the
// sessions forked after it (issue 32, items 6 to 9), each made from a
// session's cell as a model's code would make them.

// plantAttack leaves what could reach a later session: Python files that
// every later interpreter would run (usercustomize.py and a .pth in the user
// site of HOME, and of /tmp, the kernel's HOME; a sitecustomize.py in the
// working folder and in /tmp), files in /tmp and /dev/shm, the next
// session's output folder made in advance, and a process that leaves its
// session (double fork and setsid) to live on and write into later
// sessions' folders. It prints that process's pid.
const plantAttack = `
import os, site, sys, time
hook = "open('/tmp/hook-ran', 'a').write('ran\\n')\n"
sites = {site.getusersitepackages(), "/tmp/.local/lib/python%d.%d/site-packages" % sys.version_info[:2]}
for d in sites:
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "usercustomize.py"), "w").write(hook)
    open(os.path.join(d, "evil.pth"), "w").write("import os; " + hook)
for d in (os.getcwd(), "/tmp"):
    open(os.path.join(d, "sitecustomize.py"), "w").write(hook)
open("/tmp/planted.txt", "w").write("x")
open("/dev/shm/planted", "w").write("x")
os.makedirs("/output/later/sub")
open("/output/later/sub/planted.txt", "w").write("x")
r, w = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.write(w, b"%d\n" % os.getpid())
        while True:
            for d in ("/output/later", "/tmp"):
                try:
                    open(os.path.join(d, "from-the-stray.txt"), "w").write("x")
                except OSError:
                    pass
            time.sleep(0.05)
    os._exit(0)
os.wait()
print(int(os.read(r, 32)))
`

// checkPlanted is what a later session sees of plantAttack: STRAY is the
// pid it printed.
const checkPlanted = `
import json, os, subprocess, sys, time
time.sleep(0.3)  # a live stray would write again meanwhile
subprocess.run([sys.executable, "-c", "import json"], check=True)
res = {
    "hook ran": os.path.exists("/tmp/hook-ran"),
    "/tmp/planted.txt": os.path.exists("/tmp/planted.txt"),
    "/dev/shm/planted": os.path.exists("/dev/shm/planted"),
    "stray alive": os.path.exists("/proc/%d" % STRAY),
    "/output/later": sorted(os.listdir("/output/later")),
}
print(json.dumps(res))
`

// A session sees nothing an ended session did: no planted Python runs in
// its interpreters, no file of it is left in /tmp or /dev/shm, its output
// folder is new even if the ended one made it first, and no process of the
// ended one lives on, whatever it did to its session id.
func TestForkSessionLeavesNothingToLaterSessions(t *testing.T) {
	k := startKernel(t, func(o *kernel.Options) { o.OutputDir = t.TempDir() })
	attacker, err := k.Fork(context.Background(), kernel.ForkOptions{Name: "attacker", OutputDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	stray := strings.TrimSpace(mustOK(t, attacker, plantAttack).Stdout())
	if _, err := strconv.Atoi(stray); err != nil {
		t.Fatalf("the attack printed %q", stray)
	}
	if err := attacker.Close(); err != nil {
		t.Fatal(err)
	}
	laterOut := t.TempDir()
	later := fork(t, k, kernel.ForkOptions{Name: "later", OutputDir: laterOut})
	var got map[string]any
	jsonCell(t, later, "STRAY = "+stray+"\n"+checkPlanted, &got)
	want := map[string]any{"hook ran": false, "/tmp/planted.txt": false, "/dev/shm/planted": false,
		"stray alive": false, "/output/later": []any{}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("what a later session sees of an ended one (-want +got):\n%s", diff)
	}
	if files := listFiles(t, laterOut); len(files) != 0 {
		t.Errorf("the later session's folder holds %v", files)
	}
}

// A session's SIGINT, sent to the kernel and to a sibling while each runs a
// cell, interrupts neither: only analyst's interrupt, which comes over the
// protocol, does.
func TestForkSessionCannotInterruptOthers(t *testing.T) {
	k := startKernel(t, nil)
	sibling := fork(t, k, kernel.ForkOptions{Name: "sibling"})
	attacker := fork(t, k, kernel.ForkOptions{Name: "attacker"})
	const busy = "import time\ntime.sleep(3)\nprint('finished')"
	var wg sync.WaitGroup
	results := map[string]*kernel.Execution{}
	var mu sync.Mutex
	for name, target := range map[string]*kernel.Kernel{"the kernel": k, "the sibling": sibling} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ex, err := target.Execute(context.Background(), busy, kernel.ExecOptions{})
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			mu.Lock()
			results[name] = ex
			mu.Unlock()
		}()
	}
	mustOK(t, attacker, fmt.Sprintf(
		"import os, signal, time\nfor _ in range(20):\n    for pid in (1, %d):\n        os.kill(pid, signal.SIGINT)\n    time.sleep(0.1)",
		sibling.Session().PID))
	wg.Wait()
	for name, ex := range results {
		if ex.Status != kernel.StatusOK || strings.TrimSpace(ex.Stdout()) != "finished" {
			t.Errorf("%s's cell after SIGINTs from a session: status %s, stdout %q, error %+v", name, ex.Status, ex.Stdout(), ex.Error)
		}
	}
	// analyst's own interrupt still stops a cell.
	if ex := runTimeout(t, k, "import time\ntime.sleep(60)", 2*time.Second); ex.Status != kernel.StatusTimeout {
		t.Errorf("the kernel's cell at its timeout: status %s", ex.Status)
	}
}

// A session that moves a sibling's output folder away and puts a link to
// its own in its place does not make the sibling copy out its files (or
// /data's) as the sibling's: the sibling copies out the folder it was given,
// and its cell says its folder was replaced.
func TestForkSessionCannotSwapASiblingsOutput(t *testing.T) {
	k := startKernel(t, func(o *kernel.Options) { o.OutputDir = t.TempDir() })
	victimOut := t.TempDir()
	victim := fork(t, k, kernel.ForkOptions{Name: "victim", OutputDir: victimOut})
	attacker := fork(t, k, kernel.ForkOptions{Name: "attacker", OutputDir: t.TempDir()})
	mustOK(t, victim, "open('/output/victim/mine.txt', 'w').write('mine')")
	mustOK(t, attacker, "import os\nopen('/output/attacker/stolen.txt', 'w').write('not the victim\\'s')\n"+
		"os.rename('/output/victim', '/output/moved')\nos.symlink('/output/attacker', '/output/victim')")
	ex := mustOK(t, victim, "open('/output/moved/after.txt', 'w').write('mine too')")
	if want := "[analyst: /output/victim is no longer this session's output folder"; !strings.Contains(ex.Stderr(), want) {
		t.Errorf("the victim's cell says %q, want it to contain %q", ex.Stderr(), want)
	}
	if got, want := listFiles(t, victimOut), []string{"after.txt", "mine.txt"}; !cmp.Equal(got, want) {
		t.Errorf("the victim copied out %v, want %v (its own files only)", got, want)
	}
}

// A session that stops every other process it can (SIGSTOP: the spare copy
// the next fork would claim among them) does not stall the next fork: a
// stopped spare is replaced.
func TestForkStoppedSpareIsReplaced(t *testing.T) {
	k := startKernel(t, nil)
	attacker := fork(t, k, kernel.ForkOptions{Name: "attacker"})
	got := mustOK(t, attacker, `
import os, signal, time
me = os.getpid()
def others():
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit() and int(p) not in (1, me):
            out.append(int(p))
    return out
deadline = time.monotonic() + 10
while not others() and time.monotonic() < deadline:
    time.sleep(0.05)  # the spare is forked once the kernel is idle
stopped = others()
for pid in stopped:
    os.kill(pid, signal.SIGSTOP)
print(len(stopped))`).Text()
	if got == "0" {
		t.Fatalf("the attacker found no spare to stop")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := k.Fork(ctx, kernel.ForkOptions{Name: "next", Timeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("the fork after the spare was stopped: %v", err)
	}
	defer s.Close()
	if got := mustOK(t, s, "6 * 7").Text(); got != "42" {
		t.Errorf("the new session: %s", got)
	}
}

// A session that makes itself dumpable again and lowers its oom_score_adj,
// then fills memory, gets a MemoryError at its own cap: the kernel and an
// idle sibling keep their state (issue 32, item 7: the container's limit
// killed the kernel).
func TestForkSessionMemoryIsBounded(t *testing.T) {
	k := startKernel(t, func(o *kernel.Options) { o.Limits.MemoryBytes = 768 << 20 })
	mustOK(t, k, "kept = np.ones(8 << 20)  # 64 MiB the sessions share")
	sibling := fork(t, k, kernel.ForkOptions{Name: "sibling"})
	attacker := fork(t, k, kernel.ForkOptions{Name: "attacker"})
	lowered := mustOK(t, attacker, `
import ctypes
ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE: its /proc files are its own again
for score in range(-1000, 1001, 100):
    try:
        open('/proc/self/oom_score_adj', 'w').write(str(score))
        break
    except OSError:
        pass
int(open('/proc/self/oom_score_adj').read())`).Text()
	t.Logf("the attacker's oom_score_adj: %s", lowered)
	ex := runTimeout(t, attacker, "hog = []\nwhile True:\n    hog.append(np.ones(4 << 20))", time.Minute)
	if ex.Status != kernel.StatusError || ex.Error == nil || ex.Error.Name != "MemoryError" {
		t.Fatalf("the hog: status %s error %+v cause %q", ex.Status, ex.Error, ex.Cause)
	}
	for name, s := range map[string]*kernel.Kernel{"the kernel": k, "the sibling": sibling, "the attacker": attacker} {
		if got := mustOK(t, s, "hog = None\nint(kept.sum())").Text(); got != "8388608" {
			t.Errorf("%s after the hog: %s", name, got)
		}
	}
}
