package eda

import (
	"regexp"
	"strings"
	"testing"
)

func TestPyFloat(t *testing.T) {
	for x, want := range map[float64]string{0.9: "0.9", 2: "2.0", 0.2: "0.2", 1e-4: "0.0001"} {
		if got := pyFloat(x); got != want {
			t.Errorf("pyFloat(%v) = %q, want %q", x, got, want)
		}
	}
}

// The thresholds the method notes state are set by analyst in the Python,
// as {{KEY}}s or constants (never a number written there again), and render
// as the Python always read.
func TestThresholdsFromGo(t *testing.T) {
	keyed := map[string][]string{
		"profile_alerts.py": {"HIGH_MISSING_SHARE", "HIGH_CARDINALITY", "SKEWED", "HIGH_CORRELATION",
			"CORRELATION_MAX_ALERTS", "DATES_AS_TEXT_SHARE", "MIXED_SAMPLE"},
		"load.py":        {"DATE_SHARE", "NUMBER_SHARE", "NUMBER_HINT_SHARE", "HEADER_STABLE_SHARE"},
		"ooc_profile.py": {"DISTINCT_K", "VALUE_COUNT_CAP"},
	}
	for file, names := range keyed {
		b, err := pyFS.ReadFile("py/" + file)
		if err != nil {
			t.Fatal(err)
		}
		tmpl := string(b)
		for _, name := range names {
			if !regexp.MustCompile(`(?m)^`+name+` = \{\{`+name+`\}\}  #`).MatchString(tmpl) && !setsConstant(file, name) {
				t.Errorf("%s: %s is not set from {{%s}} nor by constants", file, name, name)
			}
		}
	}
	load := Load("/data/x.csv")
	code := profileAlerts() + "\n" + load.Cells[1].Source + "\n" + ProfileOutOfCore().Cells[1].Source
	for _, line := range []string{"HIGH_MISSING_SHARE = 0.2  #", "HIGH_CARDINALITY = 50  #", "SKEWED = 2.0  #",
		"HIGH_CORRELATION = 0.9  #", "CORRELATION_MAX_ALERTS = 50  #", "DATES_AS_TEXT_SHARE = 0.5  #",
		"MIXED_SAMPLE = 10_000  #", "HEAD_BYTES = 64 * 1024  #", "DATE_SHARE = 0.9  #", "NUMBER_SHARE = 0.9  #",
		"NUMBER_HINT_SHARE = 0.5  #", "DISTINCT_K = 4096  #", "VALUE_COUNT_CAP = 100_000  #", "HEADER_STABLE_SHARE = 0.9  #"} {
		if !strings.Contains(code, "\n"+line) {
			t.Errorf("rendered code has no line %q", line)
		}
	}
	notes := profileAlertsMd + load.Cells[0].Source + outOfCoreMethodMd
	for _, text := range []string{"20% or more", "more than 50 distinct", "above 2 in absolute value", "0.9 or more",
		"the 50 strongest", "at least 50% of the sampled", "fewer than the 90% needed", "up to 10,000 values",
		"from 50% to under 90%", "first 64 KB", "10% or more fail", "at least 90% of the sampled rows have its field count",
		"up to 100,000 distinct", "exact below 4,096 distinct", "≈ 1.6% (k = 4,096 hashes)"} {
		if !strings.Contains(notes, text) {
			t.Errorf("method notes do not say %q", text)
		}
	}
}

// The report's out-of-core notice states the distinct-count bound in its place.
func TestOutOfCoreNoticeThreshold(t *testing.T) {
	p := &Profile{Rows: 5000, OutOfCore: &OutOfCoreInfo{ChunkRows: 1000, SampleRows: 200}}
	got := OutOfCoreNotice(p, OutOfCore{})
	for _, want := range []string{"It was read 1,000 rows at a time", "distinct counts past 4,096 values", "a uniform sample of 200 rows"} {
		if !strings.Contains(got, want) {
			t.Errorf("OutOfCoreNotice = %q, want it to say %q", got, want)
		}
	}
}

// The histograms' bin count is one constant: in both templates' defaults
// and in the note above the histograms.
func TestHistBinsFromGo(t *testing.T) {
	for _, file := range []string{"ooc_pass.py", "compare_charts.py"} { // after the chart helpers' cell
		if b, err := pyFS.ReadFile("py/" + file); err != nil || !strings.Contains(string(b), "HIST_BINS") || strings.Contains(string(b), "{{HIST_BINS}}") {
			t.Errorf("%s: does not use the chart helpers' HIST_BINS (%v)", file, err)
		}
	}
	if !setsConstant("chart_helpers.py", "HIST_BINS") {
		t.Error("chart_helpers.py: HIST_BINS is not set by constants")
	}
	st := Distributions(wideProfile(40), Options{})
	var all string
	for _, c := range st.Cells {
		all += c.Source + "\n"
	}
	for _, want := range []string{"HIST_BINS = 30  #", "def hist_bins(values, bins=HIST_BINS):", "spread: 30 equal-width bins (for integer columns, at most 30 bins"} {
		if !strings.Contains(all, want) {
			t.Errorf("distributions stage does not say %q", want)
		}
	}
}
