package cmd

import (
	"context"
	"errors"
	"fmt"
	"github.com/analyst-cli/analyst/agent"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/evals"
	"github.com/analyst-cli/analyst/evals/dabench"
	"github.com/analyst-cli/analyst/evals/dabstep"
	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/report"
)

// EvalOptions are the inputs of `analyst eval SUITE`.
type EvalOptions struct {
	Suite       string
	Models      []string
	Out         string
	Jobs        int
	Timeout     time.Duration
	Limit       int
	Repeat      int
	Filter      []string
	Shard       string
	Force       bool
	RetryErrors bool
	MinScore    float64
}

// newCmdEval: runF, when not nil, replaces runEval (tests see the parsed
// options without a kernel image).
func newCmdEval(f *Factory, runF func(context.Context, *EvalOptions) error) *cobra.Command {
	opts := &EvalOptions{}
	c := &cobra.Command{
		Use:   "eval SUITE",
		Short: "Benchmark models on a suite of dataset × question cases",
		Long: `Run every case of a suite through the agent of 'analyst run' — each case in
its own fresh kernel — score the answers, and write:

  OUT/results.jsonl          one line per case × model, appended as each case ends
  OUT/summary.json           the figures of each model
  OUT/report.md              for a pull request comment or a CI step summary:
                             scores with 95% intervals, by level and concept,
                             failure classes, the cases not passed
  OUT/report.html            the same, as one self-contained page, with a row
                             per case linking to its notebook and report
  OUT/cases/MODEL/CASE.ipynb each case's notebook (setup, load, profile, the
  OUT/cases/MODEL/CASE.html  model's cells, its answer) and HTML report
  OUT/junit.xml              one test case per eval case
  OUT/responses/MODEL.jsonl  the answers as a DABench responses file

SUITE is a folder in DABench's layout (da-dev-questions.jsonl,
da-dev-labels.jsonl and tables/ or da-dev-tables/): each question is sent with its constraints
and format, and scored exactly as DABench's official scorer does (ABQ, PSAQ,
UASQ over the answered questions; "strict" figures also count unanswered
ones as wrong). Or it is one of our YAML suites (a file, or a folder of
files): cases with datasets, questions, expected answers with their
matchers, chart expectations and reference code (see the README).

A rerun into the same OUT skips finished cases (--force redoes them,
--retry-errors redoes those that ended in an error). Results made with
another suite version, model build, kernel image or seed are refused, never
mixed. --shard i/n runs a stable share of the cases (i from
$JOB_COMPLETION_INDEX with --shard n); 'analyst eval merge' joins the shards
into one run.

Progress goes to stderr: on a terminal one line redrawn in place (cases
done, running score, errors, ETA); elsewhere a plain line per case.`,
		Example: `  analyst eval evals/ --model ollama:qwen2.5-coder:7b --out eval-out
  analyst eval ../dabench --model ollama:qwen2.5-coder:7b --out eval-out
  analyst eval ../dabench --model ollama:qwen2.5-coder:7b --model openai:gpt-4o-mini -j 2 --limit 20
  analyst eval ../dabench --model ollama:qwen2.5-coder:7b --shard 0/4 --out shard-0
  analyst eval merge --out eval-out shard-0 shard-1 shard-2 shard-3
  analyst eval score --dabench ../dabench eval-out/responses/ollama_qwen2.5-coder_7b.jsonl`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("eval takes one SUITE folder (or a subcommand: score, merge)")
			}
			opts.Suite = args[0]
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runEval(c.Context(), f, opts)
		},
	}
	fl := c.Flags()
	fl.StringArrayVar(&opts.Models, "model", nil, "model to evaluate, provider:name; repeat for several side by side (default: key model)")
	fl.StringVarP(&opts.Out, "out", "o", "eval-out", "output folder")
	fl.IntVarP(&opts.Jobs, "jobs", "j", 0, "cases in parallel, each in its own kernel (default: one per 2 cores and 2 GiB free)")
	fl.DurationVar(&opts.Timeout, "timeout", 10*time.Minute, "time limit per case")
	fl.IntVar(&opts.Limit, "limit", 0, "run at most this many cases (0: all)")
	fl.IntVar(&opts.Repeat, "repeat", 1, "run each case K times (seeds seed..seed+K-1): pass@k, pass^k and flaky cases")
	fl.StringArrayVar(&opts.Filter, "filter", nil, "run only cases with this id, concept, level or tag (repeatable)")
	fl.StringVar(&opts.Shard, "shard", "", "run shard i of n (i/n, 0-based), or n with i from $JOB_COMPLETION_INDEX")
	fl.BoolVar(&opts.Force, "force", false, "redo finished cases and drop stale results")
	fl.BoolVar(&opts.RetryErrors, "retry-errors", false, "redo cases that ended in an error")
	fl.Float64Var(&opts.MinScore, "min-score", 0, "exit 6 when a model's score (share of cases entirely right) is below this, 0-1")
	fl.String("base-url", "", "OpenAI-compatible API root (key base-url)")
	fl.Int("max-turns", 0, fmt.Sprintf("model turns per question (key max-turns; default %d)", agent.DefaultMaxTurns))
	fl.Int("reflect-rounds", 0, fmt.Sprintf("rounds in which the model checks its charts, 0 for none (key reflect-rounds; default %d)", agent.DefaultReflectRounds))
	for flag, key := range map[string]string{"base-url": keyBaseURL, "max-turns": keyMaxTurns, "reflect-rounds": keyReflectRounds} {
		_ = fl.SetAnnotation(flag, viperKey, []string{key})
	}
	addKernelFlags(c)
	c.AddCommand(newCmdEvalScore(f, nil), newCmdEvalMerge(f), newCmdEvalValidate(f), newCmdEvalCompare(f))
	return c
}

func runEval(ctx context.Context, f *Factory, opts *EvalOptions) error {
	if opts.Repeat < 1 {
		return usageErrorf("--repeat must be at least 1, got %d", opts.Repeat)
	}
	if opts.MinScore < 0 || opts.MinScore > 1 {
		return usageErrorf("--min-score must be between 0 and 1, got %v", opts.MinScore)
	}
	shard, err := evals.ParseShard(opts.Shard, os.Getenv)
	if err != nil {
		return usageErrorf("%v", err)
	}
	suite, err := loadSuite(opts.Suite)
	if err != nil {
		return err
	}
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	models := opts.Models
	if len(models) == 0 && cfg.Model != "" {
		models = []string{cfg.Model}
	}
	if len(models) == 0 {
		return usageErrorf("eval needs a model: --model provider:name (repeatable), ANALYST_MODEL, or `model:` in the config file")
	}
	setup, err := f.kernelSetup(ctx)
	if err != nil {
		return err
	}
	versions := setup.versions()
	var solvers []evals.Solver
	for _, spec := range models {
		client, err := llm.New(spec, llm.Options{BaseURL: cfg.BaseURL})
		if err != nil {
			return usageErrorf("%v", err)
		}
		s, err := evals.NewAgentSolver(ctx, client, spec)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return withCode(ExitModel, modelMessage(err))
		}
		s.Kernel, s.Versions, s.CellTimeout, s.MaxTurns = setup.Options, versions, cfg.Limits.CellTimeout, cfg.MaxTurns
		s.ReflectRounds = cfg.ReflectRounds
		solvers = append(solvers, s)
	}
	eo := evals.Options{Suite: suite, Solvers: solvers, Out: opts.Out, Jobs: opts.Jobs, Timeout: opts.Timeout,
		Limit: opts.Limit, Repeat: opts.Repeat, Filter: opts.Filter, Shard: shard, Force: opts.Force, RetryErrors: opts.RetryErrors,
		ImageID: setup.Image.Manifest.ID(), Seed: agent.DefaultSeed, KaTeXDir: report.KaTeXDirIn(setup.Image.RootFS),
	}
	if n := len(evals.SelectCases(suite.Cases, opts.Filter, shard, opts.Limit)); n == 0 {
		return usageErrorf("no case of %s is selected (check --filter, --shard and --limit)", opts.Suite)
	}
	prog := newEvalProgress(f, time.Now)
	eo.Progress = prog.Update
	sum, err := evals.Run(ctx, eo)
	prog.Stop()
	var stale *evals.StaleError
	if errors.As(err, &stale) {
		return usageErrorf("%v", err)
	}
	if sum != nil {
		printEvalSummary(f, opts.Out, sum)
	}
	if err != nil {
		return err
	}
	return belowMinScore(sum, opts.MinScore)
}

// loadSuite reads a suite: a folder in DABench's layout, or our YAML.
func loadSuite(path string) (*evals.Suite, error) {
	if dabstep.IsDABstep(path) {
		return nil, usageErrorf("%s is a DABstep snapshot: running its tasks comes with folder datasets (issue #23); "+
			"score a submission with: analyst eval score --dabstep %s SUBMISSION", path, path)
	}
	s, err := evals.LoadSuite(path)
	if err != nil {
		return nil, withCode(ExitBadData, fmt.Errorf("suite: %w", err))
	}
	return s, nil
}

func newCmdEvalValidate(f *Factory) *cobra.Command {
	var jobs int
	c := &cobra.Command{
		Use:   "validate SUITE",
		Short: "Check that each case's reference code reproduces its gold answers",
		Long: `Run each case's reference Python in a fresh kernel, after the same setup and
load the model gets, and score what it prints like a model's answer. Any
case whose gold answers its reference does not reproduce (or that has no
reference) is listed, and the command exits 1: a gold-vs-gold self check to
run before any model.`,
		Example: `  analyst eval validate evals/`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("eval validate takes one SUITE")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			suite, err := loadSuite(args[0])
			if err != nil {
				return err
			}
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			setup, err := f.kernelSetup(ctx)
			if err != nil {
				return err
			}
			out, err := os.MkdirTemp("", "analyst-validate-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(out)
			solver := &evals.ReferenceSolver{Kernel: setup.Options, CellTimeout: cfg.Limits.CellTimeout}
			sum, err := evals.Run(ctx, evals.Options{Suite: suite, Solvers: []evals.Solver{solver}, Out: out, Jobs: jobs,
				ImageID: setup.Image.Manifest.ID()})
			if err != nil {
				return err
			}
			rs, err := evals.ReadResults(filepath.Join(out, evals.ResultsFile))
			if err != nil {
				return err
			}
			bad := 0
			for _, r := range rs {
				if r.Status != evals.StatusPass {
					bad++
					fmt.Fprintf(f.IO.Out, "FAIL %s: %s\n", r.Case, evals.Detail(r))
				}
			}
			m := sum.Models[0]
			fmt.Fprintf(f.IO.Out, "%d of %d cases reproduce their gold answers\n", m.Passed, m.Cases)
			if bad > 0 {
				return silentError{ExitFailure}
			}
			return nil
		},
	}
	c.Flags().IntVarP(&jobs, "jobs", "j", 0, "cases in parallel (default: one per 2 cores and 2 GiB free)")
	addKernelFlags(c)
	return c
}

func printEvalSummary(f *Factory, out string, s *evals.Summary) {
	for _, m := range s.Models {
		fmt.Fprintf(f.IO.Out, "%s: %d cases, %d passed, %d failed, %d errors; score %s\n", m.Model, m.Cases, m.Passed, m.Failed, m.Errors, pctOf(m.Score))
		fmt.Fprintf(f.IO.Out, "  DABench official: ABQ %s, PSAQ %s, UASQ %s (%d answered); strict ABQ %s\n",
			pctOf(m.Official.ABQ), pctOf(m.Official.PSAQ), pctOf(m.Official.UASQ), m.Answered, pctOf(m.Strict.ABQ))
		if m.Repeats > 1 {
			fmt.Fprintf(f.IO.Out, "  over %d repeats: pass@%d %s, pass^%d %s, %d flaky\n", m.Repeats, m.Repeats, pctOf(m.PassAtK), m.Repeats, pctOf(m.PassHatK), len(m.Flaky))
		}
	}
	fmt.Fprintf(f.IO.Out, "report:  %s (%s links to each case's notebook and report in %s)\nresults: %s\n", filepath.Join(out, evals.ReportFile),
		evals.HTMLFile, filepath.Join(out, evals.CasesDir), filepath.Join(out, evals.ResultsFile))
}

func pctOf(x float64) string { return dabench.Percent(x) }

// belowMinScore is exit 6 when a model scored below min.
func belowMinScore(s *evals.Summary, min float64) error {
	if min == 0 || s == nil {
		return nil
	}
	var low []string
	for _, m := range s.Models {
		if m.Score < min {
			low = append(low, fmt.Sprintf("%s scored %s", m.Model, pctOf(m.Score)))
		}
	}
	if len(low) > 0 {
		return withCode(ExitBelowTarget, fmt.Errorf("below --min-score %s: %s", pctOf(min), strings.Join(low, ", ")))
	}
	return nil
}

func newCmdEvalMerge(f *Factory) *cobra.Command {
	var out string
	var minScore float64
	c := &cobra.Command{
		Use:   "merge --out OUT DIR...",
		Short: "Merge the output folders of sharded eval runs into one run",
		Long: `Merge the results of 'analyst eval --shard i/n' runs into OUT, as if the
suite had run unsharded: the same results.jsonl, summary.json, report.md,
report.html, junit.xml and responses files (timings aside), and each case's
notebook and report under cases/. Shards must come from the
same suite version, kernel image, seed and model builds, and must not
overlap.`,
		Example: `  analyst eval merge --out eval-out shard-0 shard-1`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) < 1 || out == "" {
				return usageErrorf("eval merge takes --out OUT and one or more shard folders")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			sum, err := evals.Merge(out, args)
			if err != nil {
				return withCode(ExitBadData, err)
			}
			printEvalSummary(f, out, sum)
			return belowMinScore(sum, minScore)
		},
	}
	c.Flags().StringVarP(&out, "out", "o", "", "output folder of the merged run")
	c.Flags().Float64Var(&minScore, "min-score", 0, "exit 6 when a model's score is below this, 0-1")
	return c
}

func newCmdEvalCompare(f *Factory) *cobra.Command {
	var failOnRegression bool
	var alpha float64
	c := &cobra.Command{
		Use:   "compare A B",
		Short: "Compare two eval runs case by case, with McNemar's exact test",
		Long: `Pair the cases of two eval output folders (A the baseline, B the candidate;
one model each): both right, both wrong, regressions (right in A, wrong in
B) and improvements, and McNemar's exact two-sided p-value over the
discordant pairs. With --fail-on-regression it exits 6 when B has more
regressions than improvements and p is below --alpha.`,
		Example: `  analyst eval compare runs/main runs/pr --fail-on-regression`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErrorf("eval compare takes two output folders, A (baseline) and B")
			}
			if alpha <= 0 || alpha >= 1 {
				return usageErrorf("--alpha must be between 0 and 1, got %v", alpha)
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmp, err := evals.Compare(args[0], args[1])
			if err != nil {
				return withCode(ExitBadData, err)
			}
			cmp.Write(f.IO.Out)
			if failOnRegression && len(cmp.Regressions) > len(cmp.Improvements) && cmp.P < alpha {
				return withCode(ExitBelowTarget, fmt.Errorf("significant regression: %d regressions, %d improvements, p = %.4g < %v",
					len(cmp.Regressions), len(cmp.Improvements), cmp.P, alpha))
			}
			return nil
		},
	}
	c.Flags().BoolVar(&failOnRegression, "fail-on-regression", false, "exit 6 on a significant regression of B against A")
	c.Flags().Float64Var(&alpha, "alpha", 0.05, "significance level for --fail-on-regression")
	return c
}
