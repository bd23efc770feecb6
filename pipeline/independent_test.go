package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/llm/llmtest"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/pipeline"
)

// The independent questions' code: the first wrecks its session (a column
// dropped in place, a global, the random state); the second says what it
// finds and writes a file to keep; the third draws a chart. Each prints a
// draw of numpy's global generator.
const (
	wreckQ = "Drop the revenue column, in place."
	checkQ = "Is the revenue column there?"
	chartQ = "Chart the units."

	wreckCode = "df.drop(columns=['revenue'], inplace=True)\nleaked = 1\nnp.random.seed(0)\nprint('wrecked', df.shape)"
	checkCode = "print('revenue' in df, 'leaked' in globals(), np.random.randint(0, 10**9))\n" +
		"open('/output/question-2/kept.csv', 'w').write('a\\n1\\n')"
	chartCode = "fig, ax = plt.subplots()\ndf['units'].plot.hist(ax=ax)\nax.set(title='Units', xlabel='Units', ylabel='Rows')\n" +
		"print(np.random.randint(0, 10**9))"
)

// independentModel scripts the three conversations, whatever order their
// requests come in; the first request of each waits until all three have
// come (at most a minute), so that the run passes only if it asks them at
// once. It returns how many had come when the first one went on.
func independentModel(t *testing.T) (*fakeModel, func() int) {
	f := newFakeModel(t, "ollama")
	conv := func(code string, answers map[string]any) []turn {
		return []turn{{Calls: []call{llmtest.Code(code)}}, {Calls: []call{final(answers, "Done.")}},
			{Calls: []call{{Name: "accept", Args: `{"reason": "labelled"}`}}}}
	}
	f.Conversations = map[string][]turn{
		wreckQ: conv(wreckCode, map[string]any{"state": "wrecked"}),
		checkQ: conv(checkCode, map[string]any{"revenue_present": "True"}),
		chartQ: conv(chartCode, map[string]any{"chart": "drawn"}),
	}
	var mu sync.Mutex
	arrived, together := 0, -1
	all := make(chan struct{})
	f.Wait = func(*http.Request) {
		mu.Lock()
		arrived++
		first := arrived <= 3
		if arrived == 3 {
			close(all)
		}
		mu.Unlock()
		if !first {
			return
		}
		select {
		case <-all:
		case <-time.After(time.Minute):
		}
		mu.Lock()
		if together < 0 {
			together = arrived
		}
		mu.Unlock()
	}
	return f, func() int { mu.Lock(); defer mu.Unlock(); return together }
}

// Three independent questions are asked at once, each in its own forked
// session and conversation: none sees what another's code did; their
// sections are in the notebook in order, each beginning at its fork point,
// and the notebook re-runs top to bottom in Jupyter to the same outputs;
// run.json records each conversation's replies as its stream.
func TestIndependentQuestionsReexecuteInJupyter(t *testing.T) {
	dir := t.TempDir()
	data := salesCSV(t, dir, 300)
	f, together := independentModel(t)
	res := reexecuteWith(t, dir, data, nil, true, func(o *pipeline.Options) {
		o.Questions = []string{wreckQ, checkQ, chartQ}
		o.Independent, o.NoExplore = true, true
		recorded(o, f.Client(t, false))
		o.ModelSpec = "ollama:" + llmtest.OllamaModel
	})
	if n := together(); n != 3 {
		t.Errorf("%d of the 3 conversations had asked when the first went on, want all 3 at once", n)
	}
	for i, a := range res.Answers {
		if !a.Answered {
			t.Errorf("question %d: not answered: %s", i+1, a.Stop)
		}
	}
	nb := res.Notebook
	checkSections(t, nb)
	if out := cellOutput(nb, checkCode); !strings.HasPrefix(out, "True False ") {
		t.Errorf("question 2 saw %q, want the revenue column and no global of question 1 (True False ...)", out)
	}
	if cellOutput(nb, checkCode) == cellOutput(nb, "print(np.random.randint(0, 10**9))") {
		t.Errorf("questions 2 and 3 drew the same numbers: their sessions are seeded alike")
	}
	kept := filepath.Join(strings.TrimSuffix(res.Files.Manifest, ".run.json")+"_files", agent.StageQuestion(2), "kept.csv")
	if b, err := os.ReadFile(kept); err != nil || string(b) != "a\n1\n" {
		t.Errorf("question 2's file: %q, %v", b, err)
	}

	manifest, _ := withoutOccasion(t, res.Files.Manifest)
	if manifest["independent"] != true {
		t.Errorf("run.json independent: %v", manifest["independent"])
	}
	streams := map[string]int{}
	for _, r := range manifest["replies"].(map[string]any)["replies"].([]any) {
		s, _ := r.(map[string]any)["stream"].(string)
		streams[s]++
	}
	// Two replies each (code, answer); the chart's question a third (its
	// reflection).
	if want := map[string]int{"question-1": 2, "question-2": 2, "question-3": 3}; fmt.Sprint(streams) != fmt.Sprint(want) {
		t.Errorf("run.json replies by stream %v, want %v", streams, want)
	}

	// analyst verify (top to bottom in its kernel) and replay, from the
	// CLI: cmd/testdata/script/run_independent.txtar.
}

// checkSections checks that the questions' sections come in order after
// the fork points' definition, each beginning with its fork point.
func checkSections(t *testing.T, nb *nbformat.Notebook) {
	t.Helper()
	var order []string
	forkPoints := map[string]string{}
	for _, c := range nb.Cells {
		stage, _ := c.Stage()
		if len(order) == 0 || order[len(order)-1] != stage {
			order = append(order, stage)
		}
		if c.HasTag(eda.TagForkPoint) {
			forkPoints[stage] = c.Source
		}
	}
	got := strings.Join(order, " ")
	if !strings.Contains(got, eda.StageIndependent+" question-1 reflection-1 question-2 reflection-2 question-3 reflection-3") {
		t.Errorf("the notebook's stages: %s", got)
	}
	for n := 1; n <= 3; n++ {
		q := agent.StageQuestion(n)
		if want := eda.ForkPointCode(kernel.ForkSeed(q), kernel.OutputMount+"/"+q); forkPoints[q] != want {
			t.Errorf("%s begins at %q, want %q", q, forkPoints[q], want)
		}
	}
}

// cellOutput is the text output of the first code cell whose source ends
// with code.
func cellOutput(nb *nbformat.Notebook, code string) string {
	for _, c := range nb.Cells {
		if c.CellType == nbformat.Code && strings.HasSuffix(c.Source, code) {
			var b strings.Builder
			for _, o := range c.Outputs {
				b.WriteString(o.Text)
			}
			return strings.TrimSpace(b.String())
		}
	}
	return ""
}

// A question whose model request fails (HTTP 400) while the others run
// stops them, and the run fails as the model's error, not as an
// interruption: the error, run.json's failure and the report's run end name
// the model's refusal (issue 32, item 10: it was "interrupted (Ctrl-C or
// SIGTERM)", exit 130).
func TestIndependentQuestionFailureIsTheRunsError(t *testing.T) {
	dir := t.TempDir()
	data := salesCSV(t, dir, 50)
	f := newFakeModel(t, "ollama")
	slow := []turn{{Calls: []call{llmtest.Code("import time\ntime.sleep(120)")}}}
	f.Conversations = map[string][]turn{
		"First slow question.":  slow,
		"Second slow question.": slow,
		"The refused question.": {{Status: http.StatusBadRequest}},
	}
	opts := options(t, data, filepath.Join(dir, "out"))
	opts.Questions = []string{"First slow question.", "Second slow question.", "The refused question."}
	opts.Independent, opts.NoExplore = true, true
	opts.Model = f.Client(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := pipeline.Run(ctx, opts)
	var me *pipeline.ModelError
	if !errors.As(err, &me) || errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "400") {
		t.Fatalf("the run's error: %T %v, want the model's HTTP 400 as a *pipeline.ModelError", err, err)
	}
	if res == nil || !strings.Contains(res.Failure, "400") || strings.Contains(res.Failure, "interrupted") {
		t.Fatalf("the run's failure: %+v", res)
	}
	manifest, _ := withoutOccasion(t, res.Files.Manifest)
	if got, _ := manifest["failure"].(string); got != res.Failure {
		t.Errorf("run.json failure %q, want %q", got, res.Failure)
	}
}
