package agent_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/llm/llmtest"
	"github.com/analyst-cli/analyst/nbformat"
)

// completionLimit is the limit chat request i carried.
func completionLimit(f *fakeModel, i int) any {
	req := f.Requests()[i]
	if f.Provider == "ollama" {
		return req["options"].(map[string]any)["num_predict"]
	}
	return req["max_tokens"]
}

// A server that streams a reply without end: the client cuts it at its
// bound; the agent asks once to restate, and when the next reply runs on
// too, gives up with the client's error, which names the limit. Every
// request carried the limit. Both wire formats, no kernel.
func TestAgentEndlessReply(t *testing.T) {
	both(t, func(t *testing.T, provider string) {
		k := &scriptedKernel{execs: []*kernel.Execution{{Status: kernel.StatusOK}}}
		f := newFakeModel(t, provider, turn{Endless: true})
		a, ctx := scriptedAgent(t, f, k, "You are a test analyst.")
		ans, err := a.Ask(ctx, "question-1", "What is the total revenue?")
		if !errors.Is(err, llm.ErrReplyTooLong) {
			t.Fatalf("err = %v, want ErrReplyTooLong", err)
		}
		for _, want := range []string{"completion limit of 4096 tokens", "connection was closed", "Options.MaxReplyTokens"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
		if ans.Answered || !strings.Contains(ans.Stop, "2 replies in a row ran on past the completion limit of 4096 tokens (--max-reply-tokens)") {
			t.Errorf("stop %q", ans.Stop)
		}
		if len(ans.Calls) != 2 || !ans.Calls[0].Overrun || !ans.Calls[1].Truncated || ans.Truncations != 2 || len(k.code) != 0 {
			t.Errorf("calls %+v, %d truncations, cells %q", ans.Calls, ans.Truncations, k.code)
		}
		if n := len(f.Requests()); n != 2 {
			t.Fatalf("%d requests, want 2: the reply, and one request to restate", n)
		}
		for i := range 2 {
			if got := completionLimit(f, i); got != 4096.0 {
				t.Errorf("request %d: completion limit %v, want 4096", i, got)
			}
		}
		// The cut reply is kept short in the conversation, then the
		// request to restate.
		msgs := f.Messages(t, 1)
		cut := llmtest.ContentText(msgs[len(msgs)-2]["content"])
		if msgs[len(msgs)-2]["role"] != "assistant" || !strings.HasPrefix(cut, llmtest.EndlessText) || len(cut) > 2100 || !strings.Contains(cut, "more characters]") {
			t.Errorf("the cut reply as sent back (%d bytes): %.100q", len(cut), cut)
		}
		if u := f.LastText(t, 1, "user"); !strings.Contains(u, "cut off by the token limit") || !strings.Contains(u, "Restate it briefly") {
			t.Errorf("restate request: %s", u)
		}
		// Both connections were closed: the server's handlers ended.
		deadline := time.Now().Add(10 * time.Second)
		for len(f.Endless()) < 2 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if got := f.Endless(); len(got) != 2 {
			t.Errorf("endless replies ended (client hung up): %v, want 2", got)
		}
		f.CheckProtocol(t)
	})
}

// One endless reply, then a model that answers: the request to restate
// is the one chance it gets, and it takes it.
func TestAgentEndlessReplyOnce(t *testing.T) {
	both(t, func(t *testing.T, provider string) {
		k := &scriptedKernel{execs: []*kernel.Execution{{Status: kernel.StatusOK, Outputs: []nbformat.Output{stdout("total 1234.5\n")}}}}
		f := newFakeModel(t, provider,
			turn{Endless: true},
			turn{Calls: []call{code("print('total', df['revenue'].sum())")}},
			turn{Calls: []call{final(map[string]any{"total": 1234.5}, "Revenue totals 1234.5.")}},
		)
		a, ctx := scriptedAgent(t, f, k, "You are a test analyst.")
		ans, err := a.Ask(ctx, "question-1", "What is the total revenue?")
		if err != nil || !ans.Answered || agent.FormatAnswers(ans.Values) != "@total[1234.5]" || ans.Truncations != 1 || !ans.Calls[0].Overrun {
			t.Fatalf("answer %+v, err %v", ans, err)
		}
		f.CheckProtocol(t)
	})
}

// Where the model's window is known, the reply is bounded by what the
// window asked for leaves after the prompt: within the model's context.
func TestAgentReplyWithinWindow(t *testing.T) {
	k := &scriptedKernel{execs: []*kernel.Execution{{Status: kernel.StatusOK}}}
	f := newFakeModel(t, "ollama", turn{Text: "@rows[5] Five rows."})
	a, ctx := scriptedAgent(t, f, k, "You are a test analyst. "+strings.Repeat("Rules. ", 1200))
	a.Info.ContextLength = 4096
	if _, err := a.Ask(ctx, "question-1", "How many rows?"); err != nil {
		t.Fatal(err)
	}
	opts := f.Requests()[0]["options"].(map[string]any)
	window, limit := opts["num_ctx"].(float64), opts["num_predict"].(float64)
	prompt := 0
	for _, m := range f.Messages(t, 0) {
		prompt += len(llmtest.ContentText(m["content"])) / 4
	}
	if window != 4096 || limit >= 4096 || limit+float64(prompt) > window || limit < 1024 {
		t.Errorf("num_ctx %v, num_predict %v for a prompt of about %d tokens: want the reply within the window, at least a quarter of it", window, limit, prompt)
	}
}

// Asked for goals, a model whose replies never end is given up on after
// the request to restate, with the client's error.
func TestProposeGoalsEndlessReply(t *testing.T) {
	both(t, func(t *testing.T, provider string) {
		f := newFakeModel(t, provider, turn{Endless: true})
		a, ctx := scriptedAgent(t, f, &scriptedKernel{}, "You are a test analyst.")
		p := &eda.Profile{ColumnInfo: []eda.Column{{Name: "region", Kind: eda.KindCategorical}, {Name: "revenue", Kind: eda.KindNumeric}}}
		set, err := a.ProposeGoals(ctx, "goals", agent.GoalRequest{DataName: "sales.csv", Profile: p, N: 1})
		if !errors.Is(err, llm.ErrReplyTooLong) || len(set.Goals) != 0 || len(set.Calls) != 2 || !set.Calls[1].Overrun || len(f.Requests()) != 2 {
			t.Fatalf("goals %+v, err %v, %d requests", set, err, len(f.Requests()))
		}
	})
}
