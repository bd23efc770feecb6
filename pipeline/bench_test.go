package pipeline_test

import (
	"context"
	"fmt"
	"github.com/analyst-cli/analyst/eda"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

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
