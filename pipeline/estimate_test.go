package pipeline_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/examples"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/pipeline"
)

// writeFile writes the CSV that write produces to dir/name.
func writeFile(t *testing.T, dir, name string, write func(*bytes.Buffer)) string {
	t.Helper()
	var b bytes.Buffer
	write(&b)
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Test data for the estimate: the sales data (numbers, dates, short
// repeated text), text-heavy data (long, mostly distinct, partly non-ASCII
// strings with missing values) and numbers only.
func estimateFiles(t *testing.T, dir string) []string {
	sales := writeFile(t, dir, "sales.csv", func(b *bytes.Buffer) {
		if err := examples.WriteSales(b, 120_000, 5); err != nil {
			t.Fatal(err)
		}
	})
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"order", "delayed", "customer", "café", "naïve", "refund", "Zürich", "shipped", "報告", "quickly"}
	text := writeFile(t, dir, "text.csv", func(b *bytes.Buffer) {
		b.WriteString("id,comment,city,code\n")
		for i := range 60_000 {
			var c []string
			for range 3 + r.IntN(12) {
				c = append(c, words[r.IntN(len(words))])
			}
			comment := strings.Join(c, " ")
			if r.IntN(20) == 0 {
				comment = ""
			}
			fmt.Fprintf(b, "%d,%q,%s,K-%06d\n", i, comment, words[r.IntN(len(words))], r.IntN(1_000_000))
		}
	})
	numbers := writeFile(t, dir, "numbers.csv", func(b *bytes.Buffer) {
		b.WriteString("a,b,c,d,e,f\n")
		for i := range 150_000 {
			fmt.Fprintf(b, "%d,%.6f,%.3f,%d,%.2f,%g\n", i, r.Float64(), r.NormFloat64()*1000, r.IntN(100), r.Float64()*1e6, r.ExpFloat64())
		}
	})
	// The same sales data gzip-compressed: the estimate scales by the
	// compressed bytes the sample took.
	gz := filepath.Join(dir, "sales.csv.gz")
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	raw, _ := os.ReadFile(sales)
	zw.Write(raw)
	zw.Close()
	if err := os.WriteFile(gz, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{sales, text, numbers, gz}
}

// The estimate made on the host, from a sample of the file, must be within
// a factor of 1.25 of what pandas reports once the loader has read the
// whole file: df.memory_usage(deep=True).sum().
func TestFrameEstimateMatchesPandas(t *testing.T) {
	kopts := kerneltest.Options(t)
	dir := t.TempDir()
	files := estimateFiles(t, dir)
	actual := pandasBytes(t, kopts, dir, files)
	for _, path := range files {
		in, err := pipeline.CheckInput(path)
		if err != nil {
			t.Fatal(err)
		}
		if in.Frame == nil || in.Frame.Bytes <= 0 {
			t.Fatalf("%s: no estimate: %+v", path, in.Frame)
		}
		// The sample must be a part of the file, not all of it, for the
		// scaling to be tested.
		if fi, _ := os.Stat(path); fi.Size() <= 4<<20 && !strings.HasSuffix(path, ".gz") {
			t.Fatalf("%s is %d bytes: make it larger than the 4 MiB sample", path, fi.Size())
		}
		name := filepath.Base(path)
		ratio := float64(in.Frame.Bytes) / float64(actual[name])
		t.Logf("%s: estimate %d bytes (%s), pandas %d, ratio %.3f", name, in.Frame.Bytes, in.Frame.Method, actual[name], ratio)
		if ratio < 0.8 || ratio > 1.25 {
			t.Errorf("%s: estimate %d bytes, pandas says %d: ratio %.3f, want 0.8 to 1.25", name, in.Frame.Bytes, actual[name], ratio)
		}
	}
}

// pandasBytes loads each file (in dir) with the run's loader, in one kernel,
// and returns df.memory_usage(deep=True).sum() by file name.
func pandasBytes(t *testing.T, kopts kernel.Options, dir string, files []string) map[string]int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	kopts.Data = dir
	k, err := kernel.Start(ctx, kopts)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	out := map[string]int64{}
	for i, path := range files {
		name := filepath.Base(path)
		cells := eda.Load(kernel.DataMount + "/" + name).Cells
		if i == 0 {
			cells = append(eda.Setup().Cells, cells...)
		}
		cells = append(cells, eda.Code("print(int(df.memory_usage(deep=True).sum()))"))
		var last string
		for _, c := range cells {
			if c.Markdown {
				continue
			}
			ex, err := k.Execute(ctx, c.Source, kernel.ExecOptions{Timeout: 2 * time.Minute})
			if err != nil || ex.Status != kernel.StatusOK {
				t.Fatalf("%s: cell failed: %v %+v", name, err, ex)
			}
			last = ex.Stdout()
		}
		if out[name], err = strconv.ParseInt(strings.TrimSpace(last), 10, 64); err != nil {
			t.Fatalf("%s: memory_usage printed %q", name, last)
		}
	}
	return out
}

// A file whose frame will not fit in the memory limit is refused before any
// kernel starts: a *MemoryError that says the file's size, the estimate,
// the limit and what to change; no podman command runs and nothing is
// written.
func TestRunRefusesDataLargerThanMemory(t *testing.T) {
	dir := t.TempDir()
	data := salesCSV(t, dir, 200_000)
	out := filepath.Join(dir, "out")
	opts := options(t, data, out)
	opts.Kernel.Limits.MemoryBytes = 200 << 20
	// Under the default (auto) a CSV that will not fit is read out of core
	// instead: Preflight lets it through.
	if _, _, err := pipeline.Preflight(opts); err != nil {
		t.Fatalf("Preflight with --out-of-core auto: %v, want the run to go out of core", err)
	}
	opts.OutOfCore = pipeline.OutOfCoreOff
	runner := &forbiddenRunner{t: t}
	opts.Kernel.Runner = runner
	res, err := pipeline.Run(context.Background(), opts)
	var memErr *pipeline.MemoryError
	if !errors.As(err, &memErr) {
		t.Fatalf("Run: %v, want a *pipeline.MemoryError", err)
	}
	msg := err.Error()
	for _, want := range []string{"sales.csv: the data will not fit in the kernel's memory", "the file is 12.", "as a pandas DataFrame it would take about",
		"memory limit of 200 MiB", "--memory 397MiB", "kernel.memory", "ANALYST_KERNEL_MEMORY", "--out-of-core"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if res != nil {
		t.Errorf("a refused run returned a result: %+v", res)
	}
	if runner.calls > 0 {
		t.Errorf("podman ran %d times for a refused run", runner.calls)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused run made its output folder: %v", err)
	}
	// With the limit the message names, the same data passes the check.
	if err := memErr.Estimate; !err.Fits(397 << 20) {
		t.Errorf("the suggested --memory 397MiB does not fit the estimate %+v", err)
	}
}

// forbiddenRunner fails the test if anything runs.
type forbiddenRunner struct {
	t     *testing.T
	calls int
}

func (r *forbiddenRunner) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	r.calls++
	r.t.Errorf("ran %s %v", name, args)
	return nil, errors.New("forbidden")
}

func (r *forbiddenRunner) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	r.calls++
	r.t.Errorf("started %s %v", name, args)
	return exec.CommandContext(ctx, "false")
}
