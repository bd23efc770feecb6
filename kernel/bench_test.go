package kernel_test

// Benchmarks of the kernel against the baselines its design is measured by.
// Each benchmark times the kernel and its baseline side by side in one run,
// interleaved, and reports medians and their ratio. `make bench` runs them;
// docs/benchmarks.md has the figures.

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// The matplotlib font cache is built into the image; the driver copies it
// to the writable /tmp first. The baseline does the same, or it would pay
// for rebuilding the cache and flatter the kernel.
const seedFontCache = "import shutil; shutil.copytree('/usr/local/share/analyst/matplotlib', '/tmp/matplotlib'); "

// BenchmarkKernelReady: Start (container up, driver ready with pandas and
// matplotlib imported) vs a bare podman run that imports the same.
func BenchmarkKernelReady(b *testing.B) {
	opts := kerneltest.Options(b)
	ctx := context.Background()
	var ready, bare []time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		k, err := kernel.Start(ctx, opts)
		if err != nil {
			b.Fatal(err)
		}
		ready = append(ready, time.Since(start))
		b.StopTimer()
		k.Close()
		bare = append(bare, kerneltest.RunOnce(b, opts, "python3", "-c", seedFontCache+"import pandas, matplotlib.pyplot"))
		b.StartTimer()
	}
	b.ReportMetric(ms(median(ready)), "ready-ms")
	b.ReportMetric(ms(median(bare)), "bare-ms")
	b.ReportMetric(float64(median(ready))/float64(median(bare)), "ratio")
}

// BenchmarkCellRoundTrip: a trivial cell, request to status.
func BenchmarkCellRoundTrip(b *testing.B) {
	k, err := kernel.Start(context.Background(), kerneltest.Options(b))
	if err != nil {
		b.Fatal(err)
	}
	defer k.Close()
	var ds []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		ex, err := k.Execute(context.Background(), "x = 1", kernel.ExecOptions{})
		if err != nil || ex.Status != kernel.StatusOK {
			b.Fatalf("%v %v", err, ex)
		}
		ds = append(ds, time.Since(start))
	}
	b.StopTimer() // not the deferred Close
	slices.Sort(ds)
	b.ReportMetric(ms(median(ds)), "median-ms")
	b.ReportMetric(ms(ds[len(ds)*95/100]), "p95-ms")
}

const twelveBars = `fig, ax = plt.subplots()
ax.bar(['Jan','Feb','Mar','Apr','May','Jun','Jul','Aug','Sep','Oct','Nov','Dec'],
       [12, 15, 11, 18, 21, 19, 25, 27, 22, 30, 41, 45])
ax.set_title('Revenue by month'); ax.set_xlabel('month'); ax.set_ylabel('revenue')
`

// BenchmarkChartCapture: a 12-bar chart captured as an output (PNG and
// description) vs the same figure saved to a BytesIO in the same kernel.
func BenchmarkChartCapture(b *testing.B) {
	k, err := kernel.Start(context.Background(), kerneltest.Options(b))
	if err != nil {
		b.Fatal(err)
	}
	defer k.Close()
	run := func(code string) time.Duration {
		start := time.Now()
		ex, err := k.Execute(context.Background(), code, kernel.ExecOptions{})
		if err != nil || ex.Status != kernel.StatusOK {
			b.Fatalf("%v %+v", err, ex)
		}
		return time.Since(start)
	}
	capture := twelveBars + "plt.show()"
	savefig := "import io\n" + twelveBars + "buf = io.BytesIO()\nfig.savefig(buf, format='png', bbox_inches='tight')\nplt.close(fig)"
	run(capture) // warm matplotlib's caches for both
	run(savefig)
	var cap, save []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cap = append(cap, run(capture))
		save = append(save, run(savefig))
	}
	b.StopTimer()
	b.ReportMetric(ms(median(cap)), "capture-ms")
	b.ReportMetric(ms(median(save)), "savefig-ms")
	b.ReportMetric(float64(median(cap))/float64(median(save)), "ratio")
}

const monthlyRevenue = `m = df.groupby(df['date'].dt.to_period('M'))['revenue'].sum()
fig, ax = plt.subplots(figsize=(10, 4))
m.plot.bar(ax=ax, title='Revenue by month')
`

// BenchmarkFollowUp: a follow-up question (monthly revenue groupby and bar
// chart) in a warm kernel that holds the 1,000,000-row frame, vs a fresh
// container per question that imports, reads the CSV and draws.
func BenchmarkFollowUp(b *testing.B) {
	k, opts := loadedKernel(b)
	fresh := seedFontCache + "import pandas as pd, matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n" +
		loadSales + "\n" + monthlyRevenue + "fig.savefig('/tmp/chart.png', bbox_inches='tight')"
	var warm, cold []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		ex, err := k.Execute(context.Background(), monthlyRevenue+"plt.show()", kernel.ExecOptions{})
		if err != nil || ex.Status != kernel.StatusOK || len(ex.Charts()) != 1 {
			b.Fatalf("%v %+v", err, ex)
		}
		warm = append(warm, time.Since(start))
		cold = append(cold, kerneltest.RunOnce(b, opts, "python3", "-c", fresh))
	}
	b.StopTimer()
	b.ReportMetric(ms(median(warm)), "warm-ms")
	b.ReportMetric(ms(median(cold)), "fresh-ms")
	b.ReportMetric(float64(median(cold))/float64(median(warm)), "speedup")
}

// BenchmarkOutputCopyOut: what copying /output out after each cell costs.
// A kernel with an output folder runs a cell that writes nothing and one
// that saves a chart to /output/chart.png; a kernel without one runs the
// same cells (the chart saved to /tmp), interleaved.
func BenchmarkOutputCopyOut(b *testing.B) {
	opts := kerneltest.Options(b)
	plain, err := kernel.Start(context.Background(), opts)
	if err != nil {
		b.Fatal(err)
	}
	defer plain.Close()
	opts.OutputDir = b.TempDir()
	withOut, err := kernel.Start(context.Background(), opts)
	if err != nil {
		b.Fatal(err)
	}
	defer withOut.Close()
	run := func(k *kernel.Kernel, code string) time.Duration {
		start := time.Now()
		ex, err := k.Execute(context.Background(), code, kernel.ExecOptions{})
		if err != nil || ex.Status != kernel.StatusOK {
			b.Fatalf("%v %+v", err, ex)
		}
		return time.Since(start)
	}
	chart := func(dir string) string {
		return twelveBars + "fig.savefig('" + dir + "/chart.png', bbox_inches='tight')\nplt.close(fig)"
	}
	run(withOut, chart("/output")) // warm matplotlib's caches
	run(plain, chart("/tmp"))
	var nothing, nothingPlain, charts, chartsPlain []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		nothing = append(nothing, run(withOut, "x = 1"))
		nothingPlain = append(nothingPlain, run(plain, "x = 1"))
		charts = append(charts, run(withOut, chart("/output")))
		chartsPlain = append(chartsPlain, run(plain, chart("/tmp")))
	}
	b.StopTimer()
	if _, err := os.Stat(filepath.Join(opts.OutputDir, "chart.png")); err != nil {
		b.Fatalf("the chart did not reach the output folder: %v", err)
	}
	b.ReportMetric(ms(median(nothing)), "nothing-ms")
	b.ReportMetric(ms(median(nothingPlain)), "nothing-no-out-ms")
	b.ReportMetric(ms(median(charts)), "chart-ms")
	b.ReportMetric(ms(median(chartsPlain)), "chart-no-out-ms")
	b.ReportMetric(float64(median(charts))/float64(median(chartsPlain)), "chart-ratio")
}
