package cmd_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/analyst-cli/analyst/llm/llmtest"
)

// fakeOllama is a model server for the CLI scripts: it speaks Ollama's
// /api/show, /api/tags and NDJSON /api/chat (llmtest's writers), and plays an analyst that runs
// one cell, then answers, then accepts its chart when asked to reflect. A
// model whose name starts with "slow" never answers /api/show. Markers in
// the question change the play: "[loop]" runs cells and never answers;
// "[flaky]" fails the first chat request with a 503 (retried); "[notools]"
// refuses any request that offers tools (HTTP 400, as Ollama does for a
// model without tool calling) and plays in fenced code blocks. Asked for
// analysis goals (propose_goals offered), it proposes one: revenue by
// region, which it then plays like a question.
type fakeOllama struct {
	*httptest.Server
	mu    sync.Mutex
	chats int
}

func newFakeOllama() *fakeOllama {
	f := &fakeOllama{}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	return f
}

const fakeCell = `top = df.groupby("region")["revenue"].sum().sort_values(ascending=False)
print("total revenue per region = sum of revenue over its rows")
print(top)
top.plot.bar(title="Revenue by region", xlabel="region", ylabel="revenue")
plt.show()`

func (f *fakeOllama) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	switch r.URL.Path {
	case "/api/show":
		if strings.Contains(string(body), `"model":"slow`) { // a model that never loads
			<-r.Context().Done()
			return
		}
		llmtest.OllamaShow(w, `["completion","tools"]`)
		return
	case "/api/tags":
		llmtest.OllamaTags(w, "qwen2.5-coder:7b", "sha256:c0ffee")
		return
	case "/api/chat":
	default:
		http.NotFound(w, r)
		return
	}
	var req struct {
		Messages []struct{ Role, Content string } `json:"messages"`
		Tools    []any                            `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	tools, outputs := 0, 0
	for _, m := range req.Messages {
		if m.Role == "tool" {
			tools++
		}
		if m.Role == "user" && strings.HasPrefix(m.Content, "Output of your code") {
			outputs++
		}
	}
	f.mu.Lock()
	f.chats++
	first := f.chats == 1
	f.mu.Unlock()
	question := req.Messages[1].Content
	if first && strings.Contains(question, "[flaky]") {
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":"server busy"}`)
		return
	}
	if len(req.Tools) > 0 && strings.Contains(question, "[notools]") {
		llmtest.RefuseTools(w, "ollama")
		return
	}
	msg := map[string]any{"role": "assistant", "content": ""}
	last := req.Messages[len(req.Messages)-1].Content
	offered := func(name string) bool {
		for _, t := range req.Tools {
			if fn, _ := t.(map[string]any)["function"].(map[string]any); fn["name"] == name {
				return true
			}
		}
		return false
	}
	switch {
	case offered("propose_goals"):
		msg["tool_calls"] = []any{map[string]any{"function": map[string]any{"name": "propose_goals", "arguments": map[string]any{
			"goals": []any{map[string]any{"question": "Which region has the most revenue?", "chart": "bar", "columns": []string{"region", "revenue"},
				"visualization": "sum of revenue per region", "rationale": "where the money comes from"}}}}}}
	case strings.Contains(question, "[notools]") && strings.Contains(last, "Check your work"):
		msg["content"] = "VERDICT: ACCEPT\nThe bar chart shows East ahead, as the answer says."
	case strings.Contains(question, "[notools]") && outputs == 0:
		msg["content"] = "```python\n" + fakeCell + "\n```"
	case strings.Contains(question, "[notools]"):
		msg["content"] = "@top_region[East] East has the most revenue (40)."
	case strings.Contains(last, "Check your work"): // asked to check its chart
		msg["tool_calls"] = []any{map[string]any{"function": map[string]any{"name": "accept",
			"arguments": map[string]any{"reason": "the bar chart shows East ahead, as the answer says"}}}}
	case strings.Contains(question, "[loop]"):
		msg["tool_calls"] = []any{map[string]any{"function": map[string]any{"name": "run_python", "arguments": map[string]any{"code": "x = 1"}}}}
	case tools == 0:
		msg["tool_calls"] = []any{map[string]any{"function": map[string]any{"name": "run_python", "arguments": map[string]any{"code": fakeCell}}}}
	default:
		msg["tool_calls"] = []any{map[string]any{"function": map[string]any{"name": "final_answer",
			"arguments": map[string]any{"answers": map[string]any{"top_region": "East"}, "summary": "East has the most revenue (@top_region[East], 40)."}}}}
	}
	llmtest.OllamaChat(w, "qwen2.5-coder:7b", msg, "")
}
