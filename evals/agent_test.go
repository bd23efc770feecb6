package evals_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/evals"
	"github.com/analyst-cli/analyst/evals/dabench"
	"github.com/analyst-cli/analyst/evals/evaltest"
	"github.com/analyst-cli/analyst/internal/dabenchdir"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/report"
)

// A slice of DABench over small tables: the first four answered right, the
// others with their first sub-answer wrong.
var (
	sliceRight = []string{"18", "71", "109"}
	sliceWrong = []string{"19", "75", "117"}
)

// scriptedDABench loads DABench and a scripted model that answers the
// slice: right ones with the labels, wrong ones with the first label
// replaced.
func scriptedDABench(t *testing.T) (*evals.Suite, *evaltest.Model) {
	t.Helper()
	dir, s := realDABench(t)
	qs, err := dabench.LoadQuestions(filepath.Join(dir, evals.DABenchQuestions))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]evals.Case{}
	for _, c := range s.Cases {
		byID[c.ID] = c
	}
	questions := map[string]map[string]string{}
	for i, id := range append(append([]string{}, sliceRight...), sliceWrong...) {
		c := byID[id]
		vals := map[string]string{}
		for j, e := range c.Expect {
			vals[e.Name] = e.Value
			if i >= len(sliceRight) && j == 0 {
				vals[e.Name] = "999999"
			}
		}
		for _, q := range qs {
			if fmt.Sprint(q.ID) == id {
				questions[`\Question{`+q.Question+`}`] = vals
			}
		}
	}
	m := evaltest.New(questions)
	t.Cleanup(m.Close)
	return s, m
}

// agentSolver is the agent solver against the scripted model m, with the
// test kernel's options.
func agentSolver(t *testing.T, m *evaltest.Model) *evals.AgentSolver {
	t.Helper()
	client, err := llm.New("ollama:scripted:1b", llm.Options{OllamaHost: m.URL, RetryBaseDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	solver, err := evals.NewAgentSolver(context.Background(), client, "ollama:scripted:1b")
	if err != nil {
		t.Fatal(err)
	}
	solver.Kernel = kerneltest.Options(t)
	return solver
}

func TestAgentOnDABenchSliceGivesTheExpectedScores(t *testing.T) {
	s, model := scriptedDABench(t)
	ctx := context.Background()
	solver := agentSolver(t, model)
	out := t.TempDir()
	sum, err := evals.Run(ctx, evals.Options{Suite: s, Solvers: []evals.Solver{solver}, Out: out, Jobs: 2,
		Timeout: 2 * time.Minute, Filter: append(append([]string{}, sliceRight...), sliceWrong...), ImageID: "test", Seed: 42,
		KaTeXDir: report.KaTeXDirIn(solver.Kernel.RootFS)})
	if err != nil {
		t.Fatal(err)
	}
	m := sum.Models[0]
	// 12 sub-answers (2, 2, 3 right; 1, 2, 2 wrong); each wrong question
	// misses one: PSAQ = (1+1+1+0+1/2+1/2)/6.
	want := dabench.Metrics{ABQ: 0.5, PSAQ: 0.6667, UASQ: 0.75}
	if m.Cases != 6 || m.Official != want || m.Strict != want || m.Digest != evaltest.Digest {
		t.Errorf("summary %+v, want 6 cases, %+v, digest %s", m, want, evaltest.Digest)
	}
	results, err := evals.ReadResults(filepath.Join(out, evals.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		t.Logf("case %s: %s, wall %.0f ms, kernel %.0f ms, model %.0f ms", r.Case, r.Status, r.WallMS, r.KernelMS, r.ModelMS)
		if r.PromptTokens == 0 || r.KernelMS == 0 || r.ModelDigest != evaltest.Digest || r.SuiteHash != s.Hash {
			t.Errorf("case %s: tokens %d, kernel %v ms, digest %q, suite %q", r.Case, r.PromptTokens, r.KernelMS, r.ModelDigest, r.SuiteHash)
		}
		if r.Status == evals.StatusFail && r.Class != evals.ClassWrongValue {
			t.Errorf("case %s: class %q, want %q", r.Case, r.Class, evals.ClassWrongValue)
		}
	}
	checkCaseFiles(t, out, results)

	// The responses file, rescored as the official scorer does, agrees.
	dir := dabenchdir.Require(t)
	qs, _ := dabench.LoadQuestions(filepath.Join(dir, evals.DABenchQuestions))
	ls, _ := dabench.LoadLabels(filepath.Join(dir, evals.DABenchLabels))
	rs, err := dabench.LoadResponses(filepath.Join(out, m.Responses))
	if err != nil {
		t.Fatal(err)
	}
	official, err := dabench.Score(qs, ls, rs)
	if err != nil {
		t.Fatal(err)
	}
	if official.Official != want || official.Answered != 6 {
		t.Errorf("rescored: %+v, %d answered", official.Official, official.Answered)
	}

	// What the model was sent: DABench's question, constraints and format,
	// and the output of its cell run on the case's own table in the kernel.
	var sawConstraints, sawRows bool
	rows := csvRows(t, filepath.Join(dir, "tables", "unemployement_industry.csv"))
	for _, c := range model.Chats() {
		for _, msg := range c.Messages {
			if msg.Role == "user" && strings.Contains(msg.Content, `\Constraints{`) && strings.Contains(msg.Content, `\Format{@`) {
				sawConstraints = true
			}
			if msg.Role == "tool" && strings.Contains(msg.Content, fmt.Sprintf("ROWS %d", rows)) {
				sawRows = true
			}
		}
		if c.Messages[0].Role != "system" || !strings.Contains(c.Messages[0].Content, "/data/") {
			t.Errorf("no system prompt naming the data: %q", c.Messages[0].Content)
		}
	}
	if !sawConstraints || !sawRows {
		t.Errorf("constraints and format sent: %v; the kernel's row count of unemployement_industry.csv (%d) sent back: %v", sawConstraints, rows, sawRows)
	}
}

// checkCaseFiles checks each result's notebook and report: the kernel's
// setup, load and profile cells, the model's cell with its output, and the
// answer the model gave; and that report.html links to both.
func checkCaseFiles(t *testing.T, out string, results []evals.Result) {
	t.Helper()
	for _, r := range results {
		if r.Notebook != fmt.Sprintf("cases/ollama_scripted_1b/%s.ipynb", r.Case) || r.Report != fmt.Sprintf("cases/ollama_scripted_1b/%s.html", r.Case) {
			t.Errorf("case %s: files %q and %q", r.Case, r.Notebook, r.Report)
			continue
		}
		nb, err := nbformat.ReadFile(filepath.Join(out, r.Notebook))
		if err != nil {
			t.Fatal(err)
		}
		stages := map[string]bool{}
		var model, answer bool
		for _, c := range nb.Cells {
			for _, tag := range c.Metadata.Tags {
				stages[tag] = true
			}
			if c.HasTag("model") && c.Source == `print("ROWS", len(df))` && len(c.Outputs) == 1 && strings.HasPrefix(c.Outputs[0].Text, "ROWS ") {
				model = true
			}
			if c.HasTag("answer") && strings.Contains(c.Source, "`@"+r.Answers[0].Name+"["+r.Answers[0].Got+"]`") {
				answer = true
			}
		}
		if !stages["stage:setup"] || !stages["stage:load"] || !stages["stage:profile"] || !model || !answer {
			t.Errorf("case %s: notebook tags %v; the model's cell with its output: %v; the answer %s=%s: %v", r.Case, stages, model, r.Answers[0].Name, r.Answers[0].Got, answer)
		}
		page, err := os.ReadFile(filepath.Join(out, r.Report))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(page, []byte("Scored: "+r.Status)) || !bytes.Contains(page, []byte("ROWS ")) {
			t.Errorf("case %s: the report shows no score %q or no output of the model's cell", r.Case, r.Status)
		}
		// Formulas are typeset as the page is written: no KaTeX script in reports.
		if bytes.Contains(page, []byte("renderMathInElement")) {
			t.Errorf("case %s: the report inlines KaTeX (%d bytes) with no formula to show", r.Case, len(page))
		}
	}
	if n := linksResolve(t, out); n != 2*len(results) {
		t.Errorf("report.html has %d links, want a notebook and a report for each of %d cases", n, len(results))
	}
}

func csvRows(t *testing.T, path string) int {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return len(recs) - 1
}
