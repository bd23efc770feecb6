package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/pipeline"
	"github.com/analyst-cli/analyst/report"
)

// RunOptions are the inputs of `analyst run`.
type RunOptions struct {
	Data      string
	Questions []string
	OutDir    string
	Name      string
	JSON      bool
}

func newCmdRun(f *Factory, runF func(context.Context, *RunOptions) error) *cobra.Command {
	opts := &RunOptions{}
	c := &cobra.Command{
		Use:   "run DATA [QUESTION...]",
		Short: "Profile a dataset, answer questions about it, and write a notebook and an HTML report",
		Long: `Profile a dataset, study its distributions and draw the charts an analyst
would look at first, all in the sandboxed kernel, and write the run out:

  setup, load, profile   types, missing values, distinct counts, alerts
  distributions          statistics with formulas, histograms, top values,
                         correlations, missingness, a time series
  visualization          the most correlated pairs with their fitted lines
                         (hexagonal bins above 50,000 rows), numeric columns
                         by the most useful category (box plots), a metric
                         over time by that category, a pair plot of small
                         data; chosen by fixed rules stated in the report

  NAME.ipynb     the notebook: every number and chart comes from its cells
  NAME.html      a self-contained report (no network needed to view it)
  NAME_files/    the charts as PNG, with their descriptions as JSON
  NAME.run.json  what ran on what: data sha256, versions, limits, timings

NAME defaults to the data file's name. Re-running into the same folder
replaces the previous run of that name whole. A run that fails still writes
what it got to, with the failure shown. The data file is mounted read-only
and never changed.

With questions, a language model (--model) then writes pandas/matplotlib
code for each, in the same kernel: it sees the outputs and charts, repairs
its own errors, checks its charts, and states its answer as named values
(@name[value]) with a short narrative, shown first in the report. Later
questions are follow-ups: they see the earlier answers and variables.
Models: ollama:NAME (OLLAMA_HOST) or openai:NAME (OPENAI_API_KEY,
--base-url or OPENAI_BASE_URL; ollama.com with OLLAMA_API_KEY).

Reads CSV and TSV (delimiter sniffed), gzip-compressed CSV, JSON, JSON Lines
and Excel (.xlsx), in UTF-8 (with or without BOM) or Latin-1.`,
		Example: `  analyst run sales.csv
  analyst run --out reports --name q4 sales.csv.gz
  analyst run sales.csv "Plot total revenue by month and tell me the peak month" --model ollama:qwen2.5-coder:7b
  analyst run sales.csv "Which region sells most?" "Break that region down by product" --model openai:gpt-4o-mini`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) < 1 {
				return usageErrorf("run takes a DATA file, then optional questions")
			}
			opts.Data = args[0]
			for _, q := range args[1:] {
				if strings.TrimSpace(q) == "" {
					return usageErrorf("a question is empty")
				}
				opts.Questions = append(opts.Questions, q)
			}
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
	fl := c.Flags()
	fl.String("model", "", "model for the questions, provider:name, e.g. ollama:qwen2.5-coder:7b or openai:gpt-4o-mini (key model)")
	fl.String("base-url", "", "OpenAI-compatible API root (key base-url; default $OPENAI_BASE_URL or api.openai.com)")
	fl.Int("max-turns", 0, "model turns per question (key max-turns; default 10)")
	fl.Int("reflect-rounds", 0, "rounds in which the model checks its charts, 0 for none (key reflect-rounds; default 1)")
	fl.Duration("run-timeout", 0, "time limit of the whole run, e.g. 30m (key run-timeout; default none)")
	for flag, key := range map[string]string{"model": keyModel, "base-url": keyBaseURL, "max-turns": keyMaxTurns, "reflect-rounds": keyReflectRounds, "run-timeout": keyRunTimeout} {
		_ = fl.SetAnnotation(flag, viperKey, []string{key})
	}
	addKernelFlags(c)
	return c
}

func runRun(ctx context.Context, f *Factory, opts *RunOptions) error {
	// Bad data is reported before anything slow starts.
	if _, err := pipeline.CheckInput(opts.Data); err != nil {
		return withCode(ExitBadData, err)
	}
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	var model llm.Client
	if len(opts.Questions) > 0 {
		if cfg.Model == "" {
			return usageErrorf("a question needs a model: set --model, ANALYST_MODEL, or `model:` in the config file (e.g. ollama:qwen2.5-coder:7b or openai:gpt-4o-mini)")
		}
		if model, err = llm.New(cfg.Model, llm.Options{BaseURL: cfg.BaseURL}); err != nil {
			return usageErrorf("%v", err)
		}
	}
	setup, err := f.kernelSetup(ctx)
	if err != nil {
		return err
	}
	versions := map[string]string{"python": setup.Image.Manifest.Python}
	for k, v := range setup.Image.Manifest.Packages {
		versions[k] = v
	}
	progress := newProgress(f, opts.JSON)
	reflect := cfg.ReflectRounds
	if reflect == 0 {
		reflect = -1 // none
	}
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
		Progress:       progress.Event,
		Questions:      opts.Questions,
		Model:          model,
		ModelSpec:      cfg.Model,
		MaxTurns:       cfg.MaxTurns,
		ReflectRounds:  reflect,
		RunTimeout:     cfg.RunTimeout,
	}
	res, err := pipeline.Run(ctx, popts)
	progress.Stop()
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
	var modelErr *pipeline.ModelError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled):
		return err
	case errors.As(err, &inErr), errors.As(err, &dataErr):
		return withCode(ExitBadData, err)
	case errors.As(err, &modelErr):
		return withCode(ExitModel, modelMessage(err))
	case errors.As(err, &sbErr):
		return withCode(ExitSandbox, err)
	default:
		return withCode(ExitFailure, err)
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

// modelMessage says which model failure it was and what to do.
func modelMessage(err error) error {
	var what string
	switch {
	case errors.Is(err, llm.ErrUnreachable):
		what = "model server unreachable (is it running? check OLLAMA_HOST, --base-url or OPENAI_BASE_URL)"
	case errors.Is(err, llm.ErrUnauthorized):
		what = "model server refused the API key (check OPENAI_API_KEY or OLLAMA_API_KEY)"
	case errors.Is(err, llm.ErrUnknownModel):
		what = "unknown model (check --model; for Ollama: ollama pull NAME)"
	case errors.Is(err, llm.ErrRateLimited):
		what = "rate limited by the model server, retries exhausted (try again later)"
	default:
		what = "model error"
	}
	return fmt.Errorf("%s: %w", what, err)
}
