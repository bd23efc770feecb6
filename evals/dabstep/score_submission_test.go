package dabstep_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/evals/dabstep"
	"github.com/analyst-cli/analyst/evals/dabstep/dabsteptest"
)

func submission(t *testing.T, lines ...string) *dabstep.Submission {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sub.jsonl")
	write(t, path, strings.Join(lines, "\n")+"\n")
	s, err := dabstep.ReadSubmission(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func answerLine(id, answer string) string {
	return fmt.Sprintf(`{"task_id": %q, "agent_answer": %q, "reasoning_trace": "t"}`, id, answer)
}

// openFixture is a generated snapshot and its split.
func openFixture(t *testing.T, split string) (*dabsteptest.Fixture, *dabstep.Benchmark) {
	t.Helper()
	f := fixture(t)
	b, err := dabstep.Open(f.Dir, split)
	if err != nil {
		t.Fatal(err)
	}
	return f, b
}

func TestScoreAllRight(t *testing.T) {
	f, b := openFixture(t, "")
	var ls []string
	for _, task := range f.Tasks {
		ls = append(ls, answerLine(task.ID, " "+strings.ToUpper(task.Answer)+" "))
	}
	sc, err := dabstep.Score(b, submission(t, ls...))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	sc.Write(&out)
	want := `DABstep dev split: 10 tasks, 10 answered
Overall Accuracy:      100.00%  (10 of 10)
Easy Level Accuracy:   100.00%  (5 of 5)
Hard Level Accuracy:   100.00%  (5 of 5)
`
	if out.String() != want {
		t.Errorf("printout:\n%s\nwant:\n%s", out.String(), want)
	}
}

// A wrong answer, a missing task, a task id twice (the first line scored,
// as the leaderboard does), ids not in the split, and an integer task id.
func TestScoreReportsWhatTheLeaderboardWould(t *testing.T) {
	f, b := openFixture(t, "")
	gold := map[string]string{}
	for _, task := range f.Tasks {
		gold[task.ID] = task.Answer
	}
	sub := submission(t,
		answerLine("1", gold["1"]), answerLine("2", "-1"), `{"task_id": 3, "agent_answer": "NL"}`,
		answerLine("4", gold["4"]), answerLine("5", "Not Applicable"),
		answerLine("6", "1, 2"), answerLine("6", gold["6"]), // first wrong, then right: wrong
		answerLine("7", gold["7"]), answerLine("999", "x"), answerLine("8", gold["8"]), answerLine("1000", "y"),
		answerLine("9", gold["9"]),
		// task 10 has no line
	)
	sc, err := dabstep.Score(b, sub)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	sc.Write(&out)
	want := `DABstep dev split: 10 tasks, 9 answered
Overall Accuracy:       70.00%  (7 of 10)
Easy Level Accuracy:    80.00%  (4 of 5)
Hard Level Accuracy:    60.00%  (3 of 5)
wrong: 2, 6
no answer (counted wrong; the leaderboard refuses a submission without every task): 10
not in the dev split (ignored): 999, 1000
task 6 is on lines 6, 7: the first is scored, as the leaderboard does
`
	if out.String() != want {
		t.Errorf("printout:\n%s\nwant:\n%s", out.String(), want)
	}
	if sc.Tasks[2].TaskID != "3" || !sc.Tasks[2].Right {
		t.Errorf("task 3 (an integer id in the submission): %+v", sc.Tasks[2])
	}
}

func TestScoreNeedsAnswers(t *testing.T) {
	_, b := openFixture(t, dabstep.SplitAll)
	if _, err := dabstep.Score(b, submission(t, answerLine("1", "x"))); err == nil || !strings.Contains(err.Error(), "the all split has no answers (the leaderboard keeps them): score against the dev split") {
		t.Errorf("scoring the all split: %v", err)
	}
}

// Percentages as the leaderboard rounds them: round(mean * 100, 2).
func TestPercent(t *testing.T) {
	for _, tt := range []struct {
		right, total int
		want         string
	}{{2, 3, "66.67%"}, {1, 3, "33.33%"}, {1, 8, "12.50%"}, {0, 0, "-"}, {71, 450, "15.78%"}, {1, 450, "0.22%"}} {
		if got := (dabstep.LevelScore{Right: tt.right, Total: tt.total}).Percent(); got != tt.want {
			t.Errorf("%d of %d: %s, want %s", tt.right, tt.total, got, tt.want)
		}
	}
}
