package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/analyst-cli/analyst/agent"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/evals"
	"github.com/analyst-cli/analyst/evals/dabench"
	"github.com/analyst-cli/analyst/evals/dabstep"
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
	ShardCount  int
	Force       bool
	RetryErrors bool
	MinScore    float64
	// NoFork starts a kernel per case instead of forking each case's
	// session from a loaded kernel per dataset.
	NoFork bool
	// Split is a DABstep snapshot's split: dev or all ("": dev when it has
	// answers).
	Split string
}

// newCmdEval: runF, when not nil, replaces runEval (tests see the parsed
// options without a kernel image). It is long for its help text and flags,
// not for its logic.
func newCmdEval(f *Factory, runF func(context.Context, *EvalOptions) error) *cobra.Command {
	opts := &EvalOptions{}
	c := &cobra.Command{
		Use:   "eval SUITE",
		Short: "Benchmark models on a suite of dataset × question cases",
		Long: `Run every case of a suite through the agent of 'analyst run' — each case in
a session of its own, forked from a kernel that loaded and profiled the
case's data once (one per dataset, shared by the workers; --no-fork: a
fresh kernel per case) — score the answers, and write:

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

SUITE is a snapshot of DABstep's dataset repository (data/tasks/dev.jsonl and
all.jsonl, data/context/): each task is a case on the context folder (its
tables loaded, its manual and README told to the model and read with
read_doc), asked as DABstep's baseline asks it (question, guidelines, read
the documentation), its answer the named value answer, scored exactly as
DABstep's question_scorer scores it (--split dev, the default when it has
answers), and written to OUT/submissions/MODEL.jsonl as each task ends, the
file DABstep's leaderboard takes ("task_id", "agent_answer",
"reasoning_trace": the steps in words, cut at 32 KiB). The report gives the
accuracy overall, easy and hard with 95% intervals. --split all runs the
tasks without answers, for a submission.
Or SUITE is a folder in DABench's layout (da-dev-questions.jsonl,
da-dev-labels.jsonl and tables/ or da-dev-tables/): each question is sent with its constraints
and format, and scored exactly as DABench's official scorer does (ABQ, PSAQ,
UASQ over the answered questions; "strict" figures also count unanswered
ones as wrong). Or it is one of our YAML suites (a file, or a folder of
files): cases with datasets, questions, expected answers with their
matchers, chart expectations and reference code (see docs/eval.md).

A rerun into the same OUT skips finished cases (--force redoes them,
--retry-errors redoes those that ended in an error). Results made with
another suite version, model build, kernel image or seed are refused, never
mixed. --shard i/n runs a stable share of the cases (i from
$JOB_COMPLETION_INDEX with --shard n); --shard auto takes i/n from a Slurm
job array ($SLURM_ARRAY_TASK_ID and _COUNT, _MIN, _MAX, _STEP) or a
Kubernetes Indexed Job ($JOB_COMPLETION_INDEX, n from --shard-count) and
says which on stderr; 'analyst eval merge' joins the shards into one run.

Progress goes to stderr: on a terminal one line redrawn in place (cases
done, running score, errors, ETA); elsewhere a plain line per case.`,
		Example: `  analyst eval evals/ --model ollama:qwen2.5-coder:7b --out eval-out
  analyst eval ../dabench --model ollama:qwen2.5-coder:7b --out eval-out
  analyst eval ../dabench --model ollama:qwen2.5-coder:7b --model openai:gpt-4o-mini -j 2 --limit 20
  analyst eval ../dabench --model ollama:qwen2.5-coder:7b --shard 0/4 --out shard-0
  analyst eval merge --out eval-out shard-0 shard-1 shard-2 shard-3
  analyst eval evals/ --model ollama:qwen2.5-coder:7b --shard auto --out shard-$SLURM_ARRAY_TASK_ID
  analyst eval score --dabench ../dabench eval-out/responses/ollama_qwen2.5-coder_7b.jsonl
  analyst eval ../DABstep --model openai:gpt-4o-mini --out dabstep-out
  analyst eval ../DABstep --split all --model openai:gpt-4o-mini --shard 0/4 --out shard-0`,
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
	fl.IntVarP(&opts.Jobs, "jobs", "j", 0, "cases in parallel, each in its own forked session or kernel (default: one per 2 cores and 2 GiB free)")
	fl.DurationVar(&opts.Timeout, "timeout", 10*time.Minute, "time limit per case: its data's load, then its session, each (waiting for another case's kernel is not counted)")
	fl.IntVar(&opts.Limit, "limit", 0, "run at most this many cases (0: all)")
	fl.IntVar(&opts.Repeat, "repeat", 1, "run each case K times (seeds seed..seed+K-1): pass@k, pass^k and flaky cases")
	fl.StringArrayVar(&opts.Filter, "filter", nil, "run only cases with this id, concept, level or tag (repeatable)")
	fl.StringVar(&opts.Shard, "shard", "", "run shard i of n (i/n, 0-based), n with i from $JOB_COMPLETION_INDEX, or auto (from Slurm's or Kubernetes' environment)")
	fl.IntVar(&opts.ShardCount, "shard-count", 0, "with --shard auto in a Kubernetes Indexed Job: the number of shards, the Job's spec.completions")
	fl.BoolVar(&opts.Force, "force", false, "redo finished cases and drop stale results")
	fl.BoolVar(&opts.RetryErrors, "retry-errors", false, "redo cases that ended in an error")
	fl.BoolVar(&opts.NoFork, "no-fork", false, "start a kernel for each case (load and profile again) instead of forking it from one loaded kernel per dataset")
	fl.Float64Var(&opts.MinScore, "min-score", 0, "exit 6 when a model's score (share of cases entirely right) is below this, 0-1")
	fl.StringVar(&opts.Split, "split", "", "a DABstep snapshot's split: dev (the tasks with answers) or all (default: dev when it has answers)")
	fl.String("base-url", "", "OpenAI-compatible API root (key base-url)")
	fl.Int("max-turns", 0, fmt.Sprintf("model turns per question (key max-turns; default %d)", agent.DefaultMaxTurns))
	fl.Int("reflect-rounds", 0, fmt.Sprintf("rounds in which the model checks its charts, 0 for none (key reflect-rounds; default %d)", agent.DefaultReflectRounds))
	for flag, key := range map[string]string{"base-url": keyBaseURL, "max-turns": keyMaxTurns, "reflect-rounds": keyReflectRounds} {
		_ = fl.SetAnnotation(flag, viperKey, []string{key})
	}
	addKernelFlags(c)
	c.AddCommand(newCmdEvalScore(f, nil), newCmdEvalMerge(f, nil), newCmdEvalValidate(f, nil), newCmdEvalCompare(f, nil))
	return c
}

func runEval(ctx context.Context, f *Factory, opts *EvalOptions) error {
	if opts.Repeat < 1 {
		return usageErrorf("--repeat must be at least 1, got %d", opts.Repeat)
	}
	if opts.MinScore < 0 || opts.MinScore > 1 {
		return usageErrorf("--min-score must be between 0 and 1, got %v", opts.MinScore)
	}
	shard, from, err := resolveShard(opts.Shard, opts.ShardCount, os.Getenv)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if from != "" {
		fmt.Fprintln(f.IO.ErrOut, from)
	}
	suite, err := loadSuite(opts.Suite, opts.Split)
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
	// The models first, as analyst run asks its model first: a bad name or
	// key fails in a second, before any kernel starts. Each client has the
	// options run's has (the completion limit, vision, context length,
	// timeouts).
	var solvers []*evals.AgentSolver
	for _, spec := range models {
		client, err := f.ModelClient(spec, cfg.ModelOptions())
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
		solvers = append(solvers, s)
	}
	setup, err := f.KernelSetup(ctx)
	if err != nil {
		return err
	}
	versions := setup.versions()
	var run []evals.Solver
	for _, s := range solvers {
		s.Kernel, s.Versions, s.CellTimeout, s.MaxTurns = setup.Options, versions, cfg.Limits.CellTimeout, cfg.MaxTurns
		s.ReflectRounds, s.NoFork = cfg.ReflectRounds, opts.NoFork
		run = append(run, s)
	}
	eo := evals.Options{Suite: suite, Solvers: run, Out: opts.Out, Jobs: opts.Jobs, Timeout: opts.Timeout,
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

// loadSuite reads a suite: a DABstep snapshot (its split), a folder in
// DABench's layout, or our YAML.
func loadSuite(path, split string) (*evals.Suite, error) {
	if dabstep.IsDABstep(path) {
		s, err := evals.LoadDABstep(path, split)
		if err != nil {
			return nil, withCode(ExitBadData, fmt.Errorf("suite: %w", err))
		}
		return s, nil
	}
	if split != "" {
		return nil, usageErrorf("--split is for a DABstep snapshot, and %s is not one", path)
	}
	s, err := evals.LoadSuite(path)
	if err != nil {
		return nil, withCode(ExitBadData, fmt.Errorf("suite: %w", err))
	}
	return s, nil
}

// EvalValidateOptions are the inputs of `analyst eval validate`.
type EvalValidateOptions struct {
	Suite string
	Jobs  int
}

func newCmdEvalValidate(f *Factory, runF func(context.Context, *EvalValidateOptions) error) *cobra.Command {
	opts := &EvalValidateOptions{}
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
			opts.Suite = args[0]
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runEvalValidate(c.Context(), f, opts)
		},
	}
	c.Flags().IntVarP(&opts.Jobs, "jobs", "j", 0, "cases in parallel (default: one per 2 cores and 2 GiB free)")
	addKernelFlags(c)
	return c
}

func runEvalValidate(ctx context.Context, f *Factory, opts *EvalValidateOptions) error {
	if dabstep.IsDABstep(opts.Suite) {
		return usageErrorf("%s is a DABstep snapshot: its tasks carry gold answers but no reference code to validate", opts.Suite)
	}
	suite, err := loadSuite(opts.Suite, "")
	if err != nil {
		return err
	}
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	setup, err := f.KernelSetup(ctx)
	if err != nil {
		return err
	}
	out, err := os.MkdirTemp("", "analyst-validate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(out)
	solver := &evals.ReferenceSolver{Kernel: setup.Options, CellTimeout: cfg.Limits.CellTimeout}
	sum, err := evals.Run(ctx, evals.Options{Suite: suite, Solvers: []evals.Solver{solver}, Out: out, Jobs: opts.Jobs,
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
}

func printEvalSummary(f *Factory, out string, s *evals.Summary) {
	for _, m := range s.Models {
		score := pctOf(m.Score)
		if m.ScoredCases() == 0 {
			score = fmt.Sprintf("none: the %d cases are unscored (no gold answers)", m.Unscored)
		}
		fmt.Fprintf(f.IO.Out, "%s: %d cases, %d passed, %d failed, %d errors; score %s\n", m.Model, m.Cases, m.Passed, m.Failed, m.Errors, score)
		if d := m.DABstep; d != nil && d.Overall.Total == 0 {
			fmt.Fprintf(f.IO.Out, "  DABstep: unscored; submission: %s\n", filepath.Join(out, d.Submission))
		} else if d != nil {
			fmt.Fprintf(f.IO.Out, "  DABstep: overall %s (%d of %d), easy %s (%d of %d), hard %s (%d of %d); submission: %s\n",
				pctOf(d.Overall.Value), d.Overall.Correct, d.Overall.Total, pctOf(d.Easy.Value), d.Easy.Correct, d.Easy.Total,
				pctOf(d.Hard.Value), d.Hard.Correct, d.Hard.Total, filepath.Join(out, d.Submission))
			if len(m.Errored) > 0 {
				fmt.Fprintf(f.IO.Out, "  errored: %s (each submitted with the empty answer, scored as DABstep's scorer scores it)\n", strings.Join(m.Errored, ", "))
			}
		} else {
			fmt.Fprintf(f.IO.Out, "  DABench official: ABQ %s, PSAQ %s, UASQ %s (%d answered); strict ABQ %s\n",
				pctOf(m.Official.ABQ), pctOf(m.Official.PSAQ), pctOf(m.Official.UASQ), m.Answered, pctOf(m.Strict.ABQ))
		}
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
		if m.ScoredCases() == 0 {
			return usageErrorf("--min-score: %s has no scored case (%d unscored: the split has no gold answers); run a split with answers, or drop --min-score", m.Model, m.Unscored)
		}
		if m.Score < min {
			low = append(low, fmt.Sprintf("%s scored %s", m.Model, pctOf(m.Score)))
		}
	}
	if len(low) > 0 {
		return withCode(ExitBelowTarget, fmt.Errorf("below --min-score %s: %s", pctOf(min), strings.Join(low, ", ")))
	}
	return nil
}

// EvalMergeOptions are the inputs of `analyst eval merge`.
type EvalMergeOptions struct {
	Out      string
	Shards   []string
	MinScore float64
}

func newCmdEvalMerge(f *Factory, runF func(context.Context, *EvalMergeOptions) error) *cobra.Command {
	opts := &EvalMergeOptions{}
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
			if len(args) < 1 || opts.Out == "" {
				return usageErrorf("eval merge takes --out OUT and one or more shard folders")
			}
			opts.Shards = args
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runEvalMerge(f, opts)
		},
	}
	c.Flags().StringVarP(&opts.Out, "out", "o", "", "output folder of the merged run")
	c.Flags().Float64Var(&opts.MinScore, "min-score", 0, "exit 6 when a model's score is below this, 0-1")
	return c
}

func runEvalMerge(f *Factory, opts *EvalMergeOptions) error {
	sum, err := evals.Merge(opts.Out, opts.Shards)
	if err != nil {
		return withCode(ExitBadData, err)
	}
	printEvalSummary(f, opts.Out, sum)
	return belowMinScore(sum, opts.MinScore)
}

// EvalCompareOptions are the inputs of `analyst eval compare`.
type EvalCompareOptions struct {
	A, B             string
	FailOnRegression bool
	Alpha            float64
}

func newCmdEvalCompare(f *Factory, runF func(context.Context, *EvalCompareOptions) error) *cobra.Command {
	opts := &EvalCompareOptions{}
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
			if opts.Alpha <= 0 || opts.Alpha >= 1 {
				return usageErrorf("--alpha must be between 0 and 1, got %v", opts.Alpha)
			}
			opts.A, opts.B = args[0], args[1]
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runEvalCompare(f, opts)
		},
	}
	c.Flags().BoolVar(&opts.FailOnRegression, "fail-on-regression", false, "exit 6 on a significant regression of B against A")
	c.Flags().Float64Var(&opts.Alpha, "alpha", 0.05, "significance level for --fail-on-regression")
	return c
}

func runEvalCompare(f *Factory, opts *EvalCompareOptions) error {
	cmp, err := evals.Compare(opts.A, opts.B)
	if err != nil {
		return withCode(ExitBadData, err)
	}
	cmp.Write(f.IO.Out)
	if opts.FailOnRegression && len(cmp.Regressions) > len(cmp.Improvements) && cmp.P < opts.Alpha {
		return withCode(ExitBelowTarget, fmt.Errorf("significant regression: %d regressions, %d improvements, p = %.4g < %v",
			len(cmp.Regressions), len(cmp.Improvements), cmp.P, opts.Alpha))
	}
	return nil
}
