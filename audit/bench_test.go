package audit_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/audit"
	"github.com/analyst-cli/analyst/examples"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/pipeline"
)

// BenchmarkVerifyVsNbconvert: `analyst verify` of the 1,000,000-row sales
// run (file hashes, a fresh kernel, every cell re-run and compared) vs
// `jupyter nbconvert --execute` of the same notebook in a fresh sandbox of
// the same image with the same data; interleaved, medians and their ratio.
func BenchmarkVerifyVsNbconvert(b *testing.B) {
	dir := b.TempDir()
	share := filepath.Join(dir, "share")
	os.Mkdir(share, 0o755)
	data := filepath.Join(share, "sales.csv")
	var buf bytes.Buffer
	if err := examples.WriteSales(&buf, 1_000_000, 1); err != nil {
		b.Fatal(err)
	}
	os.WriteFile(data, buf.Bytes(), 0o644)
	ctx := context.Background()
	kopts := kerneltest.Options(b)
	out := filepath.Join(dir, "out")
	res, err := pipeline.Run(ctx, pipeline.Options{Data: data, OutDir: out, Kernel: kopts, CellTimeout: 10 * time.Minute,
		AnalystVersion: "bench", ImageID: "bench", Versions: map[string]string{"python": "3"}})
	if err != nil {
		b.Fatal(err)
	}
	nb, _ := os.ReadFile(res.Files.Notebook)
	os.WriteFile(filepath.Join(share, "sales.ipynb"), nb, 0o644)
	nbOpts := kopts
	nbOpts.Data = share
	var ours, theirs []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		run, err := audit.Open(out)
		if err != nil {
			b.Fatal(err)
		}
		rep, err := audit.Verify(ctx, run, audit.Options{Kernel: kopts, CellTimeout: 10 * time.Minute})
		if err != nil || !rep.OK {
			b.Fatalf("verify: %v (ok %v)", err, rep != nil && rep.OK)
		}
		ours = append(ours, time.Since(start))
		theirs = append(theirs, kerneltest.RunOnce(b, nbOpts, "jupyter", "nbconvert", "--to", "notebook", "--execute",
			"--ExecutePreprocessor.timeout=600", "--output", "/tmp/out", "/data/sales.ipynb"))
	}
	b.ReportMetric(median(ours).Seconds(), "verify-s")
	b.ReportMetric(median(theirs).Seconds(), "nbconvert-s")
	b.ReportMetric(float64(median(ours))/float64(median(theirs)), "ratio")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
