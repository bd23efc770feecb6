package cmd

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/audit"
	"github.com/analyst-cli/analyst/pipeline"
	"github.com/analyst-cli/analyst/report"
)

// ReplayOptions are the inputs of `analyst replay`.
type ReplayOptions struct {
	Run    string
	OutDir string
	JSON   bool
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
(other data, image or analyst version) and stops with exit 1.`,
		Example: `  analyst replay out/sales.run.json
  analyst replay --out again out/`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("replay takes one RUN: a run's folder, its NAME.run.json or its NAME.ipynb")
			}
			opts.Run = args[0]
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runReplay(c.Context(), f, opts)
		},
	}
	c.Flags().StringVarP(&opts.OutDir, "out", "o", "replay", "output folder (not the run's own)")
	c.Flags().BoolVar(&opts.JSON, "json", false, "print progress events and the result as JSON lines")
	addKernelFlags(c)
	return c
}

func runReplay(ctx context.Context, f *Factory, opts *ReplayOptions) error {
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
	versions := map[string]string{"python": img.Manifest.Python}
	for k, v := range img.Manifest.Packages {
		versions[k] = v
	}
	progress := newProgress(f, opts.JSON)
	popts := pipeline.Options{
		Data: rec.Data.Path, OutDir: opts.OutDir, Name: run.Name(),
		Kernel: setup.Options, CellTimeout: cfg.Limits.CellTimeout,
		AnalystVersion: Version, ImageID: img.Manifest.ID(), Versions: versions,
		Runtime: setup.Options.Runtime, KaTeXDir: report.KaTeXDirIn(img.RootFS),
		Progress: progress.Event, RunTimeout: cfg.RunTimeout,
	}
	for _, q := range rec.Questions {
		popts.Questions = append(popts.Questions, q.Question)
	}
	if m := rec.Model; m != nil && rec.Replies != nil {
		popts.Model = audit.NewRecorder(audit.NewReplayer(rec.Replies))
		popts.ModelSpec, popts.MaxTurns, popts.MaxRepairs, popts.Seed = m.Spec, m.MaxTurns, m.MaxRepairs, m.Seed
		popts.ReflectRounds = &m.ReflectRounds
	}
	res, err := pipeline.Run(ctx, popts)
	progress.Stop()
	if res != nil && res.Files.Report != "" {
		printRunFiles(f, opts.JSON, res)
	}
	return runError(err)
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}
