package cmd

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// executeEvalScore runs `analyst eval score ARGS` with runF in place of
// the real work.
func executeEvalScore(t *testing.T, runF func(context.Context, *EvalScoreOptions) error, args ...string) error {
	t.Helper()
	cmdEnv(t, "", nil)
	f := testFactory()
	root := NewCmdRoot(f)
	eval, _, err := root.Find([]string{"eval"})
	if err != nil {
		t.Fatal(err)
	}
	old, _, err := eval.Find([]string{"score"})
	if err != nil || old == eval {
		t.Fatal("no eval score to swap")
	}
	eval.RemoveCommand(old)
	eval.AddCommand(newCmdEvalScore(f, runF))
	root.SetArgs(append([]string{"eval", "score"}, args...))
	return root.ExecuteContext(context.Background())
}

func TestEvalScoreFlags(t *testing.T) {
	var got *EvalScoreOptions
	keep := func(_ context.Context, o *EvalScoreOptions) error { got = o; return nil }
	if err := executeEvalScore(t, keep, "--dabstep", "DABstep", "--split", "all", "sub.jsonl"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&EvalScoreOptions{DABstep: "DABstep", Split: "all", File: "sub.jsonl"}, got); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
	if err := executeEvalScore(t, keep, "--dabstep", "d", "--json", "x.json", "s.jsonl"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&EvalScoreOptions{DABstep: "d", JSON: "x.json", File: "s.jsonl"}, got); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
	if err := executeEvalScore(t, keep, "--dabench", "dab", "--json", "a.json", "r.jsonl"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&EvalScoreOptions{DABench: "dab", JSON: "a.json", File: "r.jsonl"}, got); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"sub.jsonl"}, "needs --dabench DIR (the folder with da-dev-questions.jsonl and da-dev-labels.jsonl) or --dabstep DIR"},
		{[]string{"--dabstep", "d"}, "takes one RESPONSES or SUBMISSION file"},
		{[]string{"--dabstep", "d", "a", "b"}, "takes one RESPONSES or SUBMISSION file"},
		{[]string{"--dabstep", "d", "--dabench", "e", "s"}, "--dabench or --dabstep, not both"},
		{[]string{"--dabench", "d", "--split", "dev", "s"}, "--split is for --dabstep"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			wantUsage(t, executeEvalScore(t, keep, tt.args...), tt.want)
		})
	}
}
