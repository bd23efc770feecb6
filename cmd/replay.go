package cmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/audit"
	"github.com/analyst-cli/analyst/baseline"
	"github.com/analyst-cli/analyst/dataset"
	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/pipeline"
	"github.com/analyst-cli/analyst/report"
	"github.com/analyst-cli/analyst/runrecord"
)

// ReplayOptions are the inputs of `analyst replay`.
type ReplayOptions struct {
	Run    string
	OutDir string
	JSON   bool
	// Data is new data of the recorded run's schema ("": the run's own).
	Data string
	// Model re-asks this model from the first cell that fails on Data.
	Model string
	BaselineOptions
}

// newCmdReplay: runF, when not nil, replaces runReplay (tests see the parsed
// options without a kernel image).
func newCmdReplay(f *Factory, runF func(context.Context, *ReplayOptions) error) *cobra.Command {
	opts := &ReplayOptions{}
	c := &cobra.Command{
		Use:   "replay RUN",
		Short: "Run a run again with its recorded model replies instead of a model server",
		Long: `Run a run again (its folder, NAME.run.json or NAME.ipynb) on its data, in
its recorded kernel image, with the model replies run.json recorded in place
of the model: no model server is asked. On the same data and image the
notebook, report and charts are the same bytes as the run's; run.json
differs only in its occasion (start time, durations).

The outputs go to --out (default ./replay), never over the run itself. If the
replay asks for more model replies than the run got, it went another way
(other data, image or analyst version) and stops with exit 1.

With --data NEW (this month's file, same schema, new rows) the recorded
analysis runs on NEW: the profile and distributions are computed again, the
model's recorded replies are played back so the same code cells run on the
new data, and each named answer (and exploration finding's named value) is
shown old → new with the cell it was read from (terminal, --json, the
report, run.json "rerun"). The recorded answers were given for the old data:
a new value is the value at the place the old one showed in the same cell's
output, and where there is no such place the report says so. A schema
difference (columns added or removed, a dtype changed) is stated first.
NEW is a folder when the run's data was one: its tables are matched by
name, the tables added or removed and each table's column changes are
stated first, and df stays the recorded run's main table.

The model is asked again only where the recorded run asked it. The checks
that would send a run's model back to work — an answer's numbers untraced
(as they are on new data), an answer no code ran for, a chart that fails the
chart checks, a reflection round on the answer's charts — run on NEW and are
recorded as what they found ("checks:" lines, the report's "Checks on the new
data", run.json "rerun.checks"), never told.

A recorded cell that fails on NEW (a column gone, a type changed) is never
repaired silently: the replay stops there, names the cell, the exception and
the likely cause, writes what it has, and exits 1. With --model M, the model M
is asked to go on from that cell instead: the conversation up to it is the
recorded one, the real error its feedback; run.json records which cells were
replayed and which are the model's.

A run that was compared with a baseline (analyst run --baseline) is replayed
against the same baseline (the copy of its sketch in the run's folder),
judged by the same rules. --baseline OLD compares with another run instead:
replaying last week's analysis on this week's file with last week's run as
its baseline gives this week's report and what changed since, and --fail-on
and --summary-md gate a CI job on it as in analyst run.`,
		Example: `  analyst replay out/sales.run.json
  analyst replay --out again out/
  analyst replay --data sales-2024-12.csv --out december out/sales.run.json
  analyst replay --data renamed.csv --model ollama:qwen2.5-coder:7b out/
  analyst replay --data shop-2024-12/ --out december out/shop.run.json
  analyst replay --data week-49.csv --baseline week-48/ --fail-on fail --out week-49 week-48/`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("replay takes one RUN: a run's folder, its NAME.run.json or its NAME.ipynb")
			}
			opts.Run = args[0]
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.FailOnSet = c.Flags().Changed("fail-on")
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runReplay(c.Context(), f, opts)
		},
	}
	c.Flags().StringVarP(&opts.OutDir, "out", "o", "replay", "output folder (not the run's own)")
	c.Flags().BoolVar(&opts.JSON, "json", false, "print progress events and the result as JSON lines")
	c.Flags().StringVar(&opts.Data, "data", "", "new data (a file, or a folder for a folder's run) of the same schema to run the recorded analysis on (default: the run's own)")
	c.Flags().StringVar(&opts.Model, "model", "", "with --data: the model that goes on from the first recorded cell that fails on the new data, provider:name (default: none; the replay stops there)")
	addBaselineFlags(c, &opts.BaselineOptions)
	addKernelFlags(c)
	addModelFlags(c)
	return c
}

func runReplay(ctx context.Context, f *Factory, opts *ReplayOptions) error {
	if opts.Model != "" && opts.Data == "" {
		return usageErrorf("--model re-asks a model from the first cell that fails on new data: it needs --data NEW")
	}
	run, setup, _, err := f.openRun(ctx, opts.Run, false)
	if err != nil {
		return err
	}
	if abs, _ := filepath.Abs(opts.OutDir); abs == mustAbs(run.Dir) {
		return usageErrorf("--out %s is the run's own folder: replay into another", opts.OutDir)
	}
	rec := run.Record
	if len(rec.Questions) > 0 && (rec.Model == nil || rec.Replies == nil) {
		return withCode(ExitFailure, errors.New(run.Manifest+" records no model replies: it was made before analyst recorded them, so it cannot be replayed"))
	}
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	img := setup.Image
	progress := newProgress(f, opts.JSON)
	popts := pipeline.Options{
		Data: rec.Data.Path, DataPaths: rec.Data.Paths, OutDir: opts.OutDir, Name: run.Name(),
		Kernel: setup.Options, CellTimeout: cfg.Limits.CellTimeout,
		AnalystVersion: Version, ImageID: img.Manifest.ID(), Versions: setup.versions(),
		Runtime: setup.Options.Runtime, KaTeXDir: report.KaTeXDirIn(img.RootFS),
		Progress: progress.Event, RunTimeout: cfg.RunTimeout,
	}
	for _, q := range rec.Questions {
		popts.Questions = append(popts.Questions, q.Question)
	}
	popts.Independent = rec.Independent
	if m := rec.Model; m != nil && rec.Replies != nil {
		popts.Recorder = audit.NewRecorder(audit.NewReplayer(rec.Replies))
		popts.Model = popts.Recorder
		popts.ModelSpec, popts.MaxTurns, popts.MaxRepairs, popts.Seed = m.Spec, m.MaxTurns, m.MaxRepairs, m.Seed
		popts.ReflectRounds = &m.ReflectRounds
		popts.NoExplore, popts.Goals = !m.Explore, m.Goals // explored as the run did
	}
	if opts.Data != "" {
		if err := replayOnData(&popts, run, opts, cfg); err != nil {
			progress.Stop()
			return err
		}
	}
	if err := replayBaseline(&popts, run, &opts.BaselineOptions, cfg); err != nil {
		progress.Stop()
		return err
	}
	res, err := pipeline.Run(ctx, popts)
	progress.Stop()
	if res != nil && res.Files.Report != "" {
		printRunFiles(f, opts.JSON, res)
	}
	return finishBaseline(&opts.BaselineOptions, cfg, popts.Baseline, popts.Data, res, runError(err))
}

// replayBaseline sets the baseline a replay compares with: --baseline,
// judged by the configuration; else the one the run was compared with (its
// copy of that sketch), judged as the run judged it. The model writes key
// changes where the run's did (their reply is in the recording, in order).
func replayBaseline(popts *pipeline.Options, run *audit.Run, opts *BaselineOptions, cfg *Config) error {
	var b *baseline.Baseline
	var err error
	rec := run.Record.Baseline
	if rec != nil {
		if b, err = baseline.FromRecord(run.Dir, rec); err != nil {
			return usageErrorf("the run's baseline: %v", err)
		}
	}
	popts.ExplainChanges = rec != nil && rec.Explained
	popts.Baseline, popts.ChangeRules = b, cfg.ChangeRules
	if rec != nil && rec.Rules != nil {
		popts.ChangeRules = *rec.Rules
	}
	if opts.Baseline != "" {
		popts.Baseline, popts.ChangeRules = nil, cfg.ChangeRules
		if popts.Baseline, err = openBaseline(opts.Baseline); err != nil {
			return err
		}
	}
	if popts.Baseline == nil {
		return checkBaselineFlags(opts)
	}
	return nil
}

// replayOnData makes popts a replay of run on opts.Data: the recorded
// replies through an audit.Rerun, and the live model of --model.
func replayOnData(popts *pipeline.Options, run *audit.Run, opts *ReplayOptions, cfg *Config) error {
	in, err := dataset.Check(opts.Data, false)
	if err != nil {
		return runError(err)
	}
	if folder := run.Record.Data.Format == dataset.FormatFolder; folder != (in.Folder != nil) {
		what := map[bool]string{true: "a folder", false: "a file"}
		return usageErrorf("--data %s is %s, but the recorded run's data is %s: replay it on %s", opts.Data, what[in.Folder != nil], what[folder], what[folder])
	}
	popts.Data, popts.DataPaths, popts.Input = opts.Data, nil, in
	if in.SHA256 == run.Record.Data.SHA256 {
		return nil // the run's own data: a plain replay
	}
	var live llm.Client
	if opts.Model != "" {
		if live, err = llm.New(opts.Model, cfg.ModelOptions()); err != nil {
			return usageErrorf("--model: %v", err)
		}
	}
	rerun, err := audit.NewRerun(run, runrecord.DataID{Name: in.Name, Path: in.Path, SHA256: in.SHA256, Bytes: in.Bytes}, live, opts.Model)
	if err != nil {
		return withCode(ExitFailure, err)
	}
	popts.Rerun = rerun
	if popts.Model != nil {
		popts.Recorder = audit.NewRecorder(rerun.Client())
		popts.Model = popts.Recorder
	}
	return nil
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

// rerunValues are question q's values old → new in a replay on new data,
// or nil.
func rerunValues(res *pipeline.Result, q int) []runrecord.ValueChange {
	return rerunAnswer(res, runrecord.RerunAnswer{Question: q})
}

// rerunAnswer are the values old → new of the question or goal that want
// names, or nil.
func rerunAnswer(res *pipeline.Result, want runrecord.RerunAnswer) []runrecord.ValueChange {
	if res.Manifest == nil || res.Manifest.Rerun == nil {
		return nil
	}
	for _, a := range res.Manifest.Rerun.Answers {
		if a.Question == want.Question && a.Goal == want.Goal {
			return a.Values
		}
	}
	return nil
}

// printValueChanges prints each value old → new and the place it was read
// from, indented by indent.
func printValueChanges(f *Factory, indent string, changes []runrecord.ValueChange) {
	for _, c := range changes {
		switch {
		case !c.Located:
			fmt.Fprintf(f.IO.Out, "%s%s = %s → not found on the new data: %s\n", indent, c.Name, c.Old, c.Why)
		case c.Cell != "":
			fmt.Fprintf(f.IO.Out, "%s%s = %s → %s  (read from %s)\n", indent, c.Name, c.Old, c.New, c.Where)
		default:
			fmt.Fprintf(f.IO.Out, "%s%s = %s → %s  (%s)\n", indent, c.Name, c.Old, c.New, c.Where)
		}
	}
}

// printRerun states what a replay on new data replayed, on what, with
// which schema changes, before the answers.
func printRerun(f *Factory, res *pipeline.Result) {
	if res.Manifest == nil || res.Manifest.Rerun == nil {
		return
	}
	rr := res.Manifest.Rerun
	out := f.IO.Out
	fmt.Fprintf(out, "replayed: %s (data %s) on %s\n", rr.From, rr.RecordedData.Name, rr.Data.Name)
	if len(rr.Schema) == 0 {
		fmt.Fprintln(out, "schema:   the recorded columns and types")
	}
	for _, c := range rr.Schema {
		fmt.Fprintf(out, "schema:   %s\n", c)
	}
	for _, c := range rr.Checks {
		fmt.Fprintf(out, "checks:   %s\n", c)
	}
	if fl := rr.Failure; fl != nil {
		fmt.Fprintf(out, "failed:   %s, model cell %d (turn %d): %s\n", fl.Phase, fl.Cell, fl.Turn, fl.Exception)
		fmt.Fprintf(out, "cause:    %s\n", fl.Cause)
		if rr.Model != "" {
			fmt.Fprintf(out, "model:    %s went on from there (%d replies replayed, %d new)\n", rr.Model, rr.ReplayedReplies, rr.ModelReplies)
		}
	}
	fmt.Fprintln(out, "answers:  recorded for the old data; new values are read at the same place of the same cell's output")
}
