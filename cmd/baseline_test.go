package cmd

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/eda"
)

// --baseline, --summary-md and --fail-on reach the options; the level and
// the thresholds are configuration (flag > environment > file).
func TestRunBaselineFlags(t *testing.T) {
	var got *RunOptions
	swap := func(f *Factory) *cobra.Command {
		return newCmdRun(f, func(_ context.Context, o *RunOptions) error { got = o; return nil })
	}
	file := `baseline:
  fail-on: fail
  thresholds:
    numeric-shift: {warn: 0.25}
  levels:
    added: warn
  columns:
    - name: Revenue
      numeric-shift: {warn: 0.4, fail: never}
      removed: info
`
	for _, tt := range []struct {
		name, env, want string
		args            []string
		set             bool
	}{
		{"file", "", eda.LevelFail, nil, false},
		{"env over file", "warn", eda.LevelWarn, nil, false},
		{"flag over env", "warn", eda.LevelFail, []string{"--fail-on", "fail"}, true},
		{"never", "never", "", nil, false},
	} {
		cmdEnv(t, file, map[string]string{"ANALYST_BASELINE_FAIL_ON": tt.env})
		f := testFactory()
		args := append([]string{"run", "--baseline", "week-48/", "--summary-md", "changes.md"}, tt.args...)
		if err := execute(t, f, swap, append(args, "sales.csv")...); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		cfg, err := f.Config()
		if err != nil {
			t.Fatal(err)
		}
		if got.Baseline != "week-48/" || got.SummaryMD != "changes.md" || got.FailOnSet != tt.set || cfg.FailOn != tt.want {
			t.Errorf("%s: options %+v, fail-on %q; want fail-on %q", tt.name, got.BaselineOptions, cfg.FailOn, tt.want)
		}
		r := cfg.ChangeRules
		if *r.Thresholds[eda.CheckNumericShift].Warn != 0.25 || r.Severities[eda.ChangeAdded] != eda.LevelWarn {
			t.Errorf("%s: table rules %+v", tt.name, r)
		}
		if c := r.Columns["Revenue"]; *c.Thresholds[eda.CheckNumericShift].Warn != 0.4 || c.Thresholds[eda.CheckNumericShift].Fail != nil ||
			c.Severities[eda.ChangeRemoved] != eda.LevelInfo {
			t.Errorf("%s: Revenue's rules %+v", tt.name, c)
		}
	}
}

// The real `analyst run` refuses a comparison it cannot make before it
// looks for the image, and writes nothing.
func TestRunBaselineStopsBeforeTheKernel(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "sales.csv")
	if err := os.WriteFile(data, []byte("region,revenue\nnorth,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "old")
	if err := os.MkdirAll(old, 0o755); err != nil {
		t.Fatal(err)
	}
	// A run of an analyst from before sketches: files and a notebook, no "sketch".
	manifest := `{"analyst_version": "v0.3.0", "outputs": {"notebook": "old.ipynb"}, "files": [{"path": "old.ipynb", "sha256": "00"}]}`
	if err := os.WriteFile(filepath.Join(old, "old.run.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for _, tt := range []struct {
		name, file string
		args       []string
		want       string
	}{
		{"fail-on alone", "", []string{"--fail-on", "warn"}, "--fail-on judges the changes since a baseline: it needs --baseline RUN"},
		{"summary alone", "", []string{"--summary-md", "x.md"}, "--summary-md summarises the changes since a baseline: it needs --baseline RUN"},
		{"bad level", "", []string{"--baseline", old, "--fail-on", "error"}, `baseline.fail-on must be warn, fail or never, got "error"`},
		{"no run", "", []string{"--baseline", filepath.Join(dir, "nothing")}, "--baseline: "},
		{"old run", "", []string{"--baseline", old}, "kept no sketch of the data for comparisons; re-run the baseline with this version of analyst"},
		{"bad threshold", "baseline:\n  thresholds:\n    missing: {warn: 0.5}\n", []string{"--baseline", old}, "config: baseline.thresholds.missing: fail at 0.1 is below warn at 0.5"},
	} {
		cmdEnv(t, tt.file, nil)
		args := append(append([]string{"run", "-o", out}, tt.args...), data)
		wantUsage(t, execute(t, testFactory(), nil, args...), tt.want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused run wrote %s (%v)", out, err)
	}
}

// replay takes the same flags; --fail-on needs a baseline there too.
func TestReplayBaselineFlags(t *testing.T) {
	cmdEnv(t, "", nil)
	var got *ReplayOptions
	swap := func(f *Factory) *cobra.Command {
		return newCmdReplay(f, func(_ context.Context, o *ReplayOptions) error { got = o; return nil })
	}
	err := execute(t, testFactory(), swap, "replay", "--data", "week-49.csv", "--baseline", "week-48/", "--fail-on", "fail",
		"--summary-md", "c.md", "week-48/")
	if err != nil {
		t.Fatal(err)
	}
	if got.Baseline != "week-48/" || got.SummaryMD != "c.md" || !got.FailOnSet || got.Data != "week-49.csv" {
		t.Errorf("replay options %+v", got)
	}
}
