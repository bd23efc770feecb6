package pipeline_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/examples"
	"github.com/analyst-cli/analyst/internal/filehash"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/pipeline"
)

// BenchmarkRunVsNbconvert: `analyst run` (EDA only, end to end: kernel
// start, all stages, notebook, report, charts) on the 1,000,000-row sales
// CSV vs `jupyter nbconvert --execute` of the notebook that run produced, in
// a sandbox of the same image with the same data mounted; also the
// visualization stage's own time.
func BenchmarkRunVsNbconvert(b *testing.B) {
	dir := b.TempDir()
	data := salesCSV(b, dir, 1_000_000)
	share := filepath.Join(dir, "share")
	os.Mkdir(share, 0o755)
	os.Link(data, filepath.Join(share, "sales.csv"))
	var ours, theirs, viz []time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, err := pipeline.Run(context.Background(), options(b, data, filepath.Join(dir, "out")))
		if err != nil {
			b.Fatal(err)
		}
		ours = append(ours, time.Since(start))
		for _, s := range res.Stages {
			if s.Name == eda.StageVisualization {
				viz = append(viz, s.Duration)
			}
		}
		nb, _ := os.ReadFile(res.Files.Notebook)
		os.WriteFile(filepath.Join(share, "sales.ipynb"), nb, 0o644)
		theirs = append(theirs, nbconvert(b, share))
	}
	b.ReportMetric(median(ours).Seconds(), "run-s")
	b.ReportMetric(median(theirs).Seconds(), "nbconvert-s")
	b.ReportMetric(float64(median(ours))/float64(median(theirs)), "ratio")
	if len(viz) > 0 {
		b.ReportMetric(median(viz).Seconds(), "visualization-s")
	}
}

func nbconvert(b *testing.B, share string) time.Duration {
	b.Helper()
	opts := kerneltest.Options(b)
	opts.Data = share
	return kerneltest.RunOnce(b, opts, "jupyter", "nbconvert", "--to", "notebook", "--execute",
		"--ExecutePreprocessor.timeout=600", "--output", "/tmp/out", "/data/sales.ipynb")
}

// BenchmarkRunScaling: `analyst run` at 100k, 1M and 4M rows.
func BenchmarkRunScaling(b *testing.B) {
	for _, rows := range []int{100_000, 1_000_000, 4_000_000} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			dir := b.TempDir()
			data := salesCSV(b, dir, rows)
			var ds []time.Duration
			for i := 0; i < b.N; i++ {
				start := time.Now()
				if _, err := pipeline.Run(context.Background(), options(b, data, filepath.Join(dir, "out"))); err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(start))
			}
			b.ReportMetric(median(ds).Seconds(), "run-s")
			b.ReportMetric(median(ds).Seconds()/(float64(rows)/1e6), "s-per-Mrow")
		})
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkDataCheck: what a run pays to make run.json's sha256 the hash of
// the bytes the kernel read, on a 500 MB file, either way: checking the
// file the kernel read from (a stat after each stage and one more sha256
// once the kernel is gone: what a run does), or reading from a private
// copy made while hashing (one pass that copies and hashes; the copy then
// takes as much disk again). Both read the file from the page cache, as a
// run does right after it read it.
func BenchmarkDataCheck(b *testing.B) {
	dir := b.TempDir()
	data := filepath.Join(dir, "data.csv")
	writeSize(b, data, 500_000_000)
	b.Run("stat", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := os.Stat(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sha256 again", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := filehash.SHA256(data); err != nil {
				b.Fatal(err)
			}
		}
		b.SetBytes(500_000_000)
	})
	b.Run("private copy while hashing", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			copyHashing(b, data, filepath.Join(dir, "copy.csv"))
		}
		b.SetBytes(500_000_000)
	})
}

// writeSize writes a sales CSV of n bytes: the example's rows, repeated.
func writeSize(b *testing.B, path string, n int64) {
	var rows bytes.Buffer
	if err := examples.WriteSales(&rows, 100_000, 3); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for written := int64(0); written < n; {
		k, err := f.Write(rows.Bytes()[:min(int64(rows.Len()), n-written)])
		if err != nil {
			b.Fatal(err)
		}
		written += int64(k)
	}
}

func copyHashing(b *testing.B, src, dst string) {
	in, err := os.Open(src)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		b.Fatal(err)
	}
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(out, h), in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
	_ = h.Sum(nil)
	os.Remove(dst)
}
