package eda

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/examples"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

func sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

func TestMessyExports(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	m, err := examples.WriteMessy(&b, 400, 12)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "messy.csv"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	k := kerneltest.Start(t, func(o *kernel.Options) { o.Data = dir })
	mustRun(t, k, Setup())
	load := LoadWith("/data/messy.csv", LoadOptions{})
	var loader string
	for _, c := range load.Cells {
		if slices.Contains(c.Tags, "load-data") {
			loader = c.Source
		}
	}
	for _, want := range []string{"NA_VALUES = [", `"n/a",`, `"null",`, `"unknown",`, "def clean_missing_markers", "def convert_number_text",
		"def clean_columns(df: pd.DataFrame, info: dict, keep_codes: bool = True) -> None:", "clean_missing_markers(df, info, keep_codes=keep_codes)",
		"convert_number_text(df, info)", "parse_epochs(df, info)", "df = clean_table(export_layout(df, info), info)"} {
		if !strings.Contains(loader, want) {
			t.Errorf("the loader cell lacks %q", want)
		}
	}
	mustRun(t, k, load)
	p := profileOf(t, mustRun(t, k, ProfileStage()))
	mustRun(t, k, Distributions(p, Options{}))

	wantKinds(t, p, map[string]string{"revenue": KindNumeric, "eu_price": KindNumeric, "spaced": KindNumeric,
		"margin": KindNumeric, "score": KindNumeric, "region": KindCategorical, "ts_offset": KindDatetime,
		"ts_z": KindDatetime, "created_at": KindDatetime, "account": KindNumeric, "mostly_text": KindCategorical})

	numbers := map[string][]float64{"revenue": m.Revenue, "eu_price": m.EUPrice, "spaced": m.Spaced, "margin": m.Margin, "score": m.Score}
	for name, x := range numbers {
		c := p.col(t, name)
		if c.Mean == nil || !near(*c.Mean, mean(x)) || *c.Min != slices.Min(x) || *c.Max != slices.Max(x) {
			t.Errorf("%s: min %v max %v mean %v; want %v %v %v", name, ptr(c.Min), ptr(c.Max), ptr(c.Mean), slices.Min(x), slices.Max(x), mean(x))
		}
		if c.Missing != m.Rows-len(x) {
			t.Errorf("%s: %d missing, want %d", name, c.Missing, m.Rows-len(x))
		}
	}
	var total float64
	pyValue(t, k, `print(json.dumps(float(df["revenue"].sum())))`, &total)
	if !near(total, sum(m.Revenue)) {
		t.Errorf("sum of revenue %v, want %v", total, sum(m.Revenue))
	}

	// The conversions are stated, and the values that did not convert listed.
	conv := p.Load.ConvertedNumbers
	for name, want := range map[string]string{"revenue": "',' or spaces group thousands", "eu_price": "',' is the decimal mark",
		"spaced": "group thousands", "margin": "divided by 100"} {
		if !strings.Contains(conv[name].Rule, want) {
			t.Errorf("%s: rule %q lacks %q", name, conv[name].Rule, want)
		}
	}
	if !strings.Contains(conv["revenue"].Rule, "$ removed") || !strings.Contains(conv["revenue"].Rule, "parentheses are negative") ||
		!strings.Contains(conv["eu_price"].Rule, "€ removed") {
		t.Errorf("rules: revenue %q, eu_price %q", conv["revenue"].Rule, conv["eu_price"].Rule)
	}
	bad := 0
	for v, n := range m.RevenueBad {
		bad += n
		if !slices.Contains(conv["revenue"].FailedValues, TopValue{Value: v, Count: n}) {
			t.Errorf("failed values %+v lack %q (%d)", conv["revenue"].FailedValues, v, n)
		}
	}
	if conv["revenue"].Failed != bad || !p.hasAlert(AlertUnconverted, "revenue") {
		t.Errorf("revenue: %d failed, want %d; alerts %+v", conv["revenue"].Failed, bad, p.Alerts)
	}
	wantNote(t, p, fmt.Sprintf("%d value(s) of 'revenue' are not numbers and became missing", bad))
	wantNote(t, p, "'margin' held numbers as text and was converted")

	// Missing-value markers, per marker as written.
	sc := p.col(t, "score")
	markers := map[string]int{}
	found := 0
	for _, mk := range sc.Markers {
		markers[mk.Value] = mk.Count
		found += mk.Count
	}
	if !mapsEqual(markers, m.ScoreMarkers) || !p.hasAlert(AlertMissingMarkers, "score") {
		t.Errorf("score markers %v, want %v", markers, m.ScoreMarkers)
	}
	if sc.Missing != found+m.ScoreEmpty {
		t.Errorf("score: %d missing, want %d markers + %d empty", sc.Missing, found, m.ScoreEmpty)
	}

	// Category variants, with their counts.
	var variants string
	for _, a := range p.Alerts {
		if a.Type == AlertCaseVariants && a.Column == "region" {
			variants = a.Message
		}
	}
	for _, v := range []string{"North", "NORTH ", "north", "South", " south"} {
		if !strings.Contains(variants, fmt.Sprintf("%q (%d)", v, m.Region[v])) && !strings.Contains(variants, fmt.Sprintf("'%s' (%d)", v, m.Region[v])) {
			t.Errorf("case_variants alert %q lacks %q (%d)", variants, v, m.Region[v])
		}
	}
	if strings.Contains(variants, "East") {
		t.Errorf("East has no variant: %q", variants)
	}

	// Offsets converted to UTC; Unix times in a column named like a time.
	ts := p.col(t, "ts_offset")
	if ts.MinDate != m.FirstUTC.Format("2006-01-02T15:04:05+00:00") || ts.MaxDate != m.LastUTC.Format("2006-01-02T15:04:05+00:00") {
		t.Errorf("ts_offset %s to %s, want %s to %s (UTC)", ts.MinDate, ts.MaxDate, m.FirstUTC, m.LastUTC)
	}
	if z := p.col(t, "ts_z"); z.MinDate != ts.MinDate || z.MaxDate != ts.MaxDate {
		t.Errorf("ts_z %s to %s, want as ts_offset", z.MinDate, z.MaxDate)
	}
	wantNote(t, p, "the times in 'ts_offset' carry UTC offsets (+01:00, +02:00); they were converted to UTC")
	if c := p.col(t, "created_at"); c.MinDate != m.FirstEpoch.Format("2006-01-02T15:04:05+00:00") {
		t.Errorf("created_at starts %s, want %s", c.MinDate, m.FirstEpoch)
	}
	wantNote(t, p, "'created_at' holds Unix times in seconds")
	if !p.hasAlert(AlertPossibleEpoch, "account") || p.hasAlert(AlertPossibleEpoch, "spaced") {
		t.Errorf("possible_epoch alerts: %+v", p.Alerts)
	}
	if !p.hasAlert(AlertNumbersAsText, "mostly_text") {
		t.Errorf("no numbers_as_text alert for mostly_text (%.0f%% numbers): %+v", 100*m.TextShare, p.Alerts)
	}

	t.Run("markers overridden", func(t *testing.T) {
		mustRun(t, k, LoadWith("/data/messy.csv", LoadOptions{NAValues: []string{"unknown"}}))
		p := profileOf(t, mustRun(t, k, ProfileStage()))
		sc := p.col(t, "score")
		if !slices.Equal(p.Load.NAValues, []string{"unknown"}) || len(sc.Markers) != 2 {
			t.Errorf("na_values %q, score markers %+v; want only unknown and 'Unknown '", p.Load.NAValues, sc.Markers)
		}
		if sc.Kind != KindCategorical || !p.hasAlert(AlertMixedTypes, "score") {
			t.Errorf("score with '-', '?' and 'N/A' left as values: kind %s, alerts %+v", sc.Kind, p.Alerts)
		}
	})
}

func ptr(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// wideTarget is a table of cols independent numeric columns plus target,
// nearly a copy of one feature far from the first columns, both with some
// values missing in different rows.
func wideTarget(cols, rows int) (data []byte, feature string) {
	r := rand.New(rand.NewPCG(5, 8))
	feature = fmt.Sprintf("col%03d", cols*3/4)
	var b bytes.Buffer
	for j := range cols {
		fmt.Fprintf(&b, "col%03d,", j)
	}
	b.WriteString("target\n")
	for i := range rows {
		var f float64
		for j := range cols {
			v := r.NormFloat64() * float64(j+1)
			if j == cols*3/4 {
				f = v
				if i%17 == 0 {
					b.WriteString(",")
					continue
				}
			}
			b.WriteString(fmtFloat(math.Round(v*1e4)/1e4) + ",")
		}
		if i%13 == 0 {
			b.WriteString("\n")
			continue
		}
		b.WriteString(fmtFloat(2*f+r.NormFloat64()*0.01) + "\n")
	}
	return b.Bytes(), feature
}

// The high-correlation alert checks every numeric column, and the heatmap
// shows the most strongly correlated ones, wherever they are in the file.
func TestCorrelationEveryColumn(t *testing.T) {
	dir := t.TempDir()
	data, feature := wideTarget(120, 300) // past the heatmap cap of 30; BenchmarkCorrelationWide measures 600 columns
	if err := os.WriteFile(filepath.Join(dir, "wide.csv"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	k := kerneltest.Start(t, func(o *kernel.Options) { o.Data = dir })
	mustRun(t, k, Setup())
	mustRun(t, k, Load("/data/wide.csv"))
	p := profileOf(t, mustRun(t, k, ProfileStage()))
	var pairs []Alert
	for _, a := range p.Alerts {
		if a.Type == AlertHighCorrelation {
			pairs = append(pairs, a)
		}
	}
	if len(pairs) != 1 || !slices.Equal(pairs[0].Columns, []string{feature, "target"}) {
		t.Fatalf("high_correlation alerts %+v, want exactly %s with target", pairs, feature)
	}
	var pandas float64
	pyValue(t, k, fmt.Sprintf(`print(json.dumps(df[[%q, "target"]].corr().iloc[0, 1]))`, feature), &pandas)
	if !near(*pairs[0].Value, pandas) {
		t.Errorf("r = %v, pandas' DataFrame.corr says %v", *pairs[0].Value, pandas)
	}
	if c := p.col(t, "target"); c.MaxCorrelation == nil || !near(*c.MaxCorrelation, math.Abs(pandas)) {
		t.Errorf("target's max_correlation %v, want %v", ptr(c.MaxCorrelation), pandas)
	}
	ch := Choose(p, Options{})
	if len(ch.Correlation) != DefaultMaxCorrelationColumns || !slices.Contains(ch.Correlation, "target") || !slices.Contains(ch.Correlation, feature) {
		t.Errorf("heatmap columns %q lack target and %s", ch.Correlation, feature)
	}
	dist := mustRun(t, k, Distributions(p, Options{}))
	if !slices.Contains(chartKinds(dist), "heatmap") {
		t.Errorf("no heatmap: %q", chartKinds(dist))
	}
}
