package agent_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/nbformat"
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
		c := f.client(t, false)
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
		feedback := f.lastText(t, 1, "tool")
		if !strings.Contains(feedback, "KeyError") || !strings.Contains(feedback, `"Revenue" is not a column of df; the closest column names: "revenue"`) {
			t.Fatalf("feedback on the KeyError:\n%s", feedback)
		}
		if got := f.lastText(t, 2, "tool"); !strings.Contains(got, "total revenue: 1234.5") {
			t.Fatalf("feedback on the repaired cell:\n%s", got)
		}
		f.checkProtocol(t)
	})
}
