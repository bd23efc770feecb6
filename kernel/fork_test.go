package kernel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/kernel"
)

// fork forks a session from k and closes it when the test ends.
func fork(t *testing.T, k *kernel.Kernel, fo kernel.ForkOptions) *kernel.Kernel {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := k.Fork(ctx, fo)
	if err != nil {
		t.Fatalf("Fork: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("closing session: %v", err)
		}
	})
	return s
}

func TestForkSeesStateBeforeTheForkOnly(t *testing.T) {
	k := startKernel(t, nil)
	mustOK(t, k, "x = 41\ndf = pd.DataFrame({'a': [1, 2, 3]})")
	s := fork(t, k, kernel.ForkOptions{})
	if info := s.Session(); info == nil || info.Name != "fork-1" || info.Number != 1 || info.PID <= 1 {
		t.Errorf("Session() = %+v, want fork-1, number 1, a pid of its own", info)
	}
	if k.Session() != nil {
		t.Errorf("the kernel itself says it is a session: %+v", k.Session())
	}
	mustOK(t, k, "x = 0")
	if got := mustOK(t, s, "x + 1").Text(); got != "42" {
		t.Errorf("in the session x + 1 = %q, want 42", got)
	}
	ex := mustOK(t, s, "int(df['a'].sum())")
	if got := ex.Text(); got != "6" {
		t.Errorf("in the session df sum = %q, want 6", got)
	}
	if ex.ExecutionCount != 3 {
		t.Errorf("the session's second cell has execution count %d, want 3 (it continues the parent's 1)", ex.ExecutionCount)
	}
	if got := mustOK(t, k, "x").Text(); got != "0" {
		t.Errorf("in the parent x = %q, want 0", got)
	}
}

// No state of one session reaches another: a session that deletes df,
// rebinds globals, changes a module and writes files leaves a pristine state
// for a sibling forked after it, and for one alive beside it.
func TestForkSessionsDoNotShareState(t *testing.T) {
	k := startKernel(t, func(o *kernel.Options) { o.OutputDir = t.TempDir() })
	mustOK(t, k, "import json\ndf = pd.DataFrame({'a': [1, 2, 3]})\ncounter = 0")
	beside := fork(t, k, kernel.ForkOptions{Name: "beside"})
	a := fork(t, k, kernel.ForkOptions{Name: "a", OutputDir: t.TempDir()})
	aTmp := strings.TrimSpace(mustOK(t, a, `
import os, tempfile
del df
counter += 100
leaked = 'from a'
json.leaked = 'from a'
pd.set_option('display.max_rows', 3)
open(os.path.join(tempfile.gettempdir(), 'scratch.txt'), 'w').write('a was here')
open('/output/a/result.txt', 'w').write('a')
print(tempfile.gettempdir())`).Stdout())
	// Its scratch folder has a name no other session could guess before it.
	if !strings.HasPrefix(aTmp, "/tmp/analyst-session-") || len(aTmp) != len("/tmp/analyst-session-")+32 {
		t.Errorf("the session's TMPDIR is %q, want /tmp/analyst-session- and 32 random hex digits", aTmp)
	}
	check := "A_TMP = " + strconv.Quote(aTmp) + `
import os, tempfile
print(json.dumps({
  "df": 'df' in globals() and int(df['a'].sum()),
  "counter": counter,
  "leaked": 'leaked' in globals(),
  "module": hasattr(json, 'leaked'),
  "option": pd.get_option('display.max_rows'),
  "a_tmp": os.path.exists(A_TMP + '/scratch.txt'),
  "a_output": os.path.exists('/output/a/result.txt'),
}))`
	want := `{"df": 6, "counter": 0, "leaked": false, "module": false, "option": 60, "a_tmp": true, "a_output": true}`
	if got := strings.TrimSpace(mustOK(t, beside, check).Stdout()); got != want {
		t.Errorf("a sibling alive beside the session sees\n%s\nwant\n%s", got, want)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	after := fork(t, k, kernel.ForkOptions{Name: "after"})
	// The files a wrote in its own folders went with it.
	want = `{"df": 6, "counter": 0, "leaked": false, "module": false, "option": 60, "a_tmp": false, "a_output": false}`
	if got := strings.TrimSpace(mustOK(t, after, check).Stdout()); got != want {
		t.Errorf("a session forked after the first ended sees\n%s\nwant\n%s", got, want)
	}
	if got := strings.TrimSpace(mustOK(t, k, check).Stdout()); got != want {
		t.Errorf("the parent sees\n%s\nwant\n%s", got, want)
	}
}

// A timeout, an ignored interrupt or a crash in a session ends at most that
// session: the parent and a sibling go on with their state.
func TestForkFailuresStayInTheSession(t *testing.T) {
	k := startKernel(t, func(o *kernel.Options) { o.InterruptGrace = 2 * time.Second })
	mustOK(t, k, "kept = 'parent'")
	sibling := fork(t, k, kernel.ForkOptions{})
	mustOK(t, sibling, "kept = 'sibling'")

	s := fork(t, k, kernel.ForkOptions{})
	ex := runTimeout(t, s, "import time\ntime.sleep(120)", time.Second)
	if ex.Status != kernel.StatusTimeout || ex.StateLost || ex.Error == nil || ex.Error.Name != "KeyboardInterrupt" {
		t.Fatalf("timeout in a session: status %s stateLost %v error %+v", ex.Status, ex.StateLost, ex.Error)
	}
	if got := mustOK(t, s, "kept").Text(); got != "'parent'" {
		t.Errorf("the session after its timeout: kept = %s", got)
	}
	ex = runTimeout(t, s, "import time\nwhile True:\n    try:\n        time.sleep(10)\n    except KeyboardInterrupt:\n        pass", time.Second)
	if ex.Status != kernel.StatusTimeout || !ex.StateLost {
		t.Fatalf("ignored interrupt in a session: status %s stateLost %v cause %q", ex.Status, ex.StateLost, ex.Cause)
	}
	if _, err := s.Execute(context.Background(), "1", kernel.ExecOptions{}); err == nil {
		t.Errorf("Execute in a killed session: want an error")
	}

	for _, crash := range []struct{ code, cause string }{
		{"import os\nos._exit(3)", "the forked session exited with code 3; its state is lost"},
		{"import ctypes\nctypes.string_at(0)", "the forked session was killed by signal 11; its state is lost"},
	} {
		s := fork(t, k, kernel.ForkOptions{})
		ex := run(t, s, crash.code)
		if ex.Status != kernel.StatusDied || !ex.StateLost || ex.Cause != crash.cause {
			t.Errorf("%q: status %s stateLost %v cause %q, want died: %q", crash.code, ex.Status, ex.StateLost, ex.Cause, crash.cause)
		}
	}
	if got := mustOK(t, k, "kept").Text(); got != "'parent'" {
		t.Errorf("the parent after its sessions failed: kept = %s", got)
	}
	if got := mustOK(t, sibling, "kept").Text(); got != "'sibling'" {
		t.Errorf("the sibling after the others failed: kept = %s", got)
	}
}

// Each session copies out its own /output/NAME into its own folder; the
// parent's folder gets none of it.
func TestForkOutputArea(t *testing.T) {
	parentOut, aOut, bOut := t.TempDir(), t.TempDir(), t.TempDir()
	k := startKernel(t, func(o *kernel.Options) { o.OutputDir = parentOut })
	a := fork(t, k, kernel.ForkOptions{Name: "a", OutputDir: aOut})
	b := fork(t, k, kernel.ForkOptions{Name: "b", OutputDir: bOut})
	if got := a.Session().OutputPath; got != "/output/a" {
		t.Errorf("OutputPath = %q, want /output/a", got)
	}
	mustOK(t, a, "import os\nos.makedirs('/output/a/sub')\nopen('/output/a/sub/x.txt', 'w').write('from a')")
	mustOK(t, b, "open('/output/b/x.txt', 'w').write('from b')")
	mustOK(t, k, "open('/output/parent.txt', 'w').write('from the parent')")
	for dir, want := range map[string][]string{aOut: {"sub/x.txt"}, bOut: {"x.txt"}, parentOut: {"parent.txt"}} {
		if got := listFiles(t, dir); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s holds %v, want %v", dir, got, want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(aOut, "sub", "x.txt")); err != nil || string(b) != "from a" {
		t.Errorf("a's file: %q %v", b, err)
	}
	if _, err := k.Fork(context.Background(), kernel.ForkOptions{Name: "a"}); err == nil || !strings.Contains(err.Error(), "a session named a is still running") {
		t.Errorf("a second session named a: %v", err)
	}
}

func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// A session's random generators are seeded from its name: the same name
// draws the same numbers whenever it is forked, another name others.
func TestForkSeedsFromTheName(t *testing.T) {
	k := startKernel(t, nil)
	mustOK(t, k, "import random")
	const draw = "print(random.random(), np.random.rand())"
	first := mustOK(t, fork(t, k, kernel.ForkOptions{Name: "case-7"}), draw).Stdout()
	mustOK(t, k, "random.random(); np.random.rand()") // the parent moves on
	again := mustOK(t, fork(t, k, kernel.ForkOptions{Name: "case-7-again", Seed: ptr(kernel.ForkSeed("case-7"))}), draw).Stdout()
	other := mustOK(t, fork(t, k, kernel.ForkOptions{Name: "case-8"}), draw).Stdout()
	if first != again {
		t.Errorf("the same seed drew %q, then %q", first, again)
	}
	if first == other {
		t.Errorf("another name drew the same %q", first)
	}
	want := mustOK(t, k, fmt.Sprintf("random.seed(%d); np.random.seed(%d)\n%s", kernel.ForkSeed("case-7"), kernel.ForkSeed("case-7"), draw)).Stdout()
	if first != want {
		t.Errorf("session case-7 drew %q; random.seed(ForkSeed) draws %q", first, want)
	}
}

func ptr[T any](v T) *T { return &v }

// A file the parent had open: each session reads on from the parent's
// position with a position of its own.
func TestForkOpenFilesHaveTheirOwnPosition(t *testing.T) {
	data := writeData(t, "abcdefghij")
	k := startKernel(t, func(o *kernel.Options) { o.Data = data })
	// Unbuffered: Python's own buffer would be copied with the memory.
	mustOK(t, k, "import os\nfd = os.open('/data/sales.csv', os.O_RDONLY)\nos.read(fd, 3)")
	a := fork(t, k, kernel.ForkOptions{})
	b := fork(t, k, kernel.ForkOptions{})
	for name, s := range map[string]*kernel.Kernel{"a": a, "b": b, "the parent": k} {
		if got := mustOK(t, s, "os.read(fd, 3)").Text(); got != "b'def'" {
			t.Errorf("%s reads %s after the fork, want 'def'", name, got)
		}
	}
}

// Threads the cells started would be copied as locks without their
// threads: the fork is refused while they run.
func TestForkRefusedWhileCellThreadsRun(t *testing.T) {
	k := startKernel(t, nil)
	mustOK(t, k, "import threading\nstop = threading.Event()\nworker = threading.Thread(target=stop.wait, name='worker')\nworker.start()")
	_, err := k.Fork(context.Background(), kernel.ForkOptions{})
	if err == nil || !strings.Contains(err.Error(), "the kernel has threads its code started (worker)") {
		t.Fatalf("Fork with a thread running: %v", err)
	}
	mustOK(t, k, "stop.set()\nworker.join()")
	s := fork(t, k, kernel.ForkOptions{})
	mustOK(t, s, "1")
	if _, err := s.Fork(context.Background(), kernel.ForkOptions{}); err == nil || !strings.Contains(err.Error(), "a forked session cannot fork") {
		t.Errorf("Fork of a session: %v", err)
	}
}

// OpenMP (libgomp, scikit-learn's k-means) and BLAS in a session after the
// parent used them: a pool copied without its threads would hang.
func TestForkOpenMPAndBLASAfterTheParentUsedThem(t *testing.T) {
	k := startKernel(t, nil)
	const work = `
from sklearn.cluster import KMeans
X = np.random.default_rng(0).random((20000, 5))
labels = KMeans(4, n_init=1, random_state=0).fit(X).labels_
a = np.random.default_rng(1).random((300, 300))
print(int(np.bincount(labels).max()), bool(np.allclose(np.linalg.inv(a) @ a, np.eye(300))))`
	want := mustOK(t, k, work).Stdout()
	s := fork(t, k, kernel.ForkOptions{})
	ex := runTimeout(t, s, work, 60*time.Second)
	if ex.Status != kernel.StatusOK || ex.Stdout() != want {
		t.Fatalf("k-means and a matrix inverse in a session: status %s, stdout %q, want %q (error %v, cause %q)", ex.Status, ex.Stdout(), want, ex.Error, ex.Cause)
	}
	if got := mustOK(t, k, work).Stdout(); got != want {
		t.Errorf("in the parent again: %q, want %q", got, want)
	}
}

// matplotlib: a session starts with no figure open and the parent's
// settings; its charts are its own outputs.
func TestForkMatplotlib(t *testing.T) {
	k := startKernel(t, nil)
	mustOK(t, k, "plt.rcParams['figure.dpi'] = 50")
	s := fork(t, k, kernel.ForkOptions{})
	ex := mustOK(t, s, "print(plt.get_fignums(), plt.rcParams['figure.dpi'])\nplt.plot([1, 2, 3])")
	if got := ex.Stdout(); got != "[] 50.0\n" {
		t.Errorf("in the session: %q, want no figure and the parent's dpi", got)
	}
	if n := len(ex.Charts()); n != 1 {
		t.Errorf("the session's cell has %d charts, want 1", n)
	}
	if n := len(mustOK(t, k, "1").Charts()); n != 0 {
		t.Errorf("the parent's next cell has %d charts, want 0", n)
	}
}

// Closing the kernel ends its sessions, saying so.
func TestForkSessionsEndWithTheKernel(t *testing.T) {
	k := startKernel(t, nil)
	s := fork(t, k, kernel.ForkOptions{})
	mustOK(t, s, "1")
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
	ex, err := s.Execute(context.Background(), "1", kernel.ExecOptions{})
	if err == nil && (ex.Status != kernel.StatusDied || !strings.Contains(ex.Cause, "the kernel this session was forked from ended")) {
		t.Errorf("a session of a closed kernel: status %s cause %q", ex.Status, ex.Cause)
	}
	if _, err := k.Fork(context.Background(), kernel.ForkOptions{}); err == nil {
		t.Errorf("Fork of a closed kernel: want an error")
	}
}

// A session's code can write anything to its protocol pipe; framed by the
// parent, none of it reaches a sibling or the parent.
func TestForkSessionCannotSpeakForAnother(t *testing.T) {
	k := startKernel(t, nil)
	victim := fork(t, k, kernel.ForkOptions{})
	attacker := fork(t, k, kernel.ForkOptions{})
	forged := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	lines := strings.Join([]string{
		// the victim's next cell will be request 1 of its own, and the parent's 1 too
		"@1 " + forged(map[string]any{"type": "output", "id": "1", "output": map[string]any{"output_type": "stream", "name": "stdout", "text": "forged\n"}}),
		forged(map[string]any{"type": "output", "id": "1", "output": map[string]any{"output_type": "stream", "name": "stdout", "text": "forged\n"}}),
		forged(map[string]any{"type": "fork_end", "session": 1, "signal": 9, "oom": true}),
		forged(map[string]any{"type": "status", "id": "1", "status": "ok"}),
	}, "\n")
	mustOK(t, attacker, fmt.Sprintf("import sys\nm = sys.modules['__main__']\nm._proto_out.write(%q + '\\n')\nm._proto_out.flush()", lines))
	for name, s := range map[string]*kernel.Kernel{"the victim": victim, "the parent": k} {
		ex := mustOK(t, s, "print('real')")
		if ex.Stdout() != "real\n" {
			t.Errorf("%s's cell printed %q, want only real", name, ex.Stdout())
		}
	}
	mustOK(t, attacker, "1")
}
