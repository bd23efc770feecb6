package pipeline_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/dataset"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/examples"
	"github.com/analyst-cli/analyst/pipeline"
	"github.com/analyst-cli/analyst/report"
)

// rewriteInPlace changes one value of the file without changing its size or
// inode, as an editor that saves in place or a second export would; with
// keepMtime it then puts the modification time back (touch -r), which
// leaves only the inode's change time and the bytes to tell.
func rewriteInPlace(t *testing.T, path string, keepMtime bool) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.LastIndexAny(b, "123456789")
	b[at] = '0' + (b[at]-'0'+1)%10
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(b[at:at+1], int64(at)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if keepMtime {
		if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
}

// The data rewritten while the run reads it: the run stops with a
// *DataError that names the file and what changed, at the stage that read
// it or, when only the bytes tell, once the kernel is gone; it still writes
// what it has, with that failure. The trigger is a progress event of the
// run itself, so the file changes while the kernel reads it, every time.
func TestDataRewrittenDuringTheRunStopsIt(t *testing.T) {
	parquet := func(t *testing.T, dir string) string {
		p := filepath.Join(dir, "sales.parquet")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := examples.WriteSalesParquet(f, 500, 3); err != nil {
			t.Fatal(err)
		}
		return p
	}
	csv := func(rows int) func(*testing.T, string) string {
		return func(t *testing.T, dir string) string { return salesCSV(t, dir, rows) }
	}
	// readingTheFile is the load's first progress event: it has read some
	// of the file, not all.
	readingTheFile := func(e pipeline.Event) bool {
		return e.Type == pipeline.EventProgress && e.Stage == eda.StageLoad && e.Unit == "bytes" && e.Done < e.Total
	}
	starts := func(stage string) func(pipeline.Event) bool {
		return func(e pipeline.Event) bool { return e.Type == pipeline.EventStageStart && e.Stage == stage }
	}
	for _, tc := range []struct {
		name      string
		data      func(*testing.T, string) string
		outOfCore bool
		when      func(pipeline.Event) bool
		keepMtime bool
		stopsAt   string // the stage whose end found the change; "" for the check after the run
		want      string
	}{
		{name: "csv during the load", data: csv(50_000), when: readingTheFile, stopsAt: eda.StageLoad, want: "it was modified at "},
		{name: "csv with its modification time put back", data: csv(50_000), when: readingTheFile, keepMtime: true,
			want: "its sha256 is now "},
		{name: "out of core during the profile pass", data: csv(2000), outOfCore: true, when: starts(eda.StageProfile),
			stopsAt: eda.StageProfile, want: "it was modified at "},
		{name: "parquet after its conversion", data: parquet, when: starts(eda.StageLoad), stopsAt: eda.StageLoad, want: "it was modified at "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			data := tc.data(t, dir)
			before := sha(t, data)
			opts := options(t, data, filepath.Join(dir, "out"))
			if tc.outOfCore {
				opts.OutOfCore = pipeline.OutOfCoreOn
			}
			res, err := runRewriting(t, opts, tc.when, data, tc.keepMtime)
			var de *dataset.DataError
			if !errors.As(err, &de) || de.Path != data || !strings.Contains(de.Msg, "the file changed while the run read it ("+tc.want) {
				t.Fatalf("a run whose data was rewritten while it read it: error %v (%T), want a DataError naming %s and %q", err, err, data, tc.want)
			}
			if res == nil || res.Manifest == nil || !strings.Contains(res.Manifest.Failure, "changed while the run read it") {
				t.Fatalf("the outputs do not record the failure: %+v", res)
			}
			if res.Manifest.Data.SHA256 != before {
				t.Errorf("run.json's sha256 %s is not the one checked before the run, %s", res.Manifest.Data.SHA256, before)
			}
			for _, s := range res.Stages {
				switch {
				case s.Name == tc.stopsAt && s.Status != report.StatusError:
					t.Errorf("stage %s: %s, want it to stop the run", s.Name, s.Status)
				case tc.stopsAt != "" && s.Name == eda.StageVisualization:
					t.Errorf("the run went on to %s after the data changed", s.Name)
				}
			}
		})
	}
}

// runRewriting runs opts and rewrites file (rewriteInPlace) at the first
// event when says is the moment; it fails t if that never came.
func runRewriting(t *testing.T, opts pipeline.Options, when func(pipeline.Event) bool, file string, keepMtime bool) (*pipeline.Result, error) {
	t.Helper()
	fired := false
	opts.Progress = func(e pipeline.Event) {
		if !fired && when(e) {
			fired = true
			rewriteInPlace(t, file, keepMtime)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := pipeline.Run(ctx, opts)
	if !fired {
		t.Fatalf("the trigger never fired (run error: %v)", err)
	}
	return res, err
}

// A file made unreadable after the preflight read it (chmod 000 as the load
// starts) is bad data, exit 3 in the CLI: a *DataError that says to check
// its permissions, not a failed stage (exit 1).
func TestDataMadeUnreadableDuringTheRun(t *testing.T) {
	dir := t.TempDir()
	data := salesCSV(t, dir, 200)
	opts := options(t, data, filepath.Join(dir, "out"))
	in, err := dataset.CheckFile(data)
	if err != nil {
		t.Fatal(err)
	}
	opts.Input = in
	t.Cleanup(func() { os.Chmod(data, 0o644) })
	opts.Progress = func(e pipeline.Event) {
		if e.Type == pipeline.EventStageStart && e.Stage == eda.StageLoad {
			if err := os.Chmod(data, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	_, err = pipeline.Run(ctx, opts)
	var de *dataset.DataError
	if !errors.As(err, &de) || !strings.Contains(de.Msg, "chmod a+r") || !strings.Contains(err.Error(), data) {
		t.Fatalf("data made unreadable during the run: %v (%T), want a DataError naming %s that says to check its permissions", err, err, data)
	}
}

// A folder's table rewritten during the run stops it as a file does, naming
// that table: every table and document of a folder is checked after each
// stage. customers.csv, loaded first, changes as the next table's load
// begins.
func TestFolderTableRewrittenDuringTheRunStopsIt(t *testing.T) {
	shop := filepath.Join(t.TempDir(), "shop")
	if err := os.Mkdir(shop, 0o755); err != nil {
		t.Fatal(err)
	}
	salesCSV(t, shop, 2000)
	customers := filepath.Join(shop, "customers.csv")
	if err := os.WriteFile(customers, []byte("customer_id,segment\nc1,retail\nc2,wholesale\nc3,retail\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := options(t, shop, filepath.Join(t.TempDir(), "out"))
	salesLoad := func(e pipeline.Event) bool {
		return e.Type == pipeline.EventStageStart && e.Stage == eda.TableStage(eda.StageLoad, "sales")
	}
	_, err := runRewriting(t, opts, salesLoad, customers, false)
	var de *dataset.DataError
	if !errors.As(err, &de) || de.Path != customers || !strings.Contains(de.Msg, "the file changed while the run read it (it was modified at ") {
		t.Fatalf("a run whose folder table was rewritten: error %v (%T), want a DataError naming %s", err, err, customers)
	}
}
