package cmd

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/audit"
	"github.com/analyst-cli/analyst/baseline"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/internal/atomicfile"
	"github.com/analyst-cli/analyst/pipeline"
)

// BaselineOptions are the flags of a comparison with an earlier run.
type BaselineOptions struct {
	Baseline  string // the run to compare with: its folder or NAME.run.json
	SummaryMD string // where the Markdown summary of the changes goes
	FailOnSet bool   // --fail-on was given (the level itself is configuration: Config.FailOn)
}

// addBaselineFlags adds --baseline, --fail-on and --summary-md.
func addBaselineFlags(c *cobra.Command, opts *BaselineOptions) {
	fl := c.Flags()
	fl.StringVar(&opts.Baseline, "baseline", "", "an earlier run to compare the data with (its folder, or NAME.run.json): a What changed section opens the report")
	fl.String("fail-on", "", "with --baseline: exit 8, after writing everything, when a change at this level or above is found: warn or fail (key baseline.fail-on; default: never)")
	fl.StringVar(&opts.SummaryMD, "summary-md", "", "with --baseline: write a short Markdown table of the changes to this file (for a CI step summary or a pull-request comment)")
	_ = fl.SetAnnotation("fail-on", viperKey, []string{keyFailOn})
}

// checkBaselineFlags refuses the comparison's flags without a baseline.
func checkBaselineFlags(opts *BaselineOptions) error {
	if opts.Baseline != "" {
		return nil
	}
	switch {
	case opts.FailOnSet:
		return usageErrorf("--fail-on judges the changes since a baseline: it needs --baseline RUN")
	case opts.SummaryMD != "":
		return usageErrorf("--summary-md summarises the changes since a baseline: it needs --baseline RUN")
	}
	return nil
}

// openBaseline reads the run to compare with, before anything slow
// starts: a run's folder holding one run, or its NAME.run.json.
func openBaseline(path string) (*baseline.Baseline, error) {
	if path == "" {
		return nil, nil
	}
	run, err := audit.Open(path)
	if err != nil {
		return nil, usageErrorf("--baseline: %v", err)
	}
	rec := run.Record
	b, err := baseline.Open(run.Manifest, rec.AnalystVersion, baseline.Data{Name: rec.Data.Name, SHA256: rec.Data.SHA256}, rec.Sketch, rec.Files)
	if err != nil {
		return nil, usageErrorf("--%v", err)
	}
	return b, nil
}

// finishBaseline writes the Markdown summary, prints the verdict, and
// turns changes at --fail-on or above into exit code 8, once the run has
// written everything. A run that failed keeps its own error.
func finishBaseline(opts *BaselineOptions, cfg *Config, b *baseline.Baseline, data string, res *pipeline.Result, runErr error) error {
	if b == nil {
		return runErr
	}
	var changes *baseline.Changes
	var failure string
	if res != nil {
		changes, failure = res.Changes, res.Failure
	} else if runErr != nil {
		failure = runErr.Error()
	}
	if opts.SummaryMD != "" {
		md := baseline.SummaryMarkdown(filepath.Base(data), b, changes, failure)
		if err := atomicfile.WriteFile(opts.SummaryMD, []byte(md)); err != nil {
			return errors.Join(runErr, fmt.Errorf("writing --summary-md: %w", err))
		}
	}
	if runErr != nil || changes == nil || cfg.FailOn == "" || !changes.AtLeast(cfg.FailOn) {
		return runErr
	}
	return withCode(ExitChanges, fmt.Errorf("changes at %s or above since %s (--fail-on %s): %d at fail, %d at warn; see the report's What changed",
		cfg.FailOn, b.Manifest, cfg.FailOn, changes.Counts[eda.LevelFail], changes.Counts[eda.LevelWarn]))
}

// printChanges shows the verdict and the changes at warn and fail.
func printChanges(w io.Writer, c *baseline.Changes) {
	if c == nil {
		return
	}
	fmt.Fprintf(w, "changed:  %s (%d fail, %d warn, %d info)\n", c.Worst, c.Counts[eda.LevelFail], c.Counts[eda.LevelWarn], c.Counts[eda.LevelInfo])
	for _, ch := range c.Changes {
		if ch.Level == eda.LevelInfo {
			continue
		}
		col := ""
		if ch.Column != nil {
			col = " " + *ch.Column
		}
		fmt.Fprintf(w, "  %s %s%s: %s\n", ch.Level, ch.Check, col, strings.ReplaceAll(ch.Text, "\n", " "))
	}
}
