package agent_test

import (
	"context"
	"github.com/analyst-cli/analyst/llm/llmtest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/numtrace"
)

// scriptedKernel is an agent.Executor that answers each cell with the next
// scripted execution (the last repeats) and keeps the code it was given:
// the loop tested without podman.
type scriptedKernel struct {
	mu    sync.Mutex
	execs []*kernel.Execution
	code  []string
}

func (s *scriptedKernel) Execute(_ context.Context, code string, _ kernel.ExecOptions) (*kernel.Execution, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ex := *s.execs[min(len(s.code), len(s.execs)-1)]
	ex.Code = code
	s.code = append(s.code, code)
	return &ex, nil
}

func stdout(text string) nbformat.Output {
	return nbformat.Output{OutputType: "stream", Name: "stdout", Text: text}
}

// A KeyError on a misspelt column goes back to the model with the closest
// real names; the repaired cell's output reaches the model; the answer is
// parsed; both wire formats. No kernel: the loop alone.
func TestAgentLoopWithScriptedKernel(t *testing.T) {
	both(t, func(t *testing.T, provider string) {
		k := &scriptedKernel{execs: []*kernel.Execution{
			{Status: kernel.StatusError, Error: &kernel.ExecError{Name: "KeyError", Value: "'Revenue'",
				Traceback: []string{"KeyError: 'Revenue'"}}},
			{Status: kernel.StatusOK, Outputs: []nbformat.Output{stdout("total revenue: 1234.5\n")}},
		}}
		f := newFakeModel(t, provider,
			turn{Calls: []call{code("print(df['Revenue'].sum())")}},
			turn{Calls: []call{code("print('total revenue:', df['revenue'].sum())")}},
			turn{Calls: []call{final(map[string]any{"total": "1234.5"}, "Revenue totals 1234.5.")}},
		)
		c := f.Client(t, false)
		info, err := c.Model(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		a := &agent.Agent{Client: c, Info: info, Kernel: k, System: "You are a test analyst.", Seed: 42,
			Columns: []string{"date", "region", "revenue", "units"}}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		ans, err := a.Ask(ctx, "question-1", "What is the total revenue?")
		if err != nil {
			t.Fatal(err)
		}
		if got := agent.FormatAnswers(ans.Values); !ans.Answered || got != "@total[1234.5]" {
			t.Fatalf("answer: answered=%v %q (stop %q)", ans.Answered, got, ans.Stop)
		}
		if len(k.code) != 2 || k.code[0] != "print(df['Revenue'].sum())" || !strings.Contains(k.code[1], "df['revenue']") {
			t.Fatalf("cells run: %q", k.code)
		}
		if len(ans.Steps) != 2 || !ans.Steps[0].Failed || ans.Steps[1].Failed {
			t.Fatalf("steps: %+v", ans.Steps)
		}
		// What the model was told after each cell.
		feedback := f.LastText(t, 1, "tool")
		if !strings.Contains(feedback, "KeyError") || !strings.Contains(feedback, `"Revenue" is not a column of df; the closest column names: "revenue"`) {
			t.Fatalf("feedback on the KeyError:\n%s", feedback)
		}
		if got := f.LastText(t, 2, "tool"); !strings.Contains(got, "total revenue: 1234.5") {
			t.Fatalf("feedback on the repaired cell:\n%s", got)
		}
		f.CheckProtocol(t)
	})
}

// traceHook is a Trace hook over the answer's cells: the numbers of values
// and narrative that no successful cell printed.
func traceHook(a *agent.Answer, values []agent.NamedValue, narrative string) []string {
	var src []numtrace.Source
	for _, s := range a.Steps {
		if !s.Failed {
			src = append(src, numtrace.Source{ID: "c", Texts: numtrace.OutputTexts(nbformat.CopyOutputs(s.Exec.Outputs))})
		}
	}
	nums := numtrace.Extract(agent.FormatAnswers(values)+"\n"+narrative, a.Question)
	return numtrace.NewRecord(numtrace.Find(nums, src)).UntracedTexts()
}

// An answer with a number no cell printed is sent back once, naming it; said
// again it is taken (not corrected), and an answer sent back stands when
// the turn bound ends before the model answers again. No kernel.
func TestAgentToldOnceOfUntracedNumbers(t *testing.T) {
	both(t, func(t *testing.T, provider string) {
		k := &scriptedKernel{execs: []*kernel.Execution{{Status: kernel.StatusOK, Outputs: []nbformat.Output{stdout("rows: 10\n")}}}}
		untraced := final(map[string]any{"rows": 10}, "10 rows, and 99 of something.")
		f := newFakeModel(t, provider, turn{Calls: []call{code("print('rows:', len(df))")}}, turn{Calls: []call{untraced}})
		c := f.Client(t, false)
		info, err := c.Model(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		a := &agent.Agent{Client: c, Info: info, Kernel: k, System: "test", Trace: traceHook}
		ans, err := a.Ask(context.Background(), "question-1", "How many rows in the top 5?")
		if err != nil || !ans.Answered {
			t.Fatalf("answered %v, %v (%s)", ans.Answered, err, ans.Stop)
		}
		if strings.Join(ans.TraceTold, ",") != "99" || ans.TraceCorrected || ans.Summary != "10 rows, and 99 of something." {
			t.Errorf("told %q corrected %v summary %q", ans.TraceTold, ans.TraceCorrected, ans.Summary)
		}
		reqs := f.Requests()
		if len(reqs) != 3 {
			t.Fatalf("%d model calls, want 3 (told once, then taken)", len(reqs))
		}
		note := f.LastText(t, 2, "tool")
		if !strings.HasPrefix(note, "not recorded: These numbers in your answer appear in no output of the code that ran, so nothing backs them: 99.") {
			t.Errorf("the model was told %q", note)
		}
		told := 0
		for _, m := range f.Messages(t, 2) {
			if strings.Contains(llmtest.ContentText(m["content"]), "These numbers in your answer") {
				told++
			}
		}
		if told != 1 {
			t.Errorf("told %d times", told)
		}

		// The bound ends after the model is told: its answer stands.
		k2 := &scriptedKernel{execs: []*kernel.Execution{{Status: kernel.StatusOK, Outputs: []nbformat.Output{stdout("rows: 10\n")}}}}
		f2 := newFakeModel(t, provider, turn{Calls: []call{code("print('rows:', len(df))")}}, turn{Calls: []call{untraced}},
			turn{Calls: []call{code("x = 1")}})
		c2 := f2.Client(t, false)
		a2 := &agent.Agent{Client: c2, Info: info, Kernel: k2, System: "test", Trace: traceHook, MaxTurns: 3}
		ans2, err := a2.Ask(context.Background(), "question-1", "How many rows?")
		if err != nil || !ans2.Answered || ans2.Summary != "10 rows, and 99 of something." || strings.Join(ans2.TraceTold, ",") != "99" {
			t.Errorf("at the bound: answered %v (%s), summary %q, told %q, err %v", ans2.Answered, ans2.Stop, ans2.Summary, ans2.TraceTold, err)
		}
	})
}
