package eda

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/examples"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

// oocSales writes the sales example with some values made missing in
// different ways (empty fields, "n/a" markers), so that chunks differ, and
// three duplicate rows, two of them of a row in another chunk.
func oocSales(t *testing.T, dir string, rows int) string {
	t.Helper()
	var buf bytes.Buffer
	if err := examples.WriteSales(&buf, rows, 7); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	for i := 1; i < len(lines); i++ {
		f := strings.Split(lines[i], ",")
		switch {
		case i%13 == 0:
			f[2] = "n/a" // region: a missing-value marker
		case i%17 == 0:
			f[6] = "" // unit_price: empty
		}
		lines[i] = strings.Join(f, ",")
	}
	lines = append(lines, lines[5], lines[5], lines[rows/2])
	text := []byte(strings.Join(lines, "\n") + "\n")
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(text)
	w.Close()
	for name, b := range map[string][]byte{"sales.csv": text, "sales.csv.gz": gz.Bytes(), "sales.json": []byte(`[{"a": 1}, {"a": 2}]`)} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "sales.csv")
}

// TestOutOfCoreMatchesInMemory loads the same small file whole and out of
// core (small chunks and a small sample, so that both are really used) in
// one kernel and compares what each computed.
func TestOutOfCoreMatchesInMemory(t *testing.T) {
	const written, chunk, sample = 20_000, 3_000, 2_000
	const rows = written + 3 // the duplicates
	dir := t.TempDir()
	oocSales(t, dir, written)
	k := kerneltest.Start(t, func(o *kernel.Options) { o.Data = dir })
	run := func(st Stage) stageRun {
		r := mustRun(t, k, st)
		t.Logf("%s: %v", st.Name, r.took)
		return r
	}
	run(Setup())
	run(Load("/data/sales.csv"))
	whole := profileOf(t, run(ProfileStage()))
	run(Distributions(whole, Options{}))
	mustRun(t, k, Stage{Name: "keep", Cells: []Cell{Code(`mem = dict(df=df, stats=numeric_stats, top=top_values, per_period=per_period,
    hist_bins=hist_bins, hist_columns=hist_columns)`)}})

	oc := OutOfCore{ChunkRows: chunk, SampleRows: sample}
	run(LoadOutOfCore(Source{Path: "/data/sales.csv"}, oc))
	p := profileOf(t, run(ProfileOutOfCore()))
	dist := run(DistributionsOutOfCore(p, Options{}))
	if kinds := chartKinds(dist); strings.Join(kinds, " ") != "hist bar heatmap heatmap bar line" {
		t.Errorf("charts %v", kinds)
	}
	run(OnSample(Visualization(p, Options{}), p))

	// The exact statistics: equal to the in-memory ones.
	if p.OutOfCore == nil || p.OutOfCore.Rows != rows || p.OutOfCore.Chunks != 7 || p.OutOfCore.SampleRows != sample {
		t.Fatalf("out_of_core %+v", p.OutOfCore)
	}
	if p.Rows != whole.Rows || p.Columns != whole.Columns || p.DuplicateRows != whole.DuplicateRows || p.DuplicateRows != 3 {
		t.Errorf("%d × %d, %d duplicates; in memory %d × %d, %d", p.Rows, p.Columns, p.DuplicateRows, whole.Rows, whole.Columns, whole.DuplicateRows)
	}
	if fmt.Sprint(p.Load.MissingMarkers) != fmt.Sprint(whole.Load.MissingMarkers) {
		t.Errorf("markers %v, in memory %v", p.Load.MissingMarkers, whole.Load.MissingMarkers)
	}
	for i, w := range whole.ColumnInfo {
		c := p.ColumnInfo[i]
		if c.Name != w.Name || c.Kind != w.Kind || c.Missing != w.Missing || c.Dtype != w.Dtype {
			t.Errorf("column %d: %s %s %s missing %d; in memory %s %s %s %d", i, c.Name, c.Kind, c.Dtype, c.Missing, w.Name, w.Kind, w.Dtype, w.Missing)
		}
		if !samePtr(c.Min, w.Min, 0, 0) || !samePtr(c.Max, w.Max, 0, 0) || !samePtr(c.Mean, w.Mean, 1e-12, 0) ||
			!samePtr(c.Std, w.Std, 1e-12, 0) || !samePtr(c.Skew, w.Skew, 1e-9, 1) || c.MinDate != w.MinDate || c.MaxDate != w.MaxDate {
			t.Errorf("column %s: min %v max %v mean %v std %v skew %v dates %s..%s; in memory %v %v %v %v %v %s..%s", c.Name,
				val(c.Min), val(c.Max), val(c.Mean), val(c.Std), val(c.Skew), c.MinDate, c.MaxDate,
				val(w.Min), val(w.Max), val(w.Mean), val(w.Std), val(w.Skew), w.MinDate, w.MaxDate)
		}
		if !sameTop(c.Top, w.Top) {
			t.Errorf("column %s: top %v; in memory %v", c.Name, c.Top, w.Top)
		}
		// Distinct counts: exact below 4,096 values, else within 5%.
		if w.Distinct < 4096 && c.Distinct != w.Distinct || math.Abs(float64(c.Distinct-w.Distinct)) > 0.05*float64(w.Distinct) {
			t.Errorf("column %s: %d distinct, in memory %d", c.Name, c.Distinct, w.Distinct)
		}
	}

	// What the Python side computed, compared there: the sample, quantiles
	// within the stated bound, histograms and time series, and the full-data helper.
	var got map[string]any
	pyValue(t, k, fmt.Sprintf(`whole, eps = mem["df"], %v
checks = {
    "sample_rows": len(df),
    "sample_is_rows_of_file": bool(df.equals(whole.loc[df.index])),
    "sample_spread": bool(df.index.min() < 1000 and df.index.max() > len(whole) - 1000),
    # P(X < q) - p and p - P(X <= q) over the whole data: at most eps for a quantile q within the bound
    "quantile_rank_error": max(max((whole[c] < x).mean() / whole[c].notna().mean() - q, q - (whole[c] <= x).mean() / whole[c].notna().mean(), 0)
                               for c in numeric_stats.index for q in (0.25, 0.5, 0.75)
                               for x in [numeric_stats.loc[c, f"{int(q * 100)}%% ≈"]]),
    "sample_quantiles_differ": bool((numeric_stats["50%% ≈"] != mem["stats"]["50%%"]).any()),
    "eps": eps,
    "exact_columns_equal": bool(numeric_stats[["count", "missing", "min", "max"]].equals(mem["stats"][["count", "missing", "min", "max"]].astype(numeric_stats[["count", "missing", "min", "max"]].dtypes))),
    "hist_equal": hist_columns == mem["hist_columns"] and all(
        np.array_equal(hist_counts[c], np.histogram(whole[c].dropna(), bins=mem["hist_bins"](whole[c].dropna()))[0]) for c in hist_columns),
    "per_period_rows_equal": bool(per_period["rows"].equals(mem["per_period"]["rows"].set_axis(per_period.index))),
    "per_period_sums_close": bool(np.allclose(per_period.iloc[:, 1], mem["per_period"].iloc[:, 1], rtol=1e-12, atol=0)),
    "top_counts_equal": all(top_values[c].tolist() == mem["top"][c].tolist() for c in top_values),
    "full_count": full.count() == len(whole) and full.count("units > 3") == int((whole["units"] > 3).sum()),
    "full_value_counts": full.value_counts("region").to_dict() == whole["region"].value_counts().to_dict(),
}
agg = full.aggregate("region", "revenue")
ref = whole.groupby("region")["revenue"].agg(["count", "sum", "mean", "min", "max"])
checks["full_aggregate_counts"] = agg["count"].to_dict() == ref["count"].to_dict() and agg["min"].equals(ref["min"]) and agg["max"].equals(ref["max"])
checks["full_aggregate_sums_close"] = bool(np.allclose(agg[["sum", "mean"]], ref[["sum", "mean"]], rtol=1e-12, atol=0))
both = full.aggregate(["region", "channel"], "units", where=lambda c: c["discount"] > 0)
ref2 = whole[whole["discount"] > 0].groupby(["region", "channel"])["units"].agg(["count", "sum", "mean", "min", "max"])
checks["full_aggregate_two_keys"] = bool(both.astype(float).equals(ref2.astype(float)))
print(json.dumps(checks))`, QuantileError(sample, rows)), &got)
	for name, v := range got {
		if b, ok := v.(bool); ok && !b {
			t.Errorf("%s is false", name)
		}
	}
	// The same file gzip-compressed gives the same profile; a file that is
	// not delimited text is refused with what to do.
	run(LoadOutOfCore(Source{Path: "/data/sales.csv.gz"}, oc))
	gz := profileOf(t, run(ProfileOutOfCore()))
	gz.Load, p.Load = LoadInfo{}, LoadInfo{}
	a, _ := json.Marshal(gz)
	b, _ := json.Marshal(p)
	if !bytes.Equal(a, b) {
		t.Errorf("gzip: %s\nplain: %s", a, b)
	}
	bad := runStage(t, k, LoadOutOfCore(Source{Path: "/data/sales.json"}, oc))
	if bad.err == nil || bad.err.Error == nil || bad.err.Error.Name != DataErrorName ||
		!strings.Contains(bad.err.Error.Value, "out-of-core reading handles CSV and TSV files only") {
		t.Errorf("JSON out of core: %+v", bad.err)
	}
	if got["sample_rows"] != float64(sample) {
		t.Errorf("sample of %v rows, want %d", got["sample_rows"], sample)
	}
	if e := got["quantile_rank_error"].(float64); e > got["eps"].(float64) {
		t.Errorf("quantile rank error %v, bound %v", e, got["eps"])
	}
}

// samePtr: both nil, or a within rel of b, relative to |b| or floor if larger.
func samePtr(a, b *float64, rel, floor float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b || math.Abs(*a-*b) <= rel*math.Max(math.Abs(*b), floor)
}

// sameTop: the same counts in order, and the same values where they are
// not tied with the list's last count (pandas orders ties arbitrarily, so
// which tied values make the list is arbitrary too).
func sameTop(a, b []TopValue) bool {
	if len(a) != len(b) {
		return false
	}
	above := map[string]int{}
	for i := range a {
		if a[i].Count != b[i].Count || a[i].Share != b[i].Share {
			return false
		}
		if a[i].Count > a[len(a)-1].Count {
			above[a[i].Value]++
			above[b[i].Value]--
		}
	}
	for _, n := range above {
		if n != 0 {
			return false
		}
	}
	return true
}

func val(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// No out-of-core cell is empty.
func TestOutOfCoreCellsNotEmpty(t *testing.T) {
	p := wideProfile(40)
	p.OutOfCore = &OutOfCoreInfo{Rows: p.Rows, SampleRows: 10, ChunkRows: 100}
	for _, st := range []Stage{LoadOutOfCore(Source{Path: "/data/x.csv"}, OutOfCore{}), ProfileOutOfCore(), DistributionsOutOfCore(p, Options{})} {
		for _, c := range st.Cells {
			if strings.TrimSpace(c.Source) == "" {
				t.Errorf("stage %s: empty cell", st.Name)
			}
		}
	}
}
