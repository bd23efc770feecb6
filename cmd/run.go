package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/audit"
	"github.com/analyst-cli/analyst/dataset"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/pipeline"
	"github.com/analyst-cli/analyst/runrecord"
)

// RunOptions are the inputs of `analyst run`.
type RunOptions struct {
	Data string // DATA, the first argument; "" with --data
	// DataPaths are the --data files and folders (repeatable): then every
	// argument is a question.
	DataPaths      []string
	SkipUnreadable bool
	Questions      []string
	Independent    bool // answer the questions each in a forked session, at once
	OutDir         string
	Name           string
	Force          bool
	JSON           bool
	Sheet          string
	Table          string
	Sign           string // SSH private key that signs run.json (analyst verify --allowed-signers)
	BaselineOptions
}

// newCmdRun: runF, when not nil, replaces runRun (tests see the parsed
// options and the configuration without a kernel image). It is long for its
// help text and flags, not for its logic.
func newCmdRun(f *Factory, runF func(context.Context, *RunOptions) error) *cobra.Command {
	opts := &RunOptions{}
	c := &cobra.Command{
		Use:   "run DATA [QUESTION...] | run --data PATH [--data PATH...] [QUESTION...]",
		Short: "Profile a dataset, explore it and answer questions about it with a model, and write a notebook and an HTML report",
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
  NAME.run.json  what ran on what: data sha256, versions, limits, timings,
                 and every file above with its sha256

NAME defaults to the data file's or folder's name. Re-running into the same folder
replaces the previous run of that name whole — and only a run: where one of
these outputs exists and NAME.run.json of a previous run does not list it
with the same sha256 (a file of yours, or one you edited since), the run
stops before it starts, with exit code 2 and the file's name; choose another
--name or --out, or pass --force to replace NAME.ipynb, NAME.html,
NAME.run.json and the whole NAME_files folder anyway. A run that fails
still writes what it got to, with the failure shown. The data file is
mounted read-only and never changed.

With a language model (--model), the run then explores the data, in the
same kernel:

  exploration    the model reads the profile summary (no rows beyond a few
                 samples) and proposes --goals analysis goals: a question,
                 the chart that answers it, why it matters. Goals that
                 repeat a chart above or name unknown columns are dropped
                 (the report says why). Each goal becomes code; charts
                 without a title or axis labels, with an empty series or
                 an unreadable category axis go back to the model; the
                 model checks each chart (reflection: accept or revise) and
                 states a finding with its numbers. The report opens with
                 the key findings, each linked to its chart's cell, each
                 number to the cell whose output shows it (or marked
                 untraced). --explore=false skips it.

With questions, the model then writes pandas/matplotlib code for each: it
sees the outputs and charts, repairs its own errors, checks its charts, and
states its answer as named values (@name[value]) with a short narrative,
shown first in the report. Every number it states is traced to the cell
whose output shows it (linked in the report) or marked untraced, and the
model is told once of untraced ones. Later questions are follow-ups: they
see the earlier answers and variables, and are asked one after the other.
With --independent the questions stand alone: each is answered by a
conversation of its own in a session forked from the kernel after the
exploration (the data, the exploration's variables, nothing of the other
questions), up to 4 at once, each in its own section of the notebook, which
still re-runs top to bottom. Use it for a list of separate questions (it is
faster); leave it out when a question builds on an earlier one.
Models: ollama:NAME (OLLAMA_HOST) or openai:NAME (OPENAI_API_KEY,
--base-url or OPENAI_BASE_URL; ollama.com with OLLAMA_API_KEY).

Reads CSV and TSV (delimiter sniffed), gzip-compressed CSV, JSON, JSON Lines
(UTF-8 with or without BOM, or Latin-1); Excel (.xlsx, .xls) and OpenDocument
(.ods) spreadsheets (--sheet picks a sheet, by name or number from 1; default
the first); SPSS (.sav), Stata (.dta), SAS (.sas7bdat, .xpt); SQLite
databases (--table NAME, or the only table); and Parquet, which analyst
converts to typed NumPy columns before the run (the kernel has no pyarrow).
Cleans text as exports write it: missing-value markers (--na-values), numbers
with thousands separators, currency symbols, % or accounting parentheses,
timestamps with UTC offsets (converted to UTC) and Unix times in columns named
like times; every conversion is code in the notebook and a note in the report.

With --baseline OLD (an earlier run: its folder or NAME.run.json), the run
compares its data with what OLD kept (every run keeps a sketch of its data:
NAME_files/sketch.json; the old rows are not needed) and a What changed
section opens the report: columns removed, added, renamed or changed in
type, the rows, and per column the missing share, numeric shifts
(Wasserstein distance over the baseline's standard deviation, KS, PSI,
quantile deltas), category shifts, new and vanished values, and gaps in
dates, each judged info, warn or fail by documented thresholds (config file
key baseline:, per column too). --fail-on warn|fail exits 8 after writing
everything when a change at that level or above is found; --summary-md FILE
writes a Markdown table of the changes for a CI step summary. The comparison
is computed, not written by a model; with --model, the model then reads the
changes (never the rows) and writes Key changes at the top of What changed,
each of its numbers traced to the cell that shows it, or marked untraced.

DATA may be a folder: each table in it (any format above, in subfolders
too) is loaded into tables["NAME"], NAME its path without its extensions
(payments.csv is tables["payments"], 2024/orders.json tables["2024/orders"];
names that would clash keep their extensions), each with its own load and
profile sections; df is the table with the most rows (the main table), which
the distributions and charts are of. Its documents (.md, .markdown, .txt,
.rst) are mounted read-only beside the tables and never pasted whole to the
model: it is told each one's size and headings, and reads them with
read_doc("manual.md", "Fees"). Hidden files are left out; other files are
listed as ignored, with why. A table that cannot be read, or a link that
leaves the folder, stops the run before any kernel starts (exit 3, naming the
file); --skip-unreadable leaves unreadable files out instead, and the report
and run.json list them. At most 1,000 files and 16 GiB of tables and
documents. Several files or folders: --data PATH, repeated; every argument is
then a question.

A CSV or TSV file too big for the kernel's memory (--memory) is read out of
core (--out-of-core, default auto): in chunks, with exact counts, missing
values, min, max, mean, standard deviation and histograms, approximate (≈)
quantiles and distinct counts, and df a uniform sample of at most 1,000,000
rows; the model also gets full, which aggregates over every row. The report
says so at the top.`,
		Example: `  analyst run sales.csv
  analyst run sales.csv --model ollama:qwen2.5-coder:7b --goals 3
  analyst run --sheet Q4 sales.xlsx
  analyst run --table orders shop.sqlite
  analyst run --out reports --name q4 sales.csv.gz
  analyst run --out week-49 --baseline week-48/ --fail-on fail --summary-md changes.md sales.csv
  analyst run sales.csv "Plot total revenue by month and tell me the peak month" --model ollama:qwen2.5-coder:7b
  analyst run sales.csv "Which region sells most?" "Break that region down by product" --model openai:gpt-4o-mini
  analyst run sales.csv --independent "Which region sells most?" "How are discounts spread?" --model openai:gpt-4o-mini
  analyst run shop/ "Which customers ordered in March but not in April?" --model ollama:qwen2.5-coder:7b
  analyst run --data orders.csv --data customers.json "Who spends most?" --model ollama:qwen2.5-coder:7b`,
		Args: func(c *cobra.Command, args []string) error {
			if len(opts.DataPaths) == 0 {
				if len(args) < 1 {
					return usageErrorf("run takes DATA (a file or a folder), then optional questions; or the data with --data PATH (repeatable) and questions")
				}
				opts.Data, args = args[0], args[1:]
			}
			for _, q := range args {
				if len(opts.DataPaths) > 0 && namesData(q) {
					return usageErrorf("%q is a file or folder, but with --data every argument is a question: give all the data with --data (repeatable)", q)
				}
				if strings.TrimSpace(q) == "" {
					return usageErrorf("a question is empty")
				}
				opts.Questions = append(opts.Questions, q)
			}
			if opts.Independent && len(opts.Questions) == 0 {
				return usageErrorf("--independent answers questions at once, each in its own session: give the questions after DATA")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.FailOnSet = c.Flags().Changed("fail-on")
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runRun(c.Context(), f, opts)
		},
	}
	c.Flags().StringVarP(&opts.OutDir, "out", "o", ".", "output folder")
	c.Flags().StringVar(&opts.Name, "name", "", "base name of the outputs (default: the data file's name)")
	c.Flags().BoolVar(&opts.Force, "force", false, "replace NAME.ipynb, NAME.html, NAME.run.json and NAME_files/ even if no previous run wrote them")
	c.Flags().BoolVar(&opts.JSON, "json", false, "print progress events and the result as JSON lines")
	c.Flags().StringArrayVar(&opts.DataPaths, "data", nil, "a data file or folder, instead of DATA; repeat it for several (each file at its name, each folder's files under its name); every argument is then a question")
	c.Flags().BoolVar(&opts.SkipUnreadable, "skip-unreadable", false, "in a folder, leave out the tables and documents that cannot be read (the report and run.json list them, with why) instead of stopping")
	addSourceFlags(c, &opts.Sheet, &opts.Table)
	c.Flags().BoolVar(&opts.Independent, "independent", false, fmt.Sprintf("the questions are independent: answer them at once (up to %d), each in a session forked after the exploration, with its own conversation; without it they are follow-ups, asked in order", pipeline.MaxIndependentAtOnce))
	c.Flags().StringVar(&opts.Sign, "sign", "", "SSH private key that signs NAME.run.json into NAME.run.json.sig (ssh-keygen -Y sign; check with analyst verify --allowed-signers)")
	fl := c.Flags()
	fl.String("model", "", "model that explores the data and answers the questions, provider:name, e.g. ollama:qwen2.5-coder:7b or openai:gpt-4o-mini (key model)")
	fl.String("base-url", "", "OpenAI-compatible API root (key base-url; default $OPENAI_BASE_URL or api.openai.com)")
	fl.Int("max-turns", 0, fmt.Sprintf("model turns per question (key max-turns; default %d)", agent.DefaultMaxTurns))
	fl.Int("reflect-rounds", 0, fmt.Sprintf("rounds in which the model checks its charts, 0 for none (key reflect-rounds; default %d)", agent.DefaultReflectRounds))
	fl.Bool("explore", true, "with a model, explore the data before any question: goals, a chart and a finding each (key explore)")
	fl.Int("goals", agent.DefaultGoals, "analysis goals the model is asked for when it explores (key goals)")
	fl.Duration("run-timeout", 0, "time limit of the whole run, e.g. 30m (key run-timeout; default none)")
	fl.String("na-values", "", "text values read as missing, separated by commas; replaces the default list, \"\" for none (key na-values; default: "+strings.Join(quoted(eda.DefaultNAValues), " ")+", compared ignoring case and surrounding spaces)")
	fl.String("out-of-core", "", "read the data chunk by chunk: auto (when it will not fit in the kernel's memory), true or false; --out-of-core alone is true (key run.out-of-core; default auto; CSV and TSV only)")
	fl.Lookup("out-of-core").NoOptDefVal = pipeline.OutOfCoreOn
	for flag, key := range map[string]string{"model": keyModel, "base-url": keyBaseURL, "max-turns": keyMaxTurns, "reflect-rounds": keyReflectRounds, "explore": keyExplore, "goals": keyGoals, "run-timeout": keyRunTimeout, "na-values": keyNAValues, "out-of-core": keyOutOfCore} {
		_ = fl.SetAnnotation(flag, viperKey, []string{key})
	}
	addBaselineFlags(c, &opts.BaselineOptions)
	addKernelFlags(c)
	addModelFlags(c)
	return c
}

func runRun(ctx context.Context, f *Factory, opts *RunOptions) error {
	// Bad data, and outputs that would replace files no run wrote, are
	// reported before anything slow starts.
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	in, name, err := pipeline.Preflight(pipeline.Options{Data: opts.Data, DataPaths: opts.DataPaths, SkipUnreadable: opts.SkipUnreadable,
		OutDir: opts.OutDir, Name: opts.Name, Force: opts.Force, Kernel: kernel.Options{Limits: cfg.Limits}, OutOfCore: cfg.OutOfCore})
	if err != nil {
		return runError(err)
	}
	ds, err := dataset.Open(in, opts.Sheet, opts.Table, eda.LoadOptions{NAValues: cfg.NAValues})
	if err != nil {
		return runError(err)
	}
	defer ds.Close()
	if err := checkBaselineFlags(&opts.BaselineOptions); err != nil {
		return err
	}
	base, err := openBaseline(opts.Baseline)
	if err != nil {
		return err
	}
	model, check, retries, err := f.runModel(ctx, cfg, len(opts.Questions) > 0, base != nil)
	if err != nil {
		return err
	}
	popts := pipeline.Options{
		Dataset: ds, OutDir: opts.OutDir, Name: name, Force: opts.Force, CellTimeout: cfg.Limits.CellTimeout,
		AnalystVersion: Version, Questions: opts.Questions, Independent: opts.Independent, ModelSpec: cfg.Model,
		MaxTurns: cfg.MaxTurns, ReflectRounds: &cfg.ReflectRounds, NoExplore: !cfg.Explore, Goals: cfg.Goals,
		RunTimeout: cfg.RunTimeout, ModelRetries: retries.Retries, OutOfCore: cfg.OutOfCore,
		Baseline: base, ChangeRules: cfg.ChangeRules, ExplainChanges: base != nil,
	}
	if model != nil { // not a nil *Recorder in Model
		popts.Model, popts.Recorder = model, model
		popts.ModelInfo, popts.ModelErr = check.info, check.err
	}
	// A model server that did not answer ends the run before any kernel:
	// the outputs say so, and the host is not probed.
	if popts.ModelErr == nil {
		setup, err := f.KernelSetup(ctx)
		if err != nil {
			return err
		}
		setup.apply(&popts)
	}
	progress := newProgress(f, opts.JSON)
	popts.Progress = progress.Event
	res, err := pipeline.Run(ctx, popts)
	progress.Stop()
	err = signRun(ctx, opts.Sign, res, err)
	if res != nil && res.Files.Report != "" {
		printRunFiles(f, opts.JSON, res)
	}
	runErr := runError(err)
	if err == nil && res != nil {
		if missing := res.Unanswered(); len(missing) > 0 {
			var reasons []string
			for _, u := range missing {
				reasons = append(reasons, fmt.Sprintf("question %d got no answer: %s", u.Index, u.Reason))
			}
			runErr = withCode(ExitNoAnswer, errors.New(strings.Join(reasons, "; ")))
		}
	}
	return finishBaseline(&opts.BaselineOptions, cfg, base, opts.Data, res, runErr)
}

// namesData says whether arg is a path to a file or folder (a question
// with a space in it is never taken for one).
func namesData(arg string) bool {
	if strings.ContainsAny(arg, " \t\n") {
		return false
	}
	_, err := os.Stat(arg)
	return err == nil
}

// runModel is the model of a run, asked about itself before anything slow
// starts, so a server that is not there, a bad key or an unknown model
// fails in a second; nil without questions and exploration. A model
// explores the data (unless --explore=false), answers the questions, and
// with a baseline (compare) writes the key changes.
func (f *Factory) runModel(ctx context.Context, cfg *Config, questions, compare bool) (*audit.Recorder, *modelCheck, *retryCounter, error) {
	retries := newRetryCounter()
	if !questions && !((cfg.Explore || compare) && cfg.Model != "") {
		return nil, nil, retries, nil
	}
	if cfg.Model == "" {
		return nil, nil, nil, usageErrorf("a question needs a model: set --model, ANALYST_MODEL, or `model:` in the config file (e.g. ollama:qwen2.5-coder:7b or openai:gpt-4o-mini)")
	}
	mopts := cfg.ModelOptions()
	mopts.HTTPClient = &http.Client{Transport: retries}
	client, err := f.ModelClient(cfg.Model, mopts)
	if err != nil {
		return nil, nil, nil, usageErrorf("%v", err)
	}
	// Every reply in run.json, the model's info included, for analyst
	// replay.
	model := audit.NewRecorder(client)
	info, err := model.Model(ctx)
	if err != nil && ctx.Err() != nil {
		return nil, nil, nil, runError(ctx.Err())
	}
	return model, &modelCheck{info: info, err: err}, retries, nil
}

// modelCheck is what the model server said when the run asked it first:
// its model's info, or why it could not answer.
type modelCheck struct {
	info *llm.ModelInfo
	err  error
}

func quoted(values []string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = fmt.Sprintf("%q", v)
	}
	return out
}

// runError maps a pipeline error to its exit code.
func runError(err error) error {
	var inErr *dataset.InputError
	var dataErr *dataset.DataError
	var sbErr *pipeline.SandboxError
	var modelErr *pipeline.ModelError
	var outErr *pipeline.OutputConflictError
	var memErr *dataset.MemoryError
	var usageErr *dataset.UsageError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled):
		return err
	case errors.As(err, &inErr), errors.As(err, &dataErr):
		return withCode(ExitBadData, err)
	case errors.As(err, &outErr), errors.As(err, &usageErr):
		return withCode(ExitUsage, err)
	case errors.As(err, &modelErr):
		return withCode(ExitModel, modelMessage(err))
	case errors.As(err, &sbErr), errors.As(err, &memErr):
		return withCode(ExitSandbox, err)
	default:
		return withCode(ExitFailure, err)
	}
}

// answerJSON is one question's outcome in the --json result.
type answerJSON struct {
	Question   string             `json:"question"`
	Status     string             `json:"status"` // answered, unverified, no-answer
	Values     []agent.NamedValue `json:"values"`
	Summary    string             `json:"summary,omitempty"`
	Reason     string             `json:"reason,omitempty"` // why there is no answer
	Revised    bool               `json:"revised,omitempty"`
	Unverified bool               `json:"unverified,omitempty"`
	// OldNew are the named values old → new of a replay on new data.
	OldNew []runrecord.ValueChange `json:"old_new,omitempty"`
	// Untraced are the numbers of the answer no cell's output shows.
	Untraced []string `json:"untraced,omitempty"`
}

func answerStatus(a *agent.Answer) string {
	switch {
	case !a.Answered:
		return "no-answer"
	case a.Unverified:
		return "unverified"
	}
	return "answered"
}

func printRunFiles(f *Factory, asJSON bool, res *pipeline.Result) {
	if asJSON {
		answers := []answerJSON{}
		for i, a := range res.Answers {
			answers = append(answers, answerJSON{Question: a.Question, Status: answerStatus(a), Values: a.Values, Summary: a.Summary,
				Reason: a.Stop, Revised: a.Revised, Unverified: a.Unverified, OldNew: rerunValues(res, i+1),
				Untraced: a.Numbers.UntracedTexts()})
		}
		result := map[string]any{
			"type": "result", "report": res.Files.Report, "notebook": res.Files.Notebook,
			"manifest": res.Files.Manifest, "charts": res.Files.Charts, "failure": res.Failure, "answers": answers,
		}
		if res.Manifest != nil && res.Manifest.Rerun != nil {
			result["rerun"] = res.Manifest.Rerun
		}
		if ex := res.Exploration; ex != nil {
			result["key_findings"] = ex.KeyFindings
		}
		if res.Changes != nil {
			result["changes"] = res.Changes //houserules:literal a JSON key
		}
		_ = json.NewEncoder(f.IO.Out).Encode(result)
		return
	}
	printRerun(f, res)
	printChanges(f.IO.Out, res.Changes)
	printKeyFindings(f, res)
	printAnswers(f, res)
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
	case errors.Is(err, llm.ErrTimeout):
		what = "model request timed out"
	case errors.Is(err, llm.ErrReplyTooLong):
		what = "model replies ran on without end"
	default:
		what = "model error"
	}
	return fmt.Errorf("%s: %w", what, err)
}

// printKeyFindings shows the exploration's key findings, or why there are
// none.
func printKeyFindings(f *Factory, res *pipeline.Result) {
	ex := res.Exploration
	if ex == nil {
		return
	}
	if len(ex.KeyFindings) == 0 {
		note := "the exploration produced no finding"
		if ex.Proposal != nil && ex.Proposal.Note != "" {
			note = ex.Proposal.Note
		}
		fmt.Fprintf(f.IO.Out, "exploration: %s\n", note)
		return
	}
	fmt.Fprintln(f.IO.Out, "key findings:")
	for i, k := range ex.KeyFindings {
		fmt.Fprintf(f.IO.Out, "  %d. %s\n", i+1, strings.ReplaceAll(strings.ReplaceAll(k.Finding, "**", ""), "\n", " "))
		printValueChanges(f, "     ", rerunAnswer(res, runrecord.RerunAnswer{Goal: k.Goal}))
	}
}

// printAnswers shows each question's outcome: status, named values and
// narrative (values named inline in bold on a terminal), or why there is
// no answer.
func printAnswers(f *Factory, res *pipeline.Result) {
	bold := func(s string) string { return strings.ReplaceAll(s, "**", "") }
	if f.IO.IsStdoutTTY() {
		bold = func(s string) string {
			parts := strings.Split(s, "**")
			for i := 1; i < len(parts); i += 2 {
				parts[i] = "\x1b[1m" + parts[i] + "\x1b[0m"
			}
			return strings.Join(parts, "")
		}
	}
	for i, a := range res.Answers {
		fmt.Fprintf(f.IO.Out, "%s %s: %s\n", agent.StageQuestion(i+1), answerStatus(a), a.Question)
		if !a.Answered {
			fmt.Fprintf(f.IO.Out, "  reason: %s\n", a.Stop)
			continue
		}
		if changes := rerunValues(res, i+1); changes != nil {
			printValueChanges(f, "  ", changes)
		} else {
			for _, v := range a.Values {
				fmt.Fprintf(f.IO.Out, "  %s = %s\n", v.Name, v.Value)
			}
		}
		if s := a.SummaryMarkdown(); s != "" {
			if rerunValues(res, i+1) != nil && res.Manifest.Rerun.Model == "" {
				s = "(the model's summary, written for the old data) " + s
			}
			fmt.Fprintf(f.IO.Out, "  %s\n", strings.ReplaceAll(bold(s), "\n", "\n  "))
		}
		if a.Unverified {
			fmt.Fprintln(f.IO.Out, "  (unverified: no code ran for this answer)")
		}
		if a.Revised {
			fmt.Fprintln(f.IO.Out, "  (revised after the model checked its charts)")
		}
		if u := a.Numbers.UntracedTexts(); len(u) > 0 {
			fmt.Fprintf(f.IO.Out, "  (not traced to any cell: %s)\n", strings.Join(u, ", "))
		}
	}
}

// addSourceFlags adds --sheet and --table, which say what part of a
// spreadsheet or database to read.
func addSourceFlags(c *cobra.Command, sheet, table *string) {
	c.Flags().StringVar(sheet, "sheet", "", "spreadsheets (.xlsx, .xls, .ods): the sheet to read, by name or number from 1 (default: the first)")
	c.Flags().StringVar(table, "table", "", "SQLite databases: the table or view to read (default: the only one)")
}
