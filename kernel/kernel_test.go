package kernel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/nbformat"
)

func run(t *testing.T, k *kernel.Kernel, code string) *kernel.Execution {
	t.Helper()
	return runTimeout(t, k, code, 0)
}

func runTimeout(t *testing.T, k *kernel.Kernel, code string, timeout time.Duration) *kernel.Execution {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ex, err := k.Execute(ctx, code, kernel.ExecOptions{Timeout: timeout})
	if err != nil {
		t.Fatalf("Execute(%q): %v", code, err)
	}
	return ex
}

// mustOK runs code and fails the test unless the cell succeeded.
func mustOK(t *testing.T, k *kernel.Kernel, code string) *kernel.Execution {
	t.Helper()
	ex := run(t, k, code)
	if ex.Status != kernel.StatusOK {
		t.Fatalf("cell %q: status %s, error %v\nstdout: %s\nstderr: %s", code, ex.Status, ex.Error, ex.Stdout(), ex.Stderr())
	}
	return ex
}

func TestStatePersistsAcrossCells(t *testing.T) {
	k := startKernel(t, nil)
	mustOK(t, k, "x = 41\ndf = pd.DataFrame({'a': [1, 2, 3]})")
	ex := mustOK(t, k, "x + 1")
	if got := ex.Text(); got != "42" {
		t.Errorf("x + 1 = %q, want 42", got)
	}
	ex = mustOK(t, k, "int(df['a'].sum())")
	if got := ex.Text(); got != "6" {
		t.Errorf("df sum = %q, want 6", got)
	}
	if ex.ExecutionCount != 3 {
		t.Errorf("execution count = %d, want 3", ex.ExecutionCount)
	}
}

func TestOutputShapes(t *testing.T) {
	k := startKernel(t, nil)
	tests := []struct {
		name  string
		code  string
		check func(t *testing.T, ex *kernel.Execution)
	}{
		{"stdout and stderr", "import sys\nprint('hello')\nprint('oops', file=sys.stderr)", func(t *testing.T, ex *kernel.Execution) {
			if ex.Stdout() != "hello\n" || ex.Stderr() != "oops\n" {
				t.Errorf("stdout %q stderr %q", ex.Stdout(), ex.Stderr())
			}
		}},
		{"fd-level writes are captured", "import os, subprocess\nos.write(1, b'raw\\n')\nsubprocess.run(['echo', 'child'])", func(t *testing.T, ex *kernel.Execution) {
			if !strings.Contains(ex.Stdout(), "raw\n") || !strings.Contains(ex.Stdout(), "child\n") {
				t.Errorf("stdout %q lacks fd-level writes", ex.Stdout())
			}
		}},
		{"dataframe is html and text", "pd.DataFrame({'city': ['Oslo', 'Lima'], 'n': [1, 2]})", func(t *testing.T, ex *kernel.Execution) {
			o := only(t, ex, "execute_result")
			html, _ := o.DataString("text/html")
			text, _ := o.DataString("text/plain")
			if !strings.Contains(html, "<table") || !strings.Contains(html, "Oslo") || !strings.Contains(text, "Lima") {
				t.Errorf("html %q text %q", html, text)
			}
			if o.ExecutionCount == nil || *o.ExecutionCount != ex.ExecutionCount {
				t.Errorf("execute_result count %v, cell count %d", o.ExecutionCount, ex.ExecutionCount)
			}
		}},
		{"series is html and text", "pd.Series([1.5, 2.5], name='v')", func(t *testing.T, ex *kernel.Execution) {
			o := only(t, ex, "execute_result")
			if _, ok := o.Data["text/html"]; !ok {
				t.Errorf("series has no text/html: %v", keys(o.Data))
			}
		}},
		{"none shows nothing", "x = None\nx", func(t *testing.T, ex *kernel.Execution) {
			if len(ex.Outputs) != 0 {
				t.Errorf("outputs = %+v, want none", ex.Outputs)
			}
		}},
		{"exception with traceback", "def f():\n    return 1 / 0\nf()", func(t *testing.T, ex *kernel.Execution) {
			if ex.Status != kernel.StatusError || ex.Error == nil || ex.Error.Name != "ZeroDivisionError" {
				t.Fatalf("status %s error %+v", ex.Status, ex.Error)
			}
			tb := strings.Join(ex.Error.Traceback, "\n")
			if !strings.Contains(tb, "return 1 / 0") || strings.Contains(tb, "analyst_driver") {
				t.Errorf("traceback should show the cell's line and no driver frames:\n%s", tb)
			}
		}},
		{"syntax error", "def (:", func(t *testing.T, ex *kernel.Execution) {
			if ex.Status != kernel.StatusError || ex.Error == nil || ex.Error.Name != "SyntaxError" {
				t.Errorf("status %s error %+v", ex.Status, ex.Error)
			}
		}},
		{"exit does not end the kernel", "exit(3)", func(t *testing.T, ex *kernel.Execution) {
			if ex.Status != kernel.StatusError || ex.Error.Name != "SystemExit" {
				t.Errorf("status %s error %+v", ex.Status, ex.Error)
			}
		}},
		{"display function", "display(pd.DataFrame({'a': [1]}))\nprint('after')", func(t *testing.T, ex *kernel.Execution) {
			if len(ex.Outputs) != 2 || ex.Outputs[0].OutputType != "display_data" || ex.Outputs[1].OutputType != "stream" {
				t.Errorf("outputs in wrong order or shape: %+v", ex.Outputs)
			}
		}},
		{"raw mime bundle", "display({'application/vnd.test+json': {'a': 1}, 'text/plain': 'a=1'}, raw=True)", func(t *testing.T, ex *kernel.Execution) {
			o := only(t, ex, "display_data")
			if string(o.Data["application/vnd.test+json"]) != `{"a":1}` {
				t.Errorf("raw bundle: %s", o.Data["application/vnd.test+json"])
			}
		}},
		{"stdin is empty", "import sys\nsys.stdin.read()", func(t *testing.T, ex *kernel.Execution) {
			if ex.Text() != "''" {
				t.Errorf("stdin read %q, want ''; outputs %+v status %s", ex.Text(), ex.Outputs, ex.Status)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, run(t, k, tt.code))
		})
	}
	// The kernel is still healthy after all of that.
	if got := mustOK(t, k, "1 + 1").Text(); got != "2" {
		t.Errorf("after the table: 1 + 1 = %q", got)
	}
}

func only(t *testing.T, ex *kernel.Execution, outputType string) nbformat.Output {
	t.Helper()
	var found []nbformat.Output
	for _, o := range ex.Outputs {
		if o.OutputType == outputType {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one %s output, got %d in %+v", outputType, len(found), ex.Outputs)
	}
	return found[0]
}

func keys(m map[string]json.RawMessage) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func TestChartsAreCapturedWithoutSavefig(t *testing.T) {
	k := startKernel(t, nil)
	mustOK(t, k, "months = ['Jan','Feb','Mar']\nrevenue = [10.0, 30.0, 20.0]")
	t.Run("plt.show", func(t *testing.T) {
		ex := mustOK(t, k, "plt.bar(months, revenue)\nplt.title('Revenue by month')\nplt.xlabel('month')\nplt.ylabel('revenue')\nplt.show()")
		charts := ex.Charts()
		if len(charts) != 1 {
			t.Fatalf("charts = %d, want 1", len(charts))
		}
		c := charts[0]
		if !bytes.HasPrefix(c.PNG, []byte("\x89PNG")) {
			t.Errorf("chart has no PNG")
		}
		if c.Kind != "bar" || c.Title != "Revenue by month" {
			t.Errorf("kind %q title %q", c.Kind, c.Title)
		}
		if !strings.Contains(string(c.Description), `"x_label":"month"`) || !strings.Contains(string(c.Description), "30.0") {
			t.Errorf("description lacks labels or data: %s", c.Description)
		}
	})
	t.Run("figure left open", func(t *testing.T) {
		ex := mustOK(t, k, "fig, ax = plt.subplots()\nax.plot([1, 2, 3], [2, 4, 8])\nax.set_title('growth')")
		if c := ex.Charts(); len(c) != 1 || c[0].Kind != "line" {
			t.Fatalf("charts = %s, want one line chart", describe(c))
		}
	})
	t.Run("figures do not leak into the next cell", func(t *testing.T) {
		ex := mustOK(t, k, "print(len(plt.get_fignums()))")
		if ex.Stdout() != "0\n" || len(ex.Charts()) != 0 {
			t.Errorf("open figures after capture: %q, charts %d", ex.Stdout(), len(ex.Charts()))
		}
	})
	t.Run("seaborn", func(t *testing.T) {
		ex := mustOK(t, k, "import seaborn as sns\nsns.histplot(pd.Series([1, 2, 2, 3, 3, 3]))")
		if c := ex.Charts(); len(c) != 1 || c[0].Kind != "hist" {
			t.Fatalf("charts = %s, want one histogram", describe(c))
		}
	})
	t.Run("plotly", func(t *testing.T) {
		ex := mustOK(t, k, "import plotly.express as px\nfig = px.bar(x=months, y=revenue, title='P')\nfig.show()")
		if len(ex.Outputs) != 1 {
			t.Fatalf("outputs = %+v", ex.Outputs)
		}
		if _, ok := ex.Outputs[0].Data[nbformat.MimePlotly]; !ok {
			t.Errorf("plotly output lacks %s: %v", nbformat.MimePlotly, keys(ex.Outputs[0].Data))
		}
		if c := ex.Charts(); len(c) != 1 || c[0].Kind != "bar" {
			t.Errorf("plotly chart description: %s", describe(c))
		}
	})
	t.Run("huge description is capped", func(t *testing.T) {
		ex := mustOK(t, k, "fig, ax = plt.subplots()\nfor i in range(200):\n    ax.plot(np.arange(1000) * 1.000001, np.arange(1000) * (i + 0.123456789), label=f'line {i}')")
		c := ex.Charts()
		if len(c) != 1 {
			t.Fatalf("charts = %d", len(c))
		}
		if n := len(c[0].Description); n > 512<<10 || !strings.Contains(string(c[0].Description), `"truncated":true`) {
			t.Errorf("description is %d bytes, truncated marker present: %v", n, strings.Contains(string(c[0].Description), `"truncated":true`))
		}
		if !strings.Contains(string(c[0].Description), "line 199") {
			t.Errorf("capped description lost the series labels")
		}
	})
	t.Run("byte-stable PNG", func(t *testing.T) {
		code := "fig, ax = plt.subplots()\nax.bar(months, revenue)\nax.set_title('same')\nplt.show()"
		a := mustOK(t, k, code).Charts()
		b := mustOK(t, k, code).Charts()
		if len(a) != 1 || len(b) != 1 || !bytes.Equal(a[0].PNG, b[0].PNG) {
			t.Errorf("same code gave different PNG bytes")
		}
	})
}

func TestOutputCapsMarkTruncation(t *testing.T) {
	k := startKernel(t, func(o *kernel.Options) {
		o.Limits.StreamBytes = 10_000
		o.Limits.StreamStopBytes = 1_000_000
	})
	ex := mustOK(t, k, "print('x' * 50_000)")
	out := ex.Stdout()
	if len(out) > 10_000 || !strings.HasPrefix(out, "xxxx") {
		t.Errorf("stdout kept %d bytes, want at most 10000", len(out))
	}
	if !strings.Contains(ex.Stderr(), "output truncated") {
		t.Errorf("no visible truncation marker; stderr %q", ex.Stderr())
	}
}

func TestTimeoutInterruptsAndKeepsState(t *testing.T) {
	k := startKernel(t, nil)
	mustOK(t, k, "kept = 'still here'")
	for _, code := range []string{
		"import time\ntime.sleep(120)",
		"while True:\n    pass",
	} {
		start := time.Now()
		ex := runTimeout(t, k, code, time.Second)
		if ex.Status != kernel.StatusTimeout || ex.StateLost {
			t.Fatalf("%q: status %s stateLost %v cause %q", code, ex.Status, ex.StateLost, ex.Cause)
		}
		if ex.Error == nil || ex.Error.Name != "KeyboardInterrupt" {
			t.Errorf("%q: error %+v, want KeyboardInterrupt", code, ex.Error)
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("%q: timeout took %s", code, d)
		}
	}
	if got := mustOK(t, k, "kept").Text(); got != "'still here'" {
		t.Errorf("state after timeouts: %q", got)
	}
}

func TestTimeoutIgnoredKillsKernelAndSaysStateLost(t *testing.T) {
	k := startKernel(t, func(o *kernel.Options) { o.InterruptGrace = 2 * time.Second })
	code := "import time\nwhile True:\n    try:\n        time.sleep(10)\n    except KeyboardInterrupt:\n        pass"
	ex := runTimeout(t, k, code, time.Second)
	if ex.Status != kernel.StatusTimeout || !ex.StateLost || !strings.Contains(ex.Cause, "state") {
		t.Fatalf("status %s stateLost %v cause %q", ex.Status, ex.StateLost, ex.Cause)
	}
	_, err := k.Execute(context.Background(), "1", kernel.ExecOptions{})
	if err == nil {
		t.Fatalf("Execute after kill: want error")
	}
	assertNoContainer(t, k.Name(), false)
}

func TestCloseRemovesContainer(t *testing.T) {
	opts := testOptions(t)
	k, err := kernel.Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	assertNoContainer(t, k.Name(), true)
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
	assertNoContainer(t, k.Name(), false)
	if err := k.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestCloseDuringCellEndsIt(t *testing.T) {
	opts := testOptions(t)
	k, err := kernel.Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *kernel.Execution)
	go func() {
		ex, _ := k.Execute(context.Background(), "import time\ntime.sleep(60)", kernel.ExecOptions{})
		done <- ex
	}()
	time.Sleep(time.Second)
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case ex := <-done:
		if ex == nil || ex.Status != kernel.StatusDied || !ex.StateLost {
			t.Errorf("cell after Close: %+v", ex)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("cell did not end after Close")
	}
	assertNoContainer(t, k.Name(), false)
}

func TestContextCancelInterruptsCell(t *testing.T) {
	k := startKernel(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(time.Second, cancel)
	ex, err := k.Execute(ctx, "import time\ntime.sleep(60)", kernel.ExecOptions{})
	if err == nil || ex == nil || ex.Status != kernel.StatusInterrupted || ex.StateLost {
		t.Fatalf("err %v ex %+v", err, ex)
	}
	if got := mustOK(t, k, "2 * 21").Text(); got != "42" {
		t.Errorf("after cancel: %q", got)
	}
}

func TestPruneRemovesOrphans(t *testing.T) {
	opts := testOptions(t)
	live := startKernel(t, nil)
	// An orphan: a kernel container whose owner pid does not exist.
	name := fmt.Sprintf("analyst-kernel-orphan-%d", time.Now().UnixNano())
	args := []string{}
	if opts.Runtime != "" {
		args = append(args, "--runtime", opts.Runtime)
	}
	args = append(args, "run", "--detach", "--name", name, "--label", kernel.LabelKernel+"=1",
		"--label", kernel.LabelOwner+"=999999999", "--network=none",
		"--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024", "--no-hosts", "--read-only",
		"--rootfs", opts.RootFS, "sleep", "300")
	if out, err := exec.Command("podman", args...).CombinedOutput(); err != nil {
		t.Fatalf("podman run: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("podman", "rm", "-f", "-t", "0", name).Run() })
	removed, err := kernel.Prune(context.Background(), nil, "", false)
	if err != nil {
		t.Fatal(err)
	}
	// Others' killed kernels may be removed too (a shared host), and
	// another process may have removed this orphan first: what matters is
	// that it is gone, that every container removed was an orphan, and
	// that the live kernel is kept.
	for _, r := range removed {
		if !r.Orphan {
			t.Errorf("removed %s, whose analyst process %d is running", r.Name, r.OwnerPID)
		}
	}
	assertNoContainer(t, name, false)
	assertNoContainer(t, live.Name(), true)
}

// A kernel's temporary folder names its owner; PruneFolders removes the
// folders of processes that are gone, never a live one's, nor folders
// without an owner file or of other names.
func TestPruneFoldersRemovesOnlyOrphans(t *testing.T) {
	live := startKernel(t, nil)
	tmp := t.TempDir()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(t.TempDir(), "data.csv")
	if err := os.WriteFile(data, []byte("a\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	folders := map[string]string{
		"analyst-kernel-dead":     fmt.Sprintf("%d:1\n", gone.Process.Pid),
		"analyst-kernel-reused":   fmt.Sprintf("%d:1\n", os.Getpid()), // this pid, another start time
		"analyst-kernel-live":     fmt.Sprintf("%d\n", os.Getpid()),
		"analyst-kernel-no-owner": "",
		"something-else":          fmt.Sprintf("%d:1\n", gone.Process.Pid),
	}
	for dir, o := range folders {
		if err := os.MkdirAll(filepath.Join(tmp, dir, "data"), 0o755); err != nil {
			t.Fatal(err)
		}
		if o != "" {
			if err := os.WriteFile(filepath.Join(tmp, dir, "owner"), []byte(o), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A staged data file is a hard link: removing the folder keeps the data.
	if err := os.Link(data, filepath.Join(tmp, "analyst-kernel-dead", "data", "data.csv")); err != nil {
		t.Fatal(err)
	}
	removed, err := kernel.PruneFolders(tmp)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range removed {
		got = append(got, filepath.Base(r.Path))
	}
	slices.Sort(got)
	if strings.Join(got, ",") != "analyst-kernel-dead,analyst-kernel-reused" {
		t.Errorf("removed %v, want the folders of the exited process and of the reused pid", got)
	}
	for dir := range folders {
		_, err := os.Stat(filepath.Join(tmp, dir))
		if gone := slices.Contains(got, dir); gone == (err == nil) {
			t.Errorf("%s: removed %v, exists: %v", dir, gone, err)
		}
	}
	if b, err := os.ReadFile(data); err != nil || string(b) != "a\n1\n" {
		t.Errorf("the data after pruning its staged link: %q %v", b, err)
	}
	// The live kernel's own folder names this process: never removed.
	if removed, err := kernel.PruneFolders(os.TempDir()); err != nil {
		t.Fatal(err)
	} else {
		for _, r := range removed {
			if r.OwnerPID == os.Getpid() {
				t.Errorf("removed %s of this live process", r.Path)
			}
		}
	}
	mustOK(t, live, "1")
}

// assertNoContainer checks whether podman knows a container by that name.
func assertNoContainer(t *testing.T, name string, wantExists bool) {
	t.Helper()
	out, err := exec.Command("podman", "ps", "--all", "--filter", "name=^"+name+"$", "--format", "{{.Names}}").Output()
	if err != nil {
		t.Fatalf("podman ps: %v", err)
	}
	exists := strings.TrimSpace(string(out)) != ""
	if exists != wantExists {
		t.Errorf("container %s exists = %v, want %v", name, exists, wantExists)
	}
}

func TestMain(m *testing.M) {
	os.Exit(m.Run())
}

// describe renders charts for a failure message, without the PNG bytes.
func describe(charts []kernel.Chart) string {
	var b strings.Builder
	for i, c := range charts {
		fmt.Fprintf(&b, "\n[%d] %d PNG bytes, %s", i, len(c.PNG), c.Description)
	}
	return b.String()
}
