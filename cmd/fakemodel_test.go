package cmd_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
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
// region, which it then plays like a question — or, for data whose name
// says "monthly", the peak month.
//
// Questions (and goals) about the peak month or, marked "[customers]", the
// top customer play an analyst that reads its numbers off its cell's
// output: the cell prints "name = value" lines, and final_answer states
// those values and numbers of the narrative made from them.
type fakeOllama struct {
	*httptest.Server
	mu    sync.Mutex
	chats int
	// systems are the system prompts of the chat requests, in order.
	systems []string
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

// fakePeakCell and fakeCustomerCell print the values the answer states as
// "name = value" lines and draw the chart the answer rests on.
const fakePeakCell = `monthly = df.groupby(df["date"].dt.to_period("M"))["revenue"].sum()
print("total revenue per month = sum of revenue over its rows")
print("peak_month =", monthly.idxmax())
print("peak_revenue =", round(monthly.max()))
print("peak_to_lowest =", round(monthly.max() / monthly.min(), 1))
monthly.plot.bar(title="Total revenue by month", xlabel="month", ylabel="revenue")
plt.show()`

const fakeCustomerCell = `by_customer = df.groupby("customer")["revenue"].sum().sort_values(ascending=False)
print("top_customer =", by_customer.index[0])
print("top_revenue =", round(by_customer.iloc[0]))
by_customer.plot.bar(title="Revenue by customer", xlabel="customer", ylabel="revenue")
plt.show()`

var printedValueRe = regexp.MustCompile(`(?m)^(\w+) = (\S+)$`)

// readValues reads the "name = value" lines of a cell's output.
func readValues(output string) map[string]string {
	vs := map[string]string{}
	for _, m := range printedValueRe.FindAllStringSubmatch(output, -1) {
		vs[m[1]] = m[2]
	}
	return vs
}

// numbersPlay is the code and the final answer of the plays that read
// their numbers off the output: "" when question is not one of them.
func numbersPlay(question string) (code string, answer func(vs map[string]string) (map[string]any, string)) {
	switch {
	case strings.Contains(question, "peak"):
		return fakePeakCell, func(vs map[string]string) (map[string]any, string) {
			rev, _ := strconv.Atoi(vs["peak_revenue"])
			return map[string]any{"peak_month": vs["peak_month"], "peak_revenue": rev},
				fmt.Sprintf("Revenue peaks in %s at %s (@peak_revenue[%d]), %s times the lowest month.",
					vs["peak_month"], thousands(rev), rev, vs["peak_to_lowest"])
		}
	case strings.Contains(question, "[customers]"):
		return fakeCustomerCell, func(vs map[string]string) (map[string]any, string) {
			return map[string]any{"top_customer": vs["top_customer"], "top_revenue": vs["top_revenue"]},
				fmt.Sprintf("%s buys most, for %s.", vs["top_customer"], vs["top_revenue"])
		}
	}
	return "", nil
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

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
	if len(req.Messages) > 0 && req.Messages[0].Role == "system" {
		f.systems = append(f.systems, req.Messages[0].Content)
	}
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
	// The numbers plays read the current question's cells: the tool
	// messages since it was asked.
	lastTool, asked := "", 0
	for _, m := range req.Messages {
		switch {
		case m.Role == "tool":
			lastTool, asked = m.Content, asked+1
		case m.Role == "user" && (strings.HasPrefix(m.Content, "Question: ") || strings.HasPrefix(m.Content, "Follow-up question")):
			question, lastTool, asked = m.Content, "", 0
		}
	}
	if strings.Contains(question, "[shop]") {
		msg["tool_calls"] = shopPlay(asked, lastTool, strings.Contains(last, "Check your work"))
		llmtest.OllamaChat(w, "qwen2.5-coder:7b", msg, "")
		return
	}
	playCode, playAnswer := numbersPlay(question)
	if strings.Contains(lastTool, "KeyError") && strings.Contains(lastTool, "'customer'") {
		// Repair a column renamed in the data (as a replay with --model asks).
		playCode, asked = strings.ReplaceAll(playCode, `"customer"`, `"client"`), 0
	}
	switch {
	case offered("propose_goals") && strings.Contains(req.Messages[0].Content, "monthly"):
		msg["tool_calls"] = []any{map[string]any{"function": map[string]any{"name": "propose_goals", "arguments": map[string]any{
			"goals": []any{map[string]any{"question": "Which month has the peak revenue?", "chart": "bar", "columns": []string{"date", "revenue"},
				"visualization": "total revenue per month", "rationale": "when the money comes in"}}}}}}
	case offered("propose_goals"):
		msg["tool_calls"] = []any{map[string]any{"function": map[string]any{"name": "propose_goals", "arguments": map[string]any{
			"goals": []any{map[string]any{"question": "Which region has the most revenue?", "chart": "bar", "columns": []string{"region", "revenue"},
				"visualization": "sum of revenue per region", "rationale": "where the money comes from"}}}}}}
	case playCode != "" && strings.Contains(last, "Check your work"):
		msg["tool_calls"] = []any{map[string]any{"function": map[string]any{"name": "accept",
			"arguments": map[string]any{"reason": "the chart shows what the answer says"}}}}
	case playCode != "" && asked == 0:
		msg["tool_calls"] = []any{map[string]any{"function": map[string]any{"name": "run_python", "arguments": map[string]any{"code": playCode}}}}
	case playCode != "":
		answers, summary := playAnswer(readValues(lastTool))
		msg["tool_calls"] = []any{map[string]any{"function": map[string]any{"name": "final_answer",
			"arguments": map[string]any{"answers": answers, "summary": summary}}}}
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

// shopPlay is an analyst of a folder (run_folder.txtar): it reads the fee
// rule in the manual's Fees section with read_doc, takes the rate and the
// fixed fee from what read_doc printed (the rule is nowhere else), joins
// the orders to the customers for their segment, and answers with the
// retail customers' fees as its cell printed them.
func shopPlay(asked int, lastTool string, reflect bool) []any {
	call := func(name string, args map[string]any) []any {
		return []any{map[string]any{"function": map[string]any{"name": name, "arguments": args}}}
	}
	switch {
	case reflect:
		return call("accept", map[string]any{"reason": "the answer is the sum the cell printed"})
	case asked == 0:
		return call("run_python", map[string]any{"code": `read_doc("manual.md", "fees")`})
	case asked == 1:
		m := feeRuleRe.FindStringSubmatch(lastTool)
		if m == nil {
			return call("final_answer", map[string]any{"answers": map[string]any{}, "summary": "The manual states no fee rule."})
		}
		code := `orders = tables["orders"].merge(tables["customers"], on="customer_id", how="left")
retail = orders[orders["segment"] == "retail"]
print("fee of a retail order = amount × ` + m[1] + `% + ` + m[2] + ` EUR (manual.md, Fees)")
print("retail_fees =", round((retail["amount"] * ` + m[1] + ` / 100 + ` + m[2] + `).sum(), 2))`
		return call("run_python", map[string]any{"code": code})
	}
	vs := readValues(lastTool)
	return call("final_answer", map[string]any{"answers": map[string]any{"retail_fees": vs["retail_fees"]},
		"summary": "Retail customers paid " + vs["retail_fees"] + " EUR in fees, by the manual's fee rule applied to their orders."})
}

// feeRuleRe reads the fee rule as the manual of run_folder.txtar words it.
var feeRuleRe = regexp.MustCompile(`([0-9.]+)% of the amount plus ([0-9.]+) EUR`)
