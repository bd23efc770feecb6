package pipeline_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/pipeline"
)

// A gzip bomb (a small file that expands to far more than its size
// suggests) is stopped by the cell timeout while it loads: the run fails
// as a limit of the sandbox (exit 5), saying what to raise, not with the
// timeout's KeyboardInterrupt as a stage's error (exit 1), which is what
// rootless podman showed (rootful, the load ignored the interrupt, the
// kernel was killed, and that was already exit 5).
func TestGzipBombStopsAtTheCellTimeout(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "bomb.csv.gz")
	// 64 GB of blank lines in 64 MB: one gzip member of 64 MiB, repeated
	// (a gzip file may hold many). Blank lines are skipped, so the load
	// holds no memory and meets the clock, rootful and rootless alike.
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	zw.Write(bytes.Repeat([]byte("\n"), 64<<20))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(data)
	if err != nil {
		t.Fatal(err)
	}
	head, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	head.Write([]byte("a,b\n1,2\n"))
	head.Close()
	for range 1000 {
		f.Write(member.Bytes())
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	opts := options(t, data, filepath.Join(dir, "out"))
	opts.CellTimeout = 20 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	_, err = pipeline.Run(ctx, opts)
	var sb *pipeline.SandboxError
	if !errors.As(err, &sb) {
		t.Fatalf("err = %v (%T), want a SandboxError", err, err)
	}
	for _, want := range []string{"stage load: " + data + " did not finish within the cell timeout", "--cell-timeout", "--out-of-core"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "KeyboardInterrupt") {
		t.Errorf("error %q names the interrupt, not the limit", err)
	}
}
