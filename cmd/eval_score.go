package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/evals"
	"github.com/analyst-cli/analyst/evals/dabench"
	"github.com/analyst-cli/analyst/evals/dabstep"
	"github.com/analyst-cli/analyst/internal/atomicfile"
)

// EvalScoreOptions are the inputs of `analyst eval score`.
type EvalScoreOptions struct {
	DABench string // a DABench folder: File is a responses file
	DABstep string // a DABstep snapshot: File is a submission file
	Split   string // DABstep's split ("" for the default)
	// JSON also writes the scores as JSON: DABench's official
	// evaluation_analysis.json, or DABstep's figures and every task's verdict.
	JSON string
	File string
}

// newCmdEvalScore: runF, when not nil, replaces runEvalScore.
func newCmdEvalScore(f *Factory, runF func(context.Context, *EvalScoreOptions) error) *cobra.Command {
	opts := &EvalScoreOptions{}
	c := &cobra.Command{
		Use:   "score (--dabench DIR RESPONSES | --dabstep DIR SUBMISSION)",
		Short: "Rescore a DABench responses file or a DABstep submission exactly as the benchmark does",
		Long: `Rescore a benchmark's answers file with its official semantics.

--dabench DIR RESPONSES: a responses file ({"id": N, "response": "..."} per
line) against DIR's questions and labels, as DABench's official scorer
(eval_closed_form.py) does: it prints what that script prints, then our
additions (answered count; strict figures that count unanswered questions as
wrong). --json FILE also writes the official evaluation_analysis.json, byte
for byte.

--dabstep DIR SUBMISSION: a DABstep submission ({"task_id", "agent_answer",
"reasoning_trace"} per line, the file the leaderboard takes) against the
answers of DIR, a snapshot of the adyen/DABstep dataset repository, each
task's first line scored as DABstep's question_scorer scores it. It prints
the accuracy overall, on the easy and on the hard tasks, in percent with two
decimals as the leaderboard shows them, with the counts; a task with no line
counts wrong (the leaderboard refuses such a file). Wrong tasks, missing
ones, task ids not in the split and ids on several lines are listed.
--split picks the tasks file (default: dev when it has answers). --json FILE
also writes the figures and every task's verdict (task_id, level,
answered, right) as JSON.

Exit status: 0 when scored; 2 on bad flags or arguments; 3 when DIR is not
the benchmark's layout, its split has no answers, or the answers file is
malformed (not JSON Lines, a field the leaderboard refuses, a null).`,
		Example: `  analyst eval score --dabench ../dabench eval-out/responses/ollama_qwen2.5-coder_7b.jsonl
  analyst eval score --dabstep DABstep submission.jsonl`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("eval score takes one RESPONSES or SUBMISSION file")
			}
			opts.File = args[0]
			switch {
			case opts.DABench == "" && opts.DABstep == "":
				return usageErrorf("eval score needs --dabench DIR (the folder with %s and %s) or --dabstep DIR (a snapshot of the DABstep dataset)",
					evals.DABenchQuestions, evals.DABenchLabels)
			case opts.DABench != "" && opts.DABstep != "":
				return usageErrorf("eval score takes --dabench or --dabstep, not both")
			case opts.Split != "" && opts.DABstep == "":
				return usageErrorf("--split is for --dabstep")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runEvalScore(f, opts)
		},
	}
	c.Flags().StringVar(&opts.DABench, "dabench", "", "folder with "+evals.DABenchQuestions+" and "+evals.DABenchLabels)
	c.Flags().StringVar(&opts.DABstep, "dabstep", "", "a snapshot of the DABstep dataset repository ("+dabstep.TasksDir+"/, "+dabstep.ContextDir+"/)")
	c.Flags().StringVar(&opts.Split, "split", "", "DABstep's tasks file: dev or all (default: dev when it has answers)")
	c.Flags().StringVar(&opts.JSON, "json", "", "also write the scores as JSON here: DABench's official evaluation_analysis.json, or DABstep's figures and every task's verdict")
	return c
}

func runEvalScore(f *Factory, opts *EvalScoreOptions) error {
	if opts.DABstep != "" {
		return scoreDABstep(f, opts)
	}
	return scoreDABench(f, opts)
}

func scoreDABstep(f *Factory, opts *EvalScoreOptions) error {
	b, err := dabstep.LoadTasks(opts.DABstep, opts.Split)
	if err != nil {
		return withCode(ExitBadData, err)
	}
	sub, err := dabstep.ReadSubmission(opts.File)
	if err != nil {
		return withCode(ExitBadData, err)
	}
	sc, err := dabstep.Score(b, sub)
	if err != nil {
		return withCode(ExitBadData, err)
	}
	sc.Write(f.IO.Out)
	if opts.JSON != "" {
		if err := atomicfile.Write(opts.JSON, sc.WriteJSON); err != nil {
			return fmt.Errorf("writing the scores to --json %s: %w", opts.JSON, err)
		}
	}
	return nil
}

func scoreDABench(f *Factory, opts *EvalScoreOptions) error {
	qs, err := dabench.LoadQuestions(filepath.Join(opts.DABench, evals.DABenchQuestions))
	if err != nil {
		return withCode(ExitBadData, err)
	}
	ls, err := dabench.LoadLabels(filepath.Join(opts.DABench, evals.DABenchLabels))
	if err != nil {
		return withCode(ExitBadData, err)
	}
	rs, err := dabench.LoadResponses(opts.File)
	if err != nil {
		return withCode(ExitBadData, err)
	}
	s, err := dabench.Score(qs, ls, rs)
	if err != nil {
		return withCode(ExitBadData, fmt.Errorf("%s: %w", opts.File, err))
	}
	s.WriteOfficial(f.IO.Out)
	s.WriteOurs(f.IO.Out)
	if opts.JSON != "" {
		fh, err := os.Create(opts.JSON)
		if err != nil {
			return err
		}
		defer fh.Close()
		return s.WriteOfficialJSON(fh)
	}
	return nil
}
