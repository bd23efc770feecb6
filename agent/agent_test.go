package agent_test

import (
	"context"
	"errors"
	"github.com/analyst-cli/analyst/llm/llmtest"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/llm"
)

// agentKernel starts a real kernel with the sales data loaded as df.
func agentKernel(t testing.TB) *kernel.Kernel {
	t.Helper()
	data := salesCSV(t, t.TempDir(), 500)
	k := kerneltest.Start(t, func(o *kernel.Options) { o.Data = data })
	ex, err := k.Execute(context.Background(), "import pandas as pd, numpy as np, matplotlib.pyplot as plt\n"+
		"df = pd.read_csv('/data/sales.csv', parse_dates=['date'])", kernel.ExecOptions{})
	if err != nil || ex.Status != kernel.StatusOK {
		t.Fatalf("loading df: %v %+v", err, ex)
	}
	return k
}

func newAgent(t testing.TB, f *fakeModel, k *kernel.Kernel, vision bool) *agent.Agent {
	t.Helper()
	c := f.Client(t, vision)
	info, err := c.Model(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return &agent.Agent{Client: c, Info: info, Kernel: k, System: "You are a test analyst.", Seed: 42}
}

func ask(t *testing.T, a *agent.Agent, phase, q string) *agent.Answer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ans, err := a.Ask(ctx, phase, q)
	if err != nil {
		t.Fatalf("Ask: %v", err)
	}
	return ans
}

const monthlyChart = `m = df.groupby(df['date'].dt.to_period('M'))['revenue'].sum()
print("monthly revenue = sum(revenue) per calendar month")
fig, ax = plt.subplots()
m.plot.bar(ax=ax)
ax.set(title='Revenue by month', xlabel='Month', ylabel='Revenue')
print(m.idxmax())`

// A correct answer with a chart (OpenAI, vision): the assistant message
// with its tool call is kept, one tool message answers it, the chart goes
// back as an image in a follow-up user message, the tools and sampling are
// sent, and reflection sees the chart as an image and accepts.
func TestAgentAnswerWithChartOpenAI(t *testing.T) {
	k := agentKernel(t)
	f := newFakeModel(t, "openai",
		turn{Calls: []call{code(monthlyChart)}},
		turn{Calls: []call{final(map[string]any{"peak_month": "2024-03", "peak_revenue": 1234.5}, "March 2024 had the most revenue.")}},
		turn{Calls: []call{{Name: "accept", Args: `{"reason": "the chart is titled, labelled and shows the peak"}`}}},
	)
	a := newAgent(t, f, k, true)
	ans := ask(t, a, "question-1", "Plot revenue by month; which month peaks?")
	if !ans.Answered || agent.FormatAnswers(ans.Values) != "@peak_month[2024-03] @peak_revenue[1234.5]" {
		t.Fatalf("answer %+v", ans)
	}
	if len(ans.Steps) != 1 || ans.Steps[0].Failed || len(ans.Steps[0].Exec.Charts()) != 1 {
		t.Fatalf("steps %+v", ans.Steps)
	}
	if got := f.ToolNames(t, 0); strings.Join(got, ",") != "run_python,final_answer" {
		t.Errorf("tools %v", got)
	}
	msgs := f.Messages(t, 1)
	roles := []string{}
	for _, m := range msgs {
		roles = append(roles, m["role"].(string))
	}
	if strings.Join(roles, ",") != "system,user,assistant,tool,user" {
		t.Fatalf("message order %v", roles)
	}
	tool := msgs[3]["content"].(string)
	for _, want := range []string{"status: ok", "monthly revenue = sum(revenue)", `chart 1: bar "Revenue by month"`} {
		if !strings.Contains(tool, want) {
			t.Errorf("tool message lacks %q:\n%s", want, tool)
		}
	}
	parts := msgs[4]["content"].([]any)
	if len(parts) != 2 || parts[1].(map[string]any)["type"] != "image_url" ||
		!strings.HasPrefix(parts[1].(map[string]any)["image_url"].(map[string]any)["url"].(string), "data:image/png;base64,") {
		t.Errorf("chart user message %v", parts)
	}
	if err := a.Reflect(context.Background(), "reflection-1", ans, 1); err != nil {
		t.Fatal(err)
	}
	if len(ans.Verdicts) != 1 || !ans.Verdicts[0].Accepted || ans.Revised {
		t.Errorf("verdicts %+v", ans.Verdicts)
	}
	last := f.Messages(t, 2)
	rq := last[len(last)-1]
	if rq["role"] != "user" || !strings.Contains(llmtest.ContentText(rq["content"]), "Your answer: @peak_month[2024-03]") {
		t.Errorf("reflection message %v", rq)
	}
	if n := len(rq["content"].([]any)); n != 2 {
		t.Errorf("reflection message has %d parts, want text + image", n)
	}
	f.CheckProtocol(t)
	if len(ans.Calls) != 3 || ans.Calls[0].PromptTokens != 100 || ans.Calls[0].CompletionTokens != 20 {
		t.Errorf("calls %+v", ans.Calls)
	}
}

// A first attempt that raises, then a repair (Ollama): the traceback goes
// back trimmed to the error; the failed step is kept.
func TestAgentRepairOllama(t *testing.T) {
	k := agentKernel(t)
	f := newFakeModel(t, "ollama",
		turn{Calls: []call{code("df['revenu'].sum()")}},
		turn{Calls: []call{code("print('total = sum(revenue)'); print(round(df['revenue'].sum(), 2))")}},
		turn{Calls: []call{final(map[string]any{"total": 1.5}, "Summed.")}},
	)
	a := newAgent(t, f, k, false)
	a.Columns = []string{"date", "region", "product", "units", "revenue"}
	ans := ask(t, a, "question-1", "Total revenue?")
	if !ans.Answered || ans.Repairs != 1 || len(ans.Steps) != 2 || !ans.Steps[0].Failed || ans.Steps[1].Failed {
		t.Fatalf("answer %+v", ans)
	}
	tool := f.LastText(t, 1, "tool")
	if !strings.Contains(tool, "error: KeyError: 'revenu'") || !strings.Contains(tool, "traceback (end):") || strings.Contains(tool, "\x1b[") ||
		!strings.Contains(tool, `"revenu" is not a column of df; the closest column names: "revenue", `) {
		t.Errorf("tool message:\n%s", tool)
	}
	if len(tool) > 6000 {
		t.Errorf("feedback is %d chars", len(tool))
	}
	if got := f.Requests()[0]["options"].(map[string]any); got["temperature"] != 0.0 || got["seed"] != 42.0 {
		t.Errorf("options %v", got)
	}
	f.CheckProtocol(t)
}

// Malformed arguments get a message the model can act on, in the one tool
// message for that call id.
func TestAgentMalformedArguments(t *testing.T) {
	k := agentKernel(t)
	f := newFakeModel(t, "openai",
		turn{Calls: []call{{Name: "run_python", Args: `{"code": "print(1)`}, {Name: "final_answer", Args: `{"answers": "nothing"}`}}},
		turn{Calls: []call{code("print(len(df))")}},
		turn{Calls: []call{final(map[string]any{"rows": 500}, "500 rows.")}},
	)
	a := newAgent(t, f, k, false)
	ans := ask(t, a, "question-1", "How many rows?")
	if !ans.Answered || ans.Values[0].Value != "500" {
		t.Fatalf("answer %+v", ans)
	}
	msgs := f.Messages(t, 1)
	var tools []string
	for _, m := range msgs {
		if m["role"] == "tool" {
			tools = append(tools, m["tool_call_id"].(string)+": "+m["content"].(string))
		}
	}
	if len(tools) != 2 || !strings.Contains(tools[0], "run_python: the arguments are not a JSON object") ||
		!strings.Contains(tools[1], `"answers" must be an object`) {
		t.Errorf("tool messages %q", tools)
	}
	f.CheckProtocol(t)
}

// A model that never calls final_answer stops at the turn bound.
func TestAgentTurnBound(t *testing.T) {
	k := agentKernel(t)
	f := newFakeModel(t, "openai", turn{Calls: []call{code("x = 1")}})
	a := newAgent(t, f, k, false)
	a.MaxTurns = 3
	ans := ask(t, a, "question-1", "Anything?")
	if ans.Answered || !strings.Contains(ans.Stop, "3 model turns") || len(f.Requests()) != 3 {
		t.Fatalf("answer %+v after %d requests", ans, len(f.Requests()))
	}
	f.CheckProtocol(t)
}

// An endless loop is interrupted at the cell timeout; the kernel keeps its
// state and the run goes on.
func TestAgentEndlessLoop(t *testing.T) {
	k := agentKernel(t)
	f := newFakeModel(t, "openai",
		turn{Calls: []call{code("n = 0\nwhile True:\n    n += 1")}},
		turn{Calls: []call{code("print(n > 0, df.shape)")}},
		turn{Calls: []call{final(map[string]any{"rows": 500}, "ok")}},
	)
	a := newAgent(t, f, k, false)
	a.CellTimeout = 2 * time.Second
	ans := ask(t, a, "question-1", "Loop?")
	if !ans.Answered || len(ans.Steps) != 2 || ans.Steps[0].Status != "timeout" || ans.Steps[1].Status != "ok" {
		t.Fatalf("answer %+v", ans)
	}
	if tool := f.LastText(t, 1, "tool"); !strings.Contains(tool, "status: timeout") {
		t.Errorf("tool message %s", tool)
	}
	if tool := f.LastText(t, 2, "tool"); !strings.Contains(tool, "True (500, 10)") {
		t.Errorf("state after the interrupt: %s", tool)
	}
}

// Without tools the model writes fenced python blocks and answers in
// @name[value] form.
func TestAgentCodeBlocks(t *testing.T) {
	k := agentKernel(t)
	f := newFakeModel(t, "ollama",
		turn{Text: "Let me count.\n```python\nregions = df['region'].nunique()\nprint('regions =', regions)\n```\n```python\nprint(regions - regions + 8)\n```"},
		turn{Text: "@regions[4] There are four regions, counted with nunique()."},
	)
	f.Caps = `["completion"]`
	a := newAgent(t, f, k, false)
	ans := ask(t, a, "question-1", "How many regions?")
	if !ans.Answered || agent.FormatAnswers(ans.Values) != "@regions[4]" || !strings.Contains(ans.Summary, "four regions") {
		t.Fatalf("answer %+v", ans)
	}
	if len(ans.Steps) != 2 || ans.Steps[1].Exec.Stdout() != "8\n" {
		t.Fatalf("steps %+v", ans.Steps)
	}
	if _, has := f.Requests()[0]["tools"]; has {
		t.Error("tools sent to a model without tool support")
	}
	if u := f.LastText(t, 1, "user"); !strings.Contains(u, "Output of your code:\nblock 1:") || !strings.Contains(u, "block 2:") {
		t.Errorf("feedback %s", u)
	}
}

// A follow-up question uses the state the first one left in the kernel,
// in the same conversation.
func TestAgentFollowUp(t *testing.T) {
	k := agentKernel(t)
	f := newFakeModel(t, "openai",
		turn{Calls: []call{code("by_region = df.groupby('region')['revenue'].sum()\nprint(len(by_region))")}},
		turn{Calls: []call{final(map[string]any{"regions": 4}, "four")}},
		turn{Calls: []call{code("print('top =', by_region.idxmax())")}},
		turn{Calls: []call{final(map[string]any{"top": "x"}, "top")}},
	)
	a := newAgent(t, f, k, false)
	ask(t, a, "question-1", "How many regions?")
	ans := ask(t, a, "question-2", "Which region sells most?")
	if !ans.Answered || len(ans.Steps) != 1 || ans.Steps[0].Failed || !strings.Contains(ans.Steps[0].Exec.Stdout(), "top =") {
		t.Fatalf("follow-up %+v", ans)
	}
	msgs := f.Messages(t, 2)
	if len(msgs) != 7 || !strings.Contains(msgs[6]["content"].(string), "Follow-up question") {
		t.Errorf("follow-up conversation: %d messages", len(msgs))
	}
	f.CheckProtocol(t)
}

// Reflection without vision sends the chart's description; the model
// revises (a new chart and answer), then accepts in round 2.
func TestAgentReflectionRevises(t *testing.T) {
	k := agentKernel(t)
	f := newFakeModel(t, "openai",
		turn{Calls: []call{code("df.groupby('region')['units'].sum().plot.bar()")}},
		turn{Calls: []call{final(map[string]any{"top_region": "East"}, "East.")}},
		turn{Text: "The chart has no title or axis labels; redrawing.", Calls: []call{code(
			"ax = df.groupby('region')['units'].sum().plot.bar()\nax.set(title='Units by region', xlabel='Region', ylabel='Units')")}},
		turn{Calls: []call{final(map[string]any{"top_region": "West"}, "West, on the labelled chart.")}},
		turn{Calls: []call{{Name: "accept", Args: `{"reason": "labelled and consistent"}`}}},
	)
	a := newAgent(t, f, k, false)
	ans := ask(t, a, "question-1", "Which region sells most units?")
	if err := a.Reflect(context.Background(), "reflection-1", ans, 2); err != nil {
		t.Fatal(err)
	}
	if !ans.Revised || ans.Values[0].Value != "West" || len(ans.Verdicts) != 2 || ans.Verdicts[0].Accepted || !ans.Verdicts[1].Accepted {
		t.Fatalf("answer %+v verdicts %+v", ans, ans.Verdicts)
	}
	r1 := f.LastText(t, 2, "user")
	if !strings.Contains(r1, `bar "(no title)"`) || !strings.Contains(r1, "description: {") {
		t.Errorf("reflection prompt without vision:\n%s", r1)
	}
	if r2 := f.LastText(t, 4, "user"); !strings.Contains(r2, `"Units by region"`) {
		t.Errorf("round 2 checks the new chart:\n%s", r2)
	}
	f.CheckProtocol(t)
}

// A revision that redraws a chart that passed the checks: round 2 judges
// the new chart only, not the one it replaced.
func TestAgentReflectionJudgesTheRedrawnChart(t *testing.T) {
	k := agentKernel(t)
	f := newFakeModel(t, "openai",
		turn{Calls: []call{code("ax = df.groupby('region')['units'].sum().plot.bar()\nax.set(title='Units by region', xlabel='Region', ylabel='Units')")}},
		turn{Calls: []call{final(map[string]any{"top_region": "West"}, "West.")}},
		turn{Calls: []call{{Name: "revise", Args: `{"reason": "unsorted bars"}`}, code(
			"ax = df.groupby('region')['units'].sum().sort_values().plot.barh()\nax.set(title='Units by region, sorted', xlabel='Units', ylabel='Region')")}},
		turn{Calls: []call{final(map[string]any{"top_region": "West"}, "West, on the sorted chart.")}},
		turn{Calls: []call{{Name: "accept", Args: `{"reason": "sorted and labelled"}`}}},
	)
	a := newAgent(t, f, k, false)
	ans := ask(t, a, "question-1", "Which region sells most units?")
	if err := a.Reflect(context.Background(), "reflection-1", ans, 2); err != nil {
		t.Fatal(err)
	}
	if len(ans.Verdicts) != 2 || !ans.Verdicts[0].Revised || !ans.Verdicts[1].Accepted {
		t.Fatalf("verdicts %+v", ans.Verdicts)
	}
	r1, r2 := f.LastText(t, 2, "user"), f.LastText(t, 4, "user")
	if !strings.Contains(r1, `1. bar "Units by region"`) {
		t.Errorf("round 1 does not judge the chart:\n%s", r1)
	}
	if !strings.Contains(r2, `1. bar "Units by region, sorted"`) || strings.Contains(r2, `"Units by region",`) || strings.Contains(r2, "2. ") {
		t.Errorf("round 2 judges more than the redrawn chart:\n%s", r2)
	}
	f.CheckProtocol(t)
}

// A 429 is retried (by llm) and the loop goes on; 401 and a dead server are
// model errors of their kinds.
func TestAgentModelErrors(t *testing.T) {
	k := agentKernel(t)
	f := newFakeModel(t, "openai", turn{Status: http.StatusTooManyRequests}, turn{Calls: []call{code("print(1)")}}, turn{Calls: []call{final(map[string]any{"a": 1}, "")}})
	a := newAgent(t, f, k, false)
	if ans := ask(t, a, "question-1", "q"); !ans.Answered || len(f.Requests()) != 3 {
		t.Errorf("after a 429: %+v, %d requests", ans, len(f.Requests()))
	}

	f401 := newFakeModel(t, "openai", turn{Status: http.StatusUnauthorized})
	a = newAgent(t, f401, k, false)
	_, err := a.Ask(context.Background(), "question-1", "q")
	if !errors.Is(err, llm.ErrUnauthorized) {
		t.Errorf("401: %v", err)
	}

	down := newFakeModel(t, "openai", turn{})
	a = newAgent(t, down, k, false)
	down.Close()
	_, err = a.Ask(context.Background(), "question-1", "q")
	if !errors.Is(err, llm.ErrUnreachable) {
		t.Errorf("server down: %v", err)
	}
}
