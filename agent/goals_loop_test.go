package agent_test

import (
	"github.com/analyst-cli/analyst/llm/llmtest"
	"github.com/analyst-cli/analyst/nbformat"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
)

// A server that refuses tool calling when asked for goals: the goals are
// asked for again without tools and read from the JSON reply; the goal then
// asked is told to work in code blocks, and no tools are offered again.
// Both wire formats, no kernel.
func TestProposeGoalsToolsRefused(t *testing.T) {
	both(t, func(t *testing.T, provider string) {
		k := &scriptedKernel{execs: []*kernel.Execution{{Status: kernel.StatusOK, Outputs: []nbformat.Output{stdout("West 12\n")}}}}
		f := newFakeModel(t, provider,
			turn{Text: "Goals:\n```json\n{\"goals\": [{\"question\": \"Which region sells most?\", \"chart\": \"bar\", \"columns\": [\"region\", \"revenue\"]}]}\n```"},
			turn{Text: "```python\nprint(df.groupby('region')['revenue'].sum())\n```"},
			turn{Text: "@top[West] West sells most: 12."},
		)
		f.RefuseTools = true
		a, ctx := scriptedAgent(t, f, k, "You are a test analyst. Call run_python.")
		var notices []string
		a.OnTurn = func(e agent.TurnEvent) {
			if e.Notice != "" {
				notices = append(notices, e.Notice)
			}
		}
		p := &eda.Profile{ColumnInfo: []eda.Column{{Name: "region", Kind: eda.KindCategorical}, {Name: "revenue", Kind: eda.KindNumeric}}}
		set, err := a.ProposeGoals(ctx, "goals", agent.GoalRequest{DataName: "sales.csv", Profile: p, N: 1})
		if err != nil || len(set.Goals) != 1 || set.Note != "" || a.ToolsRefused == "" || a.Mode() != agent.ModeCodeBlocks {
			t.Fatalf("goals %+v, err %v, refused %q, mode %s", set, err, a.ToolsRefused, a.Mode())
		}
		ans, err := a.Ask(ctx, "goal-1", agent.GoalQuestion(1, set.Goals[0]))
		if err != nil || !ans.Answered || agent.FormatAnswers(ans.Values) != "@top[West]" {
			t.Fatalf("answer %+v, err %v", ans, err)
		}
		if f.Refused() != 1 || len(f.Requests()) != 3 {
			t.Errorf("%d refusals, %d requests", f.Refused(), len(f.Requests()))
		}
		// The user hears of the switch once, with the server's reason.
		reason := map[string]string{"ollama": "HTTP 400: registry.ollama.ai/library/qwen2.5-coder:7b does not support tools",
			"openai": `HTTP 400: "auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`}[provider]
		if len(notices) != 1 || !strings.HasSuffix(notices[0], "switched to code-block mode (fenced ```python blocks). The server said: "+reason) {
			t.Errorf("notices %q, want one ending with the server's reason %q", notices, reason)
		}
		msgs := f.Messages(t, 1)
		if len(msgs) < 3 || !strings.Contains(llmtest.ContentText(msgs[1]["content"]), "Tool calling is not available") ||
			!strings.HasPrefix(llmtest.ContentText(msgs[2]["content"]), "Question: Exploration goal 1: Which region sells most?") {
			t.Errorf("the goal's conversation: %v", msgs)
		}
		f.CheckProtocol(t)
	})
}
