package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/audit"
	"github.com/analyst-cli/analyst/kernel/image"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/pipeline"
	"github.com/analyst-cli/analyst/report"
)

// VerifyOptions are the inputs of `analyst verify`.
type VerifyOptions struct {
	Run            string
	Data           string
	ImageMismatch  string
	AllowedSigners string
	JSON           bool
}

// newCmdVerify: runF, when not nil, replaces runVerify (tests see the parsed
// options without a kernel image).
func newCmdVerify(f *Factory, runF func(context.Context, *VerifyOptions) error) *cobra.Command {
	opts := &VerifyOptions{}
	c := &cobra.Command{
		Use:   "verify RUN",
		Short: "Check that a run's files are unchanged and that its notebook re-runs to the same outputs",
		Long: `Check a run (its output folder, its NAME.run.json or its NAME.ipynb):

  files    every file the run wrote (notebook, report, charts) has the sha256
           run.json records; each changed, missing or added file is named
  cells    each notebook cell is the one the run wrote (edited, removed and
           added cells are named)
  re-run   the notebook's code cells run again, in order, in a fresh sandbox
           of the kernel image run.json records, with the data at the same
           /data path; every output must match exactly: text, tables, chart
           PNG bytes and chart descriptions
  answers  every named answer (@name[value]) and every number run.json
           traces to a cell appears in that cell's output, in the notebook
           and in the re-run (same rounding rule as the run's tracing)
  rendered the report and the chart files are rendered again from the
           notebook and run.json and must be the same bytes: a file edited
           after the run is named even if its sha256 in run.json was
           recomputed to match
  facts    run.json's data rows, columns and format are what the re-run's
           profile found, and its limits those the re-run's sandbox
           enforced (verify with the run's --memory, --pids, ...)

The data is found at the path run.json records, next to run.json, or given
with --data; it must have the recorded sha256. A folder's every table and
document must have the sha256 run.json's inputs record (each one that
differs or is missing is named), and only those files are mounted. Exit codes: 0 everything
matches; 1 something differs (each difference is printed); 3 the data is
missing or is not the run's data; 5 the recorded kernel image is not
available (rebuild it, or allow this analyst's image with
--image-mismatch=warn, which the report then states).

With --allowed-signers FILE, run.json's signature (NAME.run.json.sig, made
by analyst run --sign KEY with ssh-keygen -Y sign, namespace "analyst") must
be good and by a signer listed in FILE (ssh-keygen's allowed-signers format,
as git uses); since run.json holds every file's and the data's sha256, the
signature covers the whole run.`,
		Example: `  analyst verify out/sales.run.json
  analyst verify --data /archive/sales-2026-11.csv out/
  analyst verify --json out/sales.ipynb > verify.json
  analyst verify --allowed-signers .github/allowed_signers out/`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("verify takes one RUN: a run's folder, its NAME.run.json or its NAME.ipynb")
			}
			opts.Run = args[0]
			if opts.ImageMismatch != "error" && opts.ImageMismatch != "warn" { //houserules:literal the flag's values
				return usageErrorf("--image-mismatch is error or warn, not %q", opts.ImageMismatch)
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runVerify(c.Context(), f, opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Data, "data", "", "the run's dataset, a file or a folder (default: the path run.json records)")
	fl.StringVar(&opts.ImageMismatch, "image-mismatch", "error", //houserules:literal the flag's default
		"when the recorded kernel image is not available: error (exit 5) or warn (re-run in this analyst's image)")
	fl.StringVar(&opts.AllowedSigners, "allowed-signers", "", "ssh allowed-signers file that must accept run.json's signature (NAME.run.json.sig, from analyst run --sign)")
	fl.BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	addKernelFlags(c)
	return c
}

func runVerify(ctx context.Context, f *Factory, opts *VerifyOptions) error {
	run, setup, note, err := f.openRun(ctx, opts.Run, opts.ImageMismatch == "warn")
	if err != nil {
		return err
	}
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	katex := report.KaTeXDirIn(setup.Image.RootFS)
	vopts := audit.Options{Data: opts.Data, Kernel: setup.Options, ImageNote: note, AllowedSigners: opts.AllowedSigners, CellTimeout: cfg.Limits.CellTimeout,
		Render: func(nb *nbformat.Notebook) (map[string][]byte, error) {
			return pipeline.Render(run.Manifest, nb, katex)
		}}
	rep, err := audit.Verify(ctx, run, vopts)
	if rep != nil {
		if opts.JSON {
			enc := json.NewEncoder(f.IO.Out)
			enc.SetIndent("", "  ")
			_ = enc.Encode(rep)
		} else {
			rep.WriteText(f.IO.Out)
		}
	}
	var dataErr *audit.DataError
	var imgErr *audit.ImageError
	var sbErr *audit.SandboxError
	switch {
	case err == nil && rep.OK:
		return nil
	case err == nil:
		return silentError{code: ExitFailure}
	case errors.Is(err, context.Canceled):
		return err
	case errors.As(err, &dataErr):
		return withCode(ExitBadData, err)
	case errors.As(err, &imgErr), errors.As(err, &sbErr):
		return withCode(ExitSandbox, err)
	default:
		return withCode(ExitFailure, fmt.Errorf("verifying %s: %w", run.Manifest, err))
	}
}

// signRun signs the run's manifest with --sign KEY, also when the run failed
// (what it wrote is then signed as written).
func signRun(ctx context.Context, key string, res *pipeline.Result, runErr error) error {
	if key == "" || res == nil || res.Files.Manifest == "" {
		return runErr
	}
	if err := audit.Sign(ctx, res.Files.Manifest, key); err != nil {
		return errors.Join(runErr, withCode(ExitFailure, err))
	}
	return runErr
}

// openRun opens a run and sets up a kernel of the image it recorded (with
// warn, this analyst's image when that one is gone; note says so).
func (f *Factory) openRun(ctx context.Context, path string, warn bool) (*audit.Run, *kernelSetup, string, error) {
	run, err := audit.Open(path)
	if errors.Is(err, audit.ErrNotARun) {
		return nil, nil, "", usageErrorf("%v", err)
	} else if err != nil {
		return nil, nil, "", err
	}
	cfg, err := f.Config()
	if err != nil {
		return nil, nil, "", err
	}
	img, note, err := audit.FindImage(cfg.CacheDir, run.Record.Image, image.DefaultRecipe(), warn)
	if err != nil {
		return nil, nil, "", withCode(ExitSandbox, err)
	}
	setup, err := f.kernelSetupFor(ctx, cfg, img)
	return run, setup, note, err
}
