package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/pipeline"
	"github.com/analyst-cli/analyst/report"
)

// RunOptions are the inputs of `analyst run`.
type RunOptions struct {
	Data   string
	OutDir string
	Name   string
	JSON   bool
}

func newCmdRun(f *Factory, runF func(context.Context, *RunOptions) error) *cobra.Command {
	opts := &RunOptions{}
	c := &cobra.Command{
		Use:   "run DATA",
		Short: "Profile a dataset and write a notebook and an HTML report",
		Long: `Profile a dataset, study its distributions and draw the charts an analyst
would look at first, all in the sandboxed kernel, and write the run out:

  NAME.ipynb     the notebook: every number and chart comes from its cells
  NAME.html      a self-contained report (no network needed to view it)
  NAME_files/    the charts as PNG, with their descriptions as JSON
  NAME.run.json  what ran on what: data sha256, versions, limits, timings

NAME defaults to the data file's name. Re-running into the same folder
replaces the previous run of that name whole. A run that fails still writes
what it got to, with the failure shown. The data file is mounted read-only
and never changed.

Reads CSV and TSV (delimiter sniffed), gzip-compressed CSV, JSON, JSON Lines
and Excel (.xlsx), in UTF-8 (with or without BOM) or Latin-1.`,
		Example: `  analyst run sales.csv
  analyst run --out reports --name q4 sales.csv.gz`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("run takes one DATA file, got %d arguments", len(args))
			}
			opts.Data = args[0]
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runRun(c.Context(), f, opts)
		},
	}
	c.Flags().StringVarP(&opts.OutDir, "out", "o", ".", "output folder")
	c.Flags().StringVar(&opts.Name, "name", "", "base name of the outputs (default: the data file's name)")
	c.Flags().BoolVar(&opts.JSON, "json", false, "print progress events and the result as JSON lines")
	addKernelFlags(c)
	return c
}

func runRun(ctx context.Context, f *Factory, opts *RunOptions) error {
	// Bad data is reported before anything slow starts.
	if _, err := pipeline.CheckInput(opts.Data); err != nil {
		return withCode(ExitBadData, err)
	}
	setup, err := f.kernelSetup(ctx)
	if err != nil {
		return err
	}
	versions := map[string]string{"python": setup.Image.Manifest.Python}
	for k, v := range setup.Image.Manifest.Packages {
		versions[k] = v
	}
	cfg, _ := f.Config()
	popts := pipeline.Options{
		Data:           opts.Data,
		OutDir:         opts.OutDir,
		Name:           opts.Name,
		Kernel:         setup.Options,
		CellTimeout:    cfg.Limits.CellTimeout,
		AnalystVersion: Version,
		ImageID:        setup.Image.Manifest.RecipeHash[:16],
		Versions:       versions,
		Runtime:        setup.Options.Runtime,
		KaTeXDir:       report.KaTeXDirIn(setup.Image.RootFS),
		Progress:       progressPrinter(f, opts.JSON),
	}
	res, err := pipeline.Run(ctx, popts)
	if res != nil && res.Files.Report != "" {
		printRunFiles(f, opts.JSON, res)
	}
	return runError(err)
}

// runError maps a pipeline error to its exit code.
func runError(err error) error {
	var inErr *pipeline.InputError
	var dataErr *pipeline.DataError
	var sbErr *pipeline.SandboxError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled):
		return err
	case errors.As(err, &inErr), errors.As(err, &dataErr):
		return withCode(ExitBadData, err)
	case errors.As(err, &sbErr):
		return withCode(ExitSandbox, err)
	default:
		return withCode(ExitFailure, err)
	}
}

// progressPrinter shows the run's progress on stderr as plain lines (or as
// JSON events on stdout with --json).
func progressPrinter(f *Factory, asJSON bool) func(pipeline.Event) {
	if asJSON {
		enc := json.NewEncoder(f.IO.Out)
		return func(e pipeline.Event) { _ = enc.Encode(e) }
	}
	return func(e pipeline.Event) {
		switch e.Type {
		case "stage-start":
			fmt.Fprintf(f.IO.ErrOut, "%-14s ...\n", e.Stage)
		case "stage-end":
			fmt.Fprintf(f.IO.ErrOut, "%-14s %s in %s\n", e.Stage, e.Status, e.Duration.Round(10*time.Millisecond))
		case "run-end":
			if e.Status != "ok" {
				fmt.Fprintf(f.IO.ErrOut, "run failed after %s: %s\n", e.Duration.Round(10*time.Millisecond), e.Message)
			} else {
				fmt.Fprintf(f.IO.ErrOut, "run finished in %s\n", e.Duration.Round(10*time.Millisecond))
			}
		}
	}
}

func printRunFiles(f *Factory, asJSON bool, res *pipeline.Result) {
	if asJSON {
		_ = json.NewEncoder(f.IO.Out).Encode(map[string]any{
			"type": "result", "report": res.Files.Report, "notebook": res.Files.Notebook,
			"manifest": res.Files.Manifest, "charts": res.Files.Charts, "failure": res.Failure,
		})
		return
	}
	fmt.Fprintf(f.IO.Out, "report:   %s\n", res.Files.Report)
	fmt.Fprintf(f.IO.Out, "notebook: %s\n", res.Files.Notebook)
	fmt.Fprintf(f.IO.Out, "manifest: %s\n", res.Files.Manifest)
	if n := len(res.Files.Charts); n > 0 {
		fmt.Fprintf(f.IO.Out, "charts:   %s (%d)\n", filepath.Dir(res.Files.Charts[0]), n)
	}
}
