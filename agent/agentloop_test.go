package agent_test

import (
	"context"
	"encoding/json"
	"github.com/analyst-cli/analyst/llm/llmtest"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/agent"
)

// both runs a test against each wire format.
func both(t *testing.T, test func(t *testing.T, provider string)) {
	for _, p := range []string{"ollama", "openai"} {
		t.Run(p, func(t *testing.T) { test(t, p) })
	}
}

func argsOf(v map[string]any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

const rejection = "I cannot accept this chart yet: the month labels overlap; I will redraw it"

const redraw = monthlyChart + "\nfig.autofmt_xdate()"

// A reflection reply that talks about accepting but does not (tools mode):
// it is not taken as acceptance; the model is asked once to give a verdict,
// with accept and revise offered as tools in reflection only, and may then
// revise: it redraws and answers again.
func TestAgentReflectionRejectionTools(t *testing.T) {
	both(t, func(t *testing.T, provider string) {
		k := agentKernel(t)
		f := newFakeModel(t, provider,
			turn{Calls: []call{code(monthlyChart)}},
			turn{Calls: []call{final(map[string]any{"peak_month": "2024-03"}, "March peaks.")}},
			turn{Text: rejection},
			turn{Calls: []call{{Name: "revise", Args: argsOf(map[string]any{"reason": "the month labels overlap"})}, code(redraw)}},
			turn{Calls: []call{final(map[string]any{"peak_month": "2024-03"}, "March peaks; labels rotated.")}},
			turn{Calls: []call{{Name: "accept", Args: argsOf(map[string]any{"reason": "readable now"})}}},
		)
		a := newAgent(t, f, k, false)
		ans := ask(t, a, "question-1", "Plot revenue by month; which month peaks?")
		if err := a.Reflect(context.Background(), "reflection-1", ans, 2); err != nil {
			t.Fatal(err)
		}
		if len(ans.Verdicts) != 2 || ans.Verdicts[0].Accepted || !ans.Verdicts[1].Accepted || !ans.Revised ||
			ans.Summary != "March peaks; labels rotated." || ans.Restatements != 1 {
			t.Fatalf("verdicts %+v revised %v summary %q restatements %d", ans.Verdicts, ans.Revised, ans.Summary, ans.Restatements)
		}
		if ans.Verdicts[1].Note != "readable now" {
			t.Errorf("accept reason %q", ans.Verdicts[1].Note)
		}
		if ans.Verdicts[0].Reason != "the month labels overlap" || ans.Verdicts[1].Reason != "" {
			t.Errorf("revise reasons %q, %q: want the model's reason on the revised verdict", ans.Verdicts[0].Reason, ans.Verdicts[1].Reason)
		}
		if len(ans.Steps) != 2 || ans.Steps[1].Phase != "reflection-1" || ans.Steps[1].Failed {
			t.Errorf("steps %+v", ans.Steps)
		}
		if got := strings.Join(f.ToolNames(t, 0), ","); got != "run_python,final_answer" {
			t.Errorf("question tools %s", got)
		}
		if got := strings.Join(f.ToolNames(t, 2), ","); got != "run_python,final_answer,accept,revise" {
			t.Errorf("reflection tools %s", got)
		}
		if u := f.LastText(t, 3, "user"); !strings.Contains(u, "did not state a verdict") || !strings.Contains(u, "accept(reason)") {
			t.Errorf("restate request: %s", u)
		}
		f.CheckProtocol(t)
	})
}

// Code-block mode: the verdict is a required first line. A reply without
// it is not acceptance; VERDICT: REVISE with code redraws; VERDICT: ACCEPT
// accepts.
func TestAgentReflectionVerdictCodeBlocks(t *testing.T) {
	both(t, func(t *testing.T, provider string) {
		k := agentKernel(t)
		f := newFakeModel(t, provider,
			turn{Text: "```python\n" + monthlyChart + "\n```"},
			turn{Text: "@peak_month[2024-03] March peaks."},
			turn{Text: rejection},
			turn{Text: "VERDICT: REVISE\nThe month labels overlap.\n```python\n" + redraw + "\n```"},
			turn{Text: "@peak_month[2024-03] March peaks; labels rotated."},
			turn{Text: "**VERDICT: ACCEPT**\nReadable now."},
		)
		f.Caps = `["completion"]`
		a := newAgent(t, f, k, false)
		a.Info.Capabilities.Tools = false
		ans := ask(t, a, "question-1", "Plot revenue by month; which month peaks?")
		if err := a.Reflect(context.Background(), "reflection-1", ans, 2); err != nil {
			t.Fatal(err)
		}
		if len(ans.Verdicts) != 2 || ans.Verdicts[0].Accepted || !ans.Verdicts[1].Accepted || !ans.Revised || ans.Restatements != 1 {
			t.Fatalf("verdicts %+v revised %v restatements %d", ans.Verdicts, ans.Revised, ans.Restatements)
		}
		if ans.Verdicts[0].Reason != "The month labels overlap." {
			t.Errorf("revise reason %q: want the text after VERDICT: REVISE, before the code", ans.Verdicts[0].Reason)
		}
		if r := f.LastText(t, 2, "user"); !strings.Contains(r, "VERDICT: ACCEPT") || !strings.Contains(r, "VERDICT: REVISE") {
			t.Errorf("reflection prompt: %s", r)
		}
		if u := f.LastText(t, 3, "user"); !strings.Contains(u, "did not state a verdict") {
			t.Errorf("restate request: %s", u)
		}
		if len(ans.Steps) != 2 || !ans.Steps[1].Fenced {
			t.Errorf("steps %+v", ans.Steps)
		}
		for i := range f.Requests() {
			if len(f.ToolNames(t, i)) > 0 {
				t.Errorf("request %d offers tools in code-block mode", i)
			}
		}
	})
}

// A reply that never states a verdict, even when asked: not accepted.
func TestAgentReflectionNoVerdict(t *testing.T) {
	k := agentKernel(t)
	f := newFakeModel(t, "openai",
		turn{Calls: []call{code(monthlyChart)}},
		turn{Calls: []call{final(map[string]any{"peak_month": "2024-03"}, "March.")}},
		turn{Text: "Looks fine to me, I accept it."},
	)
	a := newAgent(t, f, k, false)
	ans := ask(t, a, "question-1", "q")
	if err := a.Reflect(context.Background(), "reflection-1", ans, 1); err != nil {
		t.Fatal(err)
	}
	if len(ans.Verdicts) != 1 || ans.Verdicts[0].Accepted || !strings.Contains(ans.Verdicts[0].Note, "no clear verdict") || len(f.Requests()) != 4 {
		t.Fatalf("verdicts %+v after %d requests", ans.Verdicts, len(f.Requests()))
	}
}

// A tools-mode model that writes a fenced block instead of calling
// run_python gets it run (a cell, recorded as fenced) and is told to call
// the tool next time; its answer then rests on that cell.
func TestAgentFencedCodeInToolsMode(t *testing.T) {
	both(t, func(t *testing.T, provider string) {
		k := agentKernel(t)
		f := newFakeModel(t, provider,
			turn{Text: "Counting:\n```python\nprint('rows =', len(df))\n```"},
			turn{Calls: []call{final(map[string]any{"rows": 500}, "500 rows.")}},
		)
		a := newAgent(t, f, k, false)
		ans := ask(t, a, "question-1", "How many rows?")
		if !ans.Answered || ans.Unverified || len(ans.Steps) != 1 || !ans.Steps[0].Fenced || ans.Steps[0].Exec.Stdout() != "rows = 500\n" {
			t.Fatalf("answer %+v", ans)
		}
		u := f.LastText(t, 1, "user")
		if !strings.Contains(u, "Output of your code:") || !strings.Contains(u, "rows = 500") || !strings.Contains(u, "call run_python") {
			t.Errorf("feedback: %s", u)
		}
		f.CheckProtocol(t)
	})
}

// A server that refuses tool calling (HTTP 400) switches the agent to
// code-block mode for good, once, and the question is answered.
func TestAgentToolsRefused(t *testing.T) {
	both(t, func(t *testing.T, provider string) {
		k := agentKernel(t)
		f := newFakeModel(t, provider,
			turn{Text: "```python\nprint(len(df))\n```"},
			turn{Text: "@rows[500] There are 500 rows."},
			turn{Text: "```python\nprint(df['region'].nunique())\n```"},
			turn{Text: "@regions[4] Four regions."},
		)
		f.RefuseTools = true
		a := newAgent(t, f, k, false)
		var notices []string
		a.OnTurn = func(e agent.TurnEvent) {
			if e.Notice != "" {
				notices = append(notices, e.Notice)
			}
		}
		ans := ask(t, a, "question-1", "How many rows?")
		ans2 := ask(t, a, "question-2", "How many regions?")
		if !ans.Answered || ans.Values[0].Value != "500" || !ans2.Answered || a.Mode() != agent.ModeCodeBlocks || a.ToolsRefused == "" {
			t.Fatalf("answers %+v %+v mode %s", ans, ans2, a.Mode())
		}
		if f.Refused() != 1 || len(notices) != 1 || !strings.Contains(notices[0], "code-block mode") || !strings.Contains(notices[0], "The server said: HTTP 400: ") {
			t.Errorf("refused %d times; notices %q", f.Refused(), notices)
		}
		msgs := f.Messages(t, 0)
		if last := llmtest.ContentText(msgs[len(msgs)-1]["content"]); !strings.Contains(last, "Tool calling is not available") || !strings.Contains(last, "```python") {
			t.Errorf("switch message: %s", last)
		}
		for i := range f.Requests() {
			if len(f.ToolNames(t, i)) > 0 {
				t.Errorf("request %d offers tools after the refusal", i)
			}
		}
	})
}

// An answer with no code behind it is sent back once; given again, it is
// taken but marked unverified.
func TestAgentAnswerWithoutCode(t *testing.T) {
	both(t, func(t *testing.T, provider string) {
		k := agentKernel(t)
		f := newFakeModel(t, provider,
			turn{Calls: []call{final(map[string]any{"total": 99}, "A guess.")}},
			turn{Calls: []call{final(map[string]any{"total": 99}, "Still a guess.")}},
		)
		a := newAgent(t, f, k, false)
		ans := ask(t, a, "question-1", "Total revenue?")
		if !ans.Answered || !ans.Unverified || ans.Summary != "Still a guess." || len(f.Requests()) != 2 {
			t.Fatalf("answer %+v after %d requests", ans, len(f.Requests()))
		}
		if tool := f.LastText(t, 1, "tool"); !strings.Contains(tool, "not recorded") || !strings.Contains(tool, "No code has run") {
			t.Errorf("tool message: %s", tool)
		}
		f.CheckProtocol(t)
	})
}

// In code-block mode, @name[value] before any code is sent back; the model
// computes, then answers: verified.
func TestAgentAnswerBeforeCodeBlocks(t *testing.T) {
	k := agentKernel(t)
	f := newFakeModel(t, "ollama",
		turn{Text: "@regions[4] Four regions."},
		turn{Text: "```python\nprint(df['region'].nunique())\n```"},
		turn{Text: "The data has @regions[4] regions."},
	)
	f.Caps = `["completion"]`
	a := newAgent(t, f, k, false)
	ans := ask(t, a, "question-1", "How many regions?")
	if !ans.Answered || ans.Unverified || len(ans.Steps) != 1 {
		t.Fatalf("answer %+v", ans)
	}
	if u := f.LastText(t, 1, "user"); !strings.Contains(u, "No code has run") {
		t.Errorf("push back: %s", u)
	}
	// The value stays in its sentence (bold in markdown).
	if ans.Summary != "The data has 4 regions." || ans.SummaryMarkdown() != "The data has **4** regions." {
		t.Errorf("summary %q / %q", ans.Summary, ans.SummaryMarkdown())
	}
}

// A reply cut off by the token limit is never read: not its half answer,
// not its calls. The model is asked to restate briefly; it is recorded.
func TestAgentTruncatedReply(t *testing.T) {
	both(t, func(t *testing.T, provider string) {
		k := agentKernel(t)
		f := newFakeModel(t, provider,
			turn{Calls: []call{code("print(df['revenue'].max())")}},
			turn{Text: "The peak is @peak_month[2024-07] with @peak_revenue[152", Finish: "length"},
			turn{Calls: []call{final(map[string]any{"peak_month": "2024-03", "peak_revenue": 1234.5}, "Short.")}},
		)
		a := newAgent(t, f, k, false)
		ans := ask(t, a, "question-1", "Peak month?")
		if !ans.Answered || agent.FormatAnswers(ans.Values) != "@peak_month[2024-03] @peak_revenue[1234.5]" ||
			ans.Truncations != 1 || !ans.Calls[1].Truncated || ans.Calls[1].FinishReason != "length" {
			t.Fatalf("answer %+v calls %+v", ans, ans.Calls)
		}
		if u := f.LastText(t, 2, "user"); !strings.Contains(u, "cut off by the token limit") {
			t.Errorf("restate request: %s", u)
		}
		f.CheckProtocol(t)
	})
}

// Replies cut off again and again end the question, with the reason.
func TestAgentTruncatedBound(t *testing.T) {
	k := agentKernel(t)
	f := newFakeModel(t, "ollama", turn{Calls: []call{code("print(1)")}, Finish: "length"})
	a := newAgent(t, f, k, false)
	ans := ask(t, a, "question-1", "q")
	if ans.Answered || !strings.Contains(ans.Stop, "cut off by the completion limit of 4096 tokens (--max-reply-tokens)") || len(f.Requests()) != agent.MaxTruncations+1 || len(ans.Steps) != 0 {
		t.Fatalf("answer %+v after %d requests", ans, len(f.Requests()))
	}
	f.CheckProtocol(t)
}

// A long conversation with a small context window (Ollama): num_ctx is
// sent, each request fits the window, keeps the system prompt and the
// question whole, and chart images go only once.
func TestAgentContextWindow(t *testing.T) {
	k := agentKernel(t)
	turns := []turn{{Calls: []call{code(monthlyChart)}}}
	for i := 0; i < 12; i++ {
		turns = append(turns, turn{Calls: []call{code("print('x' * 3000)")}})
	}
	turns = append(turns, turn{Calls: []call{final(map[string]any{"peak_month": "2024-03"}, "March.")}})
	f := newFakeModel(t, "ollama", turns...)
	f.Caps = `["completion","tools","vision"]`
	a := newAgent(t, f, k, true)
	a.MaxTurns = 20
	a.System = "You are a test analyst. " + strings.Repeat("Rules. ", 100)
	const window = 4096
	a.Info.ContextLength = window
	ans := ask(t, a, "question-1", "Plot revenue by month; which month peaks?")
	if !ans.Answered {
		t.Fatalf("answer %+v", ans)
	}
	condensed := false
	for i, req := range f.Requests() {
		if n := req["options"].(map[string]any)["num_ctx"]; n != float64(window) {
			t.Errorf("request %d: num_ctx %v", i, n)
		}
		msgs := f.Messages(t, i)
		if msgs[0]["content"] != a.System || msgs[1]["content"] != "Question: Plot revenue by month; which month peaks?" {
			t.Errorf("request %d: system prompt or question changed: %.80v / %.80v", i, msgs[0]["content"], msgs[1]["content"])
		}
		chars, images := 0, 0
		for _, m := range msgs {
			chars += len(llmtest.ContentText(m["content"]))
			for _, tc := range llmtest.AsList(m["tool_calls"]) {
				b, _ := json.Marshal(tc)
				chars += len(b)
			}
			images += len(llmtest.AsList(m["images"]))
			condensed = condensed || strings.Contains(llmtest.ContentText(m["content"]), "left out to fit the context window")
		}
		if chars/4 > window {
			t.Errorf("request %d: %d characters, about %d tokens, over the window %d", i, chars, chars/4, window)
		}
		if want := map[bool]int{true: 1, false: 0}[i == 1]; images != want {
			t.Errorf("request %d carries %d images, want %d", i, images, want)
		}
	}
	if !condensed {
		t.Error("no request was condensed")
	}
	if last := ans.Calls[len(ans.Calls)-1]; last.ContextWindow != window || last.Condensed == 0 {
		t.Errorf("last call %+v", last)
	}
	f.CheckProtocol(t)
}
