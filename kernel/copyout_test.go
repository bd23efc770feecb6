package kernel_test

// Attacks on the copy out of /output and on the clock of a cell (issue 20,
// item 1): a sparse or growing file must not stall the kernel, and nothing
// the driver sends may keep a cell alive past its timeout or a Ctrl-C.

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/kernel"
)

// stallBound is how long a test waits for Execute before calling the
// kernel stalled: far above the cell timeouts and grace used here, so it
// measures nothing but "it ends".
const stallBound = 90 * time.Second

// executeWithin runs code and fails the test if Execute has not returned
// after stallBound.
func executeWithin(t *testing.T, ctx context.Context, k *kernel.Kernel, code string, timeout time.Duration) (*kernel.Execution, error) {
	t.Helper()
	type result struct {
		ex  *kernel.Execution
		err error
	}
	done := make(chan result, 1)
	go func() {
		ex, err := k.Execute(ctx, code, kernel.ExecOptions{Timeout: timeout})
		done <- result{ex, err}
	}()
	select {
	case r := <-done:
		return r.ex, r.err
	case <-time.After(stallBound):
		t.Fatalf("Execute had not returned %s after it began (cell timeout %s): the kernel is stalled", stallBound, timeout)
		return nil, nil
	}
}

// A 1 TiB sparse file is refused from its size, before a byte is sent: the
// cell ends at once, says why, and the files beside it are copied.
func TestOutputSparseFileRefusedFromSize(t *testing.T) {
	out := t.TempDir()
	k := startKernel(t, func(o *kernel.Options) { o.OutputDir = out })
	ex, err := executeWithin(t, context.Background(), k, `
with open("/output/huge.bin", "wb") as f:
    f.truncate(1 << 40)
open("/output/small.txt", "w").write("kept")
`, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := "output folder full (limit 256 MiB): /output/huge.bin (1 TiB, sparse: 0 B on disk) was not copied out"
	if ex.Status != kernel.StatusError || ex.Error == nil || ex.Error.Name != "OutputNotCopied" || !strings.Contains(ex.Error.Value, want) {
		t.Fatalf("status %s, error %+v; want OutputNotCopied %q", ex.Status, ex.Error, want)
	}
	if b, err := os.ReadFile(filepath.Join(out, "small.txt")); err != nil || string(b) != "kept" {
		t.Errorf("small.txt beside it: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(out, "huge.bin")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("huge.bin reached the host: %v", err)
	}
	assertNoPartialFiles(t, out)
	if got := mustOK(t, k, "'alive'").Text(); got != "'alive'" {
		t.Errorf("after the sparse file: %q", got)
	}
}

// A file that grows while it is copied out is copied as large as it was
// when the copy began: a thread of the cell waits until the driver has read
// the first chunk of a 20 MiB file, then extends it by a 64 MiB hole and a
// tail; the host gets the 20 MiB, byte for byte.
func TestOutputGrowingFileReadToCheckedSize(t *testing.T) {
	out := t.TempDir()
	k := startKernel(t, func(o *kernel.Options) { o.OutputDir = out })
	ex, err := executeWithin(t, context.Background(), k, `
import os, threading, time
PATTERN = b"0123456789abcdef"
with open("/output/grow.bin", "wb") as f:
    f.write(PATTERN * ((20 << 20) // 16))
grown_at = []

def grow():
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for fd in os.listdir("/proc/self/fd"):
            try:
                if os.readlink("/proc/self/fd/" + fd) != "/output/grow.bin":
                    continue
                with open("/proc/self/fdinfo/" + fd) as info:
                    pos = int(info.readline().split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if pos > 0:
                with open("/output/grow.bin", "r+b") as g:
                    g.seek(0, 2)
                    g.seek(64 << 20, 1)
                    g.write(b"TAIL")
                grown_at.append(pos)
                return
        time.sleep(0.0005)

threading.Thread(target=grow, daemon=True).start()
`, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Status != kernel.StatusOK {
		t.Fatalf("status %s, error %+v", ex.Status, ex.Error)
	}
	// Read the host's copy before the next cell copies the grown file.
	got, err := os.ReadFile(filepath.Join(out, "grow.bin"))
	if err != nil {
		t.Fatal(err)
	}
	var grown struct {
		At   []int64
		Size int64
	}
	jsonCell(t, k, "import json\nprint(json.dumps({'at': grown_at, 'size': os.path.getsize('/output/grow.bin')}))", &grown)
	if len(grown.At) != 1 || grown.At[0] >= 20<<20 || grown.Size != 84<<20+4 {
		t.Fatalf("the file did not grow while it was copied out (grown at read position %v, size now %d): the test proves nothing", grown.At, grown.Size)
	}
	want := bytes.Repeat([]byte("0123456789abcdef"), (20<<20)/16)
	if !bytes.Equal(got, want) {
		t.Errorf("the host's grow.bin has %d bytes (tail %q), want the %d it had when the copy began (it grew at read position %d)",
			len(got), tail(got), len(want), grown.At[0])
	}
}

func tail(b []byte) []byte { return b[max(0, len(b)-8):] }

func assertNoPartialFiles(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".analyst-partial-") {
			t.Errorf("partial file left behind: %s", e.Name())
		}
	}
}

// endlessStream is a cell that subverts the driver it shares a process
// with: after the cell, its files are "copied out" as an endless stream of
// 1 MiB chunks of a 1 TiB file. Only the kernel's clock can stop it.
const endlessStream = `
import base64, sys
drv = sys.modules["__main__"]
def endless(req_id, *args):
    data = base64.b64encode(bytes(1 << 20)).decode()
    offset = 0
    while True:
        drv.send({"type": "file", "id": req_id, "path": "zeros.bin", "offset": offset,
                  "size": 1 << 40, "data": data, "eof": False})
        offset += 1 << 20
drv.copy_out = endless
`

// The cell timeout, and the caller's cancel (Ctrl-C, SIGTERM), stop a cell
// whatever the driver sends: after the interrupt the kernel has its grace,
// then it is killed and its container removed.
func TestCellClockStopsEndlessFileStream(t *testing.T) {
	for _, tt := range []struct {
		name    string
		timeout time.Duration
		cancel  time.Duration // cancel the ctx after this; 0: never
		want    kernel.Status
		wantErr error
	}{
		{"timeout", 3 * time.Second, 0, kernel.StatusTimeout, nil},
		{"cancel", 10 * time.Minute, 3 * time.Second, kernel.StatusInterrupted, context.Canceled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := startKernel(t, func(o *kernel.Options) { o.OutputDir = t.TempDir(); o.InterruptGrace = 2 * time.Second })
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel > 0 {
				time.AfterFunc(tt.cancel, cancel)
			}
			ex, err := executeWithin(t, ctx, k, endlessStream, tt.timeout)
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("Execute: error %v, want %v", err, tt.wantErr)
			}
			if ex.Status != tt.want || !ex.StateLost || !strings.Contains(ex.Cause, "the kernel was killed") {
				t.Errorf("status %s, state lost %v, cause %q; want %s, the kernel killed", ex.Status, ex.StateLost, ex.Cause, tt.want)
			}
			if _, err := k.Execute(context.Background(), "1", kernel.ExecOptions{}); !errors.Is(err, kernel.ErrDead) {
				t.Errorf("after the kill: %v, want ErrDead", err)
			}
			// Removed already, before Close.
			out, err := exec.Command("podman", "ps", "--all", "--filter", "name=^"+k.Name()+"$", "--format", "{{.Names}}").CombinedOutput()
			if err != nil || strings.TrimSpace(string(out)) != "" {
				t.Errorf("the killed kernel's container is still there: %q %v", out, err)
			}
		})
	}
}

// 20,000 files in /output: the kernel copies out the most it may (10,000)
// and the error names the rest in a few lines, not one line per file.
func TestOutputTooManyFilesShortError(t *testing.T) {
	out := t.TempDir()
	k := startKernel(t, func(o *kernel.Options) { o.OutputDir = out })
	ex, err := executeWithin(t, context.Background(), k, `
for i in range(20000):
    open("/output/f%05d.txt" % i, "w").close()
`, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Status != kernel.StatusError || ex.Error == nil || ex.Error.Name != "OutputNotCopied" {
		t.Fatalf("status %s, error %+v", ex.Status, ex.Error)
	}
	if n := len(ex.Error.Traceback); n > 8 {
		t.Errorf("the error has %d lines, want a few; it begins:\n%s", n, strings.Join(ex.Error.Traceback[:8], "\n"))
	}
	if !strings.Contains(ex.Error.Value, "more than 10000 files in /output: this file and any after it were not copied out") {
		t.Errorf("the error does not say how many files it copies: %q", ex.Error.Value)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 10000 {
		t.Errorf("%d files copied out, want 10000", len(entries))
	}
}

// A file under a path longer than PATH_MAX (here 9 KB deep): the driver
// walks /output by descriptor and finds it, but its name is longer than
// analyst copies out (maxOutputName): it is not copied, and the cell says
// so instead of saying nothing.
func TestOutputDeepPathReported(t *testing.T) {
	out := t.TempDir()
	k := startKernel(t, func(o *kernel.Options) { o.OutputDir = out })
	ex, err := executeWithin(t, context.Background(), k, `
import os
os.chdir("/output")
for _ in range(45):
    os.mkdir("d" * 200)
    os.chdir("d" * 200)
open("deep.txt", "w").write("deep")
os.chdir("/tmp")
open("/output/shallow.txt", "w").write("shallow")
`, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	want := "was not copied out: its name is longer than 4096 bytes"
	if ex.Status != kernel.StatusError || ex.Error == nil || ex.Error.Name != "OutputNotCopied" || !strings.Contains(ex.Error.Value, want) {
		t.Fatalf("status %s, error %+v; want OutputNotCopied %q", ex.Status, ex.Error, want)
	}
	if len(ex.Error.Value) > 1000 {
		t.Errorf("the error is %d bytes long: the path is not shortened", len(ex.Error.Value))
	}
	if b, err := os.ReadFile(filepath.Join(out, "shallow.txt")); err != nil || string(b) != "shallow" {
		t.Errorf("shallow.txt: %q %v", b, err)
	}
}

// A figure that cannot be drawn (here out of memory, as where memory is
// limited per process) ends the cell with an error that says why.
func TestFigureNotRenderedSaysWhy(t *testing.T) {
	k := startKernel(t, nil)
	ex := run(t, k, `
import resource
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
vm = int([l for l in open("/proc/self/status") if l.startswith("VmSize")][0].split()[1]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + (300 << 20), hard))
plt.figure(figsize=(95, 95), dpi=100)
plt.plot([1, 2, 3])
`)
	mustOK(t, k, "resource.setrlimit(resource.RLIMIT_AS, (soft, hard))")
	want := "could not render figure 1 (9500x9500 pixels): MemoryError"
	if ex.Status != kernel.StatusError || ex.Error == nil || !strings.Contains(ex.Error.Value, want) || !strings.Contains(ex.Error.Value, "out of memory while drawing it") {
		t.Fatalf("status %s, error %+v, stderr %q; want an error %q, out of memory", ex.Status, ex.Error, ex.Stderr(), want)
	}
}

// Issue 32 item 13: a 40000x40000 figure is an error of its cell, checked
// before any drawing, not a kernel killed at its memory limit: the state
// is kept.
func TestFigureTooLargeIsACellError(t *testing.T) {
	k := startKernel(t, nil)
	mustOK(t, k, "kept = 42")
	ex := run(t, k, "plt.figure(figsize=(400, 400), dpi=100)\nplt.plot([1, 2, 3])")
	want := "could not render figure 1 (40000x40000 pixels): FigureTooLarge: it would be 40000x40000 pixels, more than the 100 million"
	if ex.Status != kernel.StatusError || ex.Error == nil || !strings.Contains(ex.Error.Value, want) {
		t.Fatalf("status %s, error %+v; want an error %q", ex.Status, ex.Error, want)
	}
	if got := strings.TrimSpace(mustOK(t, k, "print(kept)").Stdout()); got != "42" {
		t.Errorf("after the figure, kept = %q; want the state kept", got)
	}
}

// A cell whose time runs out while its files are copied out: the driver
// stops at the next chunk, the kernel keeps its state, the cell says the
// file was not copied, and it is copied after the next cell. (Where the
// machine is so slow that the time runs out in the cell's sleep, the
// interrupt stops the copy before it begins: the same outcome.)
func TestCellTimeoutStopsCopyOutKeepsState(t *testing.T) {
	out := t.TempDir()
	k := startKernel(t, func(o *kernel.Options) { o.OutputDir = out })
	ex, err := executeWithin(t, context.Background(), k, `
import os, time
kept = 42
fd = os.open("/output/big.bin", os.O_WRONLY | os.O_CREAT)
os.posix_fallocate(fd, 0, 64 << 20)  # 16 chunks
os.close(fd)
time.sleep(2.5)
`, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := "/output/big.bin was not copied out: the cell was interrupted while its files were copied out"
	var said bool
	for _, o := range ex.Outputs {
		said = said || (o.EName == "OutputNotCopied" && strings.Contains(o.EValue, want))
	}
	if ex.Status != kernel.StatusTimeout || ex.StateLost || !said {
		t.Fatalf("status %s, state lost %v, outputs %+v; want a timeout, the state kept, %q", ex.Status, ex.StateLost, ex.Outputs, want)
	}
	if _, err := os.Stat(filepath.Join(out, "big.bin")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("big.bin reached the host after the interrupt: %v", err)
	}
	assertNoPartialFiles(t, out)
	if got := runTimeout(t, k, "kept", 5*time.Minute); got.Status != kernel.StatusOK || got.Text() != "42" {
		t.Errorf("the kernel's state after the interrupt: %s %q", got.Status, got.Text())
	}
	if fi, err := os.Stat(filepath.Join(out, "big.bin")); err != nil || fi.Size() != 64<<20 {
		t.Errorf("big.bin after the next cell: %v %v, want 64 MiB", fi, err)
	}
}

// An interrupt that comes before the cell has begun (a timeout of 1 ms)
// still stops it: the kernel keeps its state, instead of being killed after
// the grace because the interrupt was lost.
func TestTimeoutBeforeCellBeginsKeepsState(t *testing.T) {
	k := startKernel(t, func(o *kernel.Options) { o.InterruptGrace = 2 * time.Second })
	mustOK(t, k, "kept = 42")
	for range 3 {
		ex, err := executeWithin(t, context.Background(), k, "import time\ntime.sleep(30)", time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if ex.Status != kernel.StatusTimeout || ex.StateLost {
			t.Fatalf("status %s, state lost %v (%s); want a timeout, the state kept", ex.Status, ex.StateLost, ex.Cause)
		}
	}
	if got := mustOK(t, k, "kept").Text(); got != "42" {
		t.Errorf("after the interrupts: %q", got)
	}
}
