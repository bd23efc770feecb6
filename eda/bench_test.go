package eda

import (
	"testing"
	"time"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

// BenchmarkCorrelationWide profiles a 20,000-row × 600-column numeric table
// (one column nearly a copy of another) and times, in the same kernel, the
// high-correlation check over every pair (correlation_blocks) against
// pandas' DataFrame.corr of all 600 columns and of the first 30 (the old
// cap).
//
//	go test -run '^$' -bench CorrelationWide -benchtime 3x ./eda/
func BenchmarkCorrelationWide(b *testing.B) {
	k := kerneltest.Start(b, func(o *kernel.Options) {})
	mustRun(b, k, Setup())
	mustRun(b, k, Stage{Name: "make-wide", Cells: []Cell{Code(`rng = np.random.default_rng(1)
df = pd.DataFrame(rng.normal(size=(20_000, 600)) * np.arange(1, 601), columns=[f"x{i:03d}" for i in range(600)])
df["target"] = 2 * df["x450"] + rng.normal(scale=0.01, size=len(df))
df.loc[::17, "x450"] = np.nan
load_info = {"format": "generated", "notes": [], "missing_markers": {}}`)}})
	var profile, blocks, corrAll, corr30 time.Duration
	for range b.N {
		r := mustRun(b, k, ProfileStage())
		p := profileOf(b, r)
		if !p.hasAlert(AlertHighCorrelation, "target") {
			b.Fatalf("no high_correlation alert for target: %+v", p.Alerts)
		}
		profile += r.took
		var t struct{ Blocks, All, First30 float64 }
		pyValue(b, k, `import time
numeric = df.select_dtypes("number")
t0 = time.perf_counter(); correlation_blocks(numeric, list(numeric.columns), HIGH_CORRELATION)
t1 = time.perf_counter(); numeric.corr()
t2 = time.perf_counter(); numeric.iloc[:, :30].corr()
t3 = time.perf_counter()
print(json.dumps({"Blocks": t1 - t0, "All": t2 - t1, "First30": t3 - t2}))`, &t)
		blocks += seconds(t.Blocks)
		corrAll += seconds(t.All)
		corr30 += seconds(t.First30)
	}
	reportPerOp(b, profile, "profile-s")
	reportPerOp(b, blocks, "every-pair-check-s")
	reportPerOp(b, corrAll, "pandas-corr-600-s")
	reportPerOp(b, corr30, "pandas-corr-30-s")
}

// seconds is a duration timed in Python (time.perf_counter differences).
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// reportPerOp reports the mean of a total over the benchmark's runs, in seconds.
func reportPerOp(b *testing.B, total time.Duration, unit string) {
	b.ReportMetric(total.Seconds()/float64(b.N), unit)
}

// BenchmarkBoxPlotsByCategory times the by-category cell on 4,000,000 rows
// (10 groups, 5% of rows without one, 4 numeric columns) and, in the same
// kernel, its two passes over each group's values: box_stats (quartiles and
// whiskers) and the count of values beyond the whiskers (two comparisons,
// no sort), which must stay a small part of it.
//
//	go test -run '^$' -bench BoxPlotsByCategory -benchtime 3x ./eda/
func BenchmarkBoxPlotsByCategory(b *testing.B) {
	k := kerneltest.Start(b, nil)
	mustRun(b, k, Setup())
	mustRun(b, k, Stage{Name: "make-groups", Cells: []Cell{Code(constants(chartHelpersPy, "HIST_BINS", "30")),
		Code(`rng = np.random.default_rng(1)
rows = 4_000_000
df = pd.DataFrame({"product": rng.choice([f"p{i}" for i in range(10)], rows),
                   "revenue": rng.lognormal(3, 1, rows), "units": rng.integers(1, 20, rows).astype(float),
                   "price": rng.normal(50, 10, rows), "discount": rng.random(rows)})
df.loc[rng.random(rows) < 0.05, "product"] = None`)}})
	cell := Stage{Name: "by-category", Cells: []Cell{Code(constants(vizGroupsPy, "group_column", `"product"`,
		"group_values", `["revenue", "units", "price", "discount"]`))}}
	var total, stats, beyond time.Duration
	for range b.N {
		total += mustRun(b, k, cell).took
		var t struct{ Stats, Beyond float64 }
		pyValue(b, k, `import time
parts = [v[np.isfinite(v)] for column in group_values
         for v in (df[column].to_numpy(dtype=float, na_value=np.nan)[group_rows[name]] for name in group_order)]
t0 = time.perf_counter(); boxes = [box_stats(v, whis=1.5) for v in parts]
t1 = time.perf_counter(); [np.count_nonzero(v < s["whislo"]) + np.count_nonzero(v > s["whishi"]) for v, s in zip(parts, boxes)]
t2 = time.perf_counter()
print(json.dumps({"Stats": t1 - t0, "Beyond": t2 - t1}))`, &t)
		stats += seconds(t.Stats)
		beyond += seconds(t.Beyond)
	}
	reportPerOp(b, total, "cell-s")
	reportPerOp(b, stats, "box-stats-s")
	reportPerOp(b, beyond, "beyond-whiskers-s")
}
