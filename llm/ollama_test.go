package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestOllamaChatStream(t *testing.T) {
	const model = "qwen2.5-coder:7b"
	chunk := func(content string) string {
		b, _ := json.Marshal(map[string]any{"model": model, "created_at": "2025-01-01T00:00:00Z",
			"message": map[string]any{"role": "assistant", "content": content}, "done": false})
		return string(b)
	}
	earlier := []Message{
		{Role: RoleUser, Content: "q"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "call_0_0", Name: "run_python", Arguments: `{"code":"df"}`}}},
		{Role: RoleTool, ToolCallID: "call_0_0", Content: "ok"},
	}
	tests := []struct {
		name       string
		messages   []Message
		lines      []string
		wantDeltas []string
		want       Response
	}{{
		name:       "content deltas and usage",
		messages:   []Message{{Role: RoleUser, Content: "peak month?"}},
		lines:      []string{chunk("The peak "), chunk("month is "), chunk("March."), ollamaDone},
		wantDeltas: []string{"The peak ", "month is ", "March."},
		want: Response{
			Message: Message{Role: RoleAssistant, Content: "The peak month is March."},
			Usage:   Usage{PromptTokens: 12, CompletionTokens: 3}, Model: model, FinishReason: "stop",
		},
	}, {
		// Servers that send no ids get ids from the reply's turn (the
		// number of assistant messages before it) and the call's place.
		name:     "tool calls without ids",
		messages: earlier,
		lines: []string{
			`{"model":"qwen2.5-coder:7b","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"","tool_calls":[` +
				`{"function":{"name":"run_python","arguments":{"code":"df.groupby('month').revenue.sum()","timeout":30}}},` +
				`{"function":{"name":"final_answer","arguments":{"answer":"@peak[March]"}}}]},"done":false}`,
			ollamaDone,
		},
		want: Response{
			Message: Message{Role: RoleAssistant, ToolCalls: []ToolCall{
				{ID: "call_1_0", Name: "run_python", Arguments: `{"code":"df.groupby('month').revenue.sum()","timeout":30}`},
				{ID: "call_1_1", Name: "final_answer", Arguments: `{"answer":"@peak[March]"}`},
			}},
			Usage: Usage{PromptTokens: 12, CompletionTokens: 3}, Model: model, FinishReason: "stop",
		},
	}, {
		name:     "tool calls with server ids",
		messages: []Message{{Role: RoleUser, Content: "q"}},
		lines: []string{
			`{"model":"qwen2.5-coder:7b","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"","tool_calls":[` +
				`{"id":"call_k3x9q2ab","function":{"index":0,"name":"run_python","arguments":{"code":"1+1"}}}]},"done":false}`,
			ollamaDone,
		},
		want: Response{
			Message: Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "call_k3x9q2ab", Name: "run_python", Arguments: `{"code":"1+1"}`}}},
			Usage:   Usage{PromptTokens: 12, CompletionTokens: 3}, Model: model, FinishReason: "stop",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, route(map[string]http.HandlerFunc{"/api/chat": ndjson(tt.lines...)}))
			c := testClient(t, "ollama", model, s, Options{})
			var deltas []string
			resp, err := c.Chat(context.Background(), Request{Messages: tt.messages}, func(d string) { deltas = append(deltas, d) })
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantDeltas, deltas); diff != "" {
				t.Errorf("deltas (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, *resp, cmpopts.IgnoreFields(Response{}, "Duration")); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			if resp.Duration <= 0 {
				t.Errorf("Duration = %v, want > 0", resp.Duration)
			}
			if got := s.JSON(t, 0)["stream"]; got != true {
				t.Errorf("sent stream = %v, want true", got)
			}
		})
	}
}

// The request the Ollama server receives: roles in order, the image on the
// user message only (base64), the tool message named after its tool, the
// tools schema, and temperature and seed in options.
func TestOllamaChatRequest(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nfake chart")
	schema := `{"type":"object","properties":{"code":{"type":"string","description":"Python to run"}},"required":["code"]}`
	temp, seed := 0.0, 7
	req := Request{
		Messages: []Message{
			{Role: RoleSystem, Content: "You are a data analyst."},
			{Role: RoleUser, Content: "Plot revenue by month."},
			{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "call_0_0", Name: "run_python", Arguments: `{"code":"df.plot()"}`}}},
			{Role: RoleTool, ToolCallID: "call_0_0", Content: "<Figure>"},
			{Role: RoleUser, Content: "Here is the chart.", Images: [][]byte{png}},
		},
		Tools:       []Tool{{Name: "run_python", Description: "Run Python in the kernel", Parameters: json.RawMessage(schema)}},
		Temperature: &temp,
		Seed:        &seed,
		MaxTokens:   512,
	}
	s := newServer(t, route(map[string]http.HandlerFunc{"/api/chat": ndjson(ollamaHello, ollamaDone)}))
	c := testClient(t, "ollama", "qwen2.5-coder:7b", s, Options{})
	if _, err := c.Chat(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	if got := s.Requests(); len(got) != 1 || got[0].Method != "POST" || got[0].Path != "/api/chat" {
		t.Fatalf("requests = %+v, want one POST /api/chat", got)
	}
	body := s.JSON(t, 0)
	if body["model"] != "qwen2.5-coder:7b" {
		t.Errorf("model = %v", body["model"])
	}
	msgs := body["messages"].([]any)
	var roles []string
	for i, m := range msgs {
		m := m.(map[string]any)
		roles = append(roles, m["role"].(string))
		if _, has := m["images"]; has != (i == 4) {
			t.Errorf("message %d (%s): images present = %v", i, m["role"], has)
		}
	}
	if diff := cmp.Diff([]string{"system", "user", "assistant", "tool", "user"}, roles); diff != "" {
		t.Errorf("roles (-want +got):\n%s", diff)
	}
	if want := []any{base64.StdEncoding.EncodeToString(png)}; !cmp.Equal(msgs[4].(map[string]any)["images"], want) {
		t.Errorf("images = %v, want %v", msgs[4].(map[string]any)["images"], want)
	}
	wantCalls := `[{"id":"call_0_0","function":{"index":0,"name":"run_python","arguments":{"code":"df.plot()"}}}]`
	if got := msgs[2].(map[string]any)["tool_calls"]; !jsonEqual(t, got, wantCalls) {
		t.Errorf("assistant tool_calls = %v, want %s", got, wantCalls)
	}
	tool := msgs[3].(map[string]any)
	if tool["tool_name"] != "run_python" || tool["tool_call_id"] != "call_0_0" || tool["content"] != "<Figure>" {
		t.Errorf("tool message = %v, want tool_name run_python, tool_call_id call_0_0", tool)
	}
	wantTools := `[{"type":"function","function":{"name":"run_python","description":"Run Python in the kernel","parameters":` + schema + `}}]`
	if !jsonEqual(t, body["tools"], wantTools) {
		t.Errorf("tools = %v, want %s", body["tools"], wantTools)
	}
	if want := `{"temperature":0,"seed":7,"num_predict":512}`; !jsonEqual(t, body["options"], want) {
		t.Errorf("options = %v, want %s", body["options"], want)
	}
}

func TestOllamaModel(t *testing.T) {
	tags := `{"models":[` +
		`{"name":"llama3:latest","model":"llama3:latest","size":1,"digest":"sha256:aaa"},` +
		`{"name":"qwen2.5-coder:7b","model":"qwen2.5-coder:7b","size":2,"digest":"sha256:bbb"}]}`
	qwenInfo := `{"general.architecture":"qwen2","general.parameter_count":7615616512,"qwen2.attention.head_count":28,"qwen2.context_length":32768,"qwen2.embedding_length":3584}`
	tests := []struct {
		model      string
		caps       string
		modelInfo  string
		parameters string
		opts       Options
		want       ModelInfo
	}{
		{model: "qwen2.5-coder:7b", caps: `["completion","tools"]`, modelInfo: qwenInfo,
			want: ModelInfo{Provider: "ollama", Name: "qwen2.5-coder:7b", Digest: "sha256:bbb", Capabilities: Capabilities{Tools: true}, ContextLength: 32768, MaxReplyTokens: DefaultMaxReplyTokens}},
		// A num_ctx the model was created with is the window it runs in.
		{model: "llama3", caps: `["completion","tools","vision"]`, modelInfo: `{"general.architecture":"llama","llama.context_length":8192}`,
			parameters: `num_ctx                        4096\nstop                           \"<|eot_id|>\"`,
			want:       ModelInfo{Provider: "ollama", Name: "llama3", Digest: "sha256:aaa", Capabilities: Capabilities{Tools: true, Vision: true}, ContextLength: 4096, MaxReplyTokens: DefaultMaxReplyTokens}},
		{model: "gpt-oss:120b-cloud", caps: `["completion"]`, modelInfo: `{}`,
			want: ModelInfo{Provider: "ollama", Name: "gpt-oss:120b-cloud", MaxReplyTokens: DefaultMaxReplyTokens}},
		// The user's setting wins over what the server says.
		{model: "qwen2.5-coder:7b", caps: `["completion","tools"]`, modelInfo: qwenInfo, opts: Options{ContextLength: 16384},
			want: ModelInfo{Provider: "ollama", Name: "qwen2.5-coder:7b", Digest: "sha256:bbb", Capabilities: Capabilities{Tools: true}, ContextLength: 16384, MaxReplyTokens: DefaultMaxReplyTokens}},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			params := ""
			if tt.parameters != "" {
				params = `"parameters":"` + tt.parameters + `",`
			}
			s := newServer(t, route(map[string]http.HandlerFunc{
				"/api/show": reply(200, `{"modelfile":"FROM x",`+params+`"details":{"family":"qwen2"},"model_info":`+tt.modelInfo+`,"capabilities":`+tt.caps+`}`),
				"/api/tags": reply(200, tags),
			}))
			c := testClient(t, "ollama", tt.model, s, tt.opts)
			info, err := c.Model(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, *info); diff != "" {
				t.Errorf("info (-want +got):\n%s", diff)
			}
			if got := s.JSON(t, 0)["model"]; got != tt.model {
				t.Errorf("show asked for model %v, want %s", got, tt.model)
			}
		})
	}
}

// Request.ContextWindow goes to Ollama as options.num_ctx; without it no
// num_ctx is sent (the server's default stays).
func TestOllamaContextWindow(t *testing.T) {
	for _, window := range []int{0, 16384} {
		s := newServer(t, route(map[string]http.HandlerFunc{"/api/chat": ndjson(ollamaHello, ollamaDone)}))
		c := testClient(t, "ollama", "qwen2.5-coder:7b", s, Options{})
		req := hello()
		req.ContextWindow = window
		if _, err := c.Chat(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
		opts, _ := s.JSON(t, 0)["options"].(map[string]any)
		got, sent := opts["num_ctx"]
		switch {
		case window == 0 && sent:
			t.Errorf("ContextWindow 0: sent num_ctx %v", got)
		case window > 0 && got != float64(window):
			t.Errorf("ContextWindow %d: sent options %v, want num_ctx %d", window, opts, window)
		}
	}
}

// A reply cut by the token limit says so.
func TestOllamaTruncated(t *testing.T) {
	for reason, want := range map[string]bool{"length": true, "stop": false} {
		done := `{"model":"m","created_at":"2025-01-01T00:00:01Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"` + reason + `","prompt_eval_count":12,"eval_count":512}`
		s := newServer(t, ndjson(`{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"@peak_revenue[152"},"done":false}`, done))
		resp, err := testClient(t, "ollama", "m", s, Options{}).Chat(context.Background(), hello(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Truncated() != want {
			t.Errorf("done_reason %s: Truncated() = %v, want %v", reason, resp.Truncated(), want)
		}
	}
}

// Without Options.OllamaHost the client goes where OLLAMA_HOST says, which
// may be a bare host:port.
func TestOllamaHostFromEnv(t *testing.T) {
	s := newServer(t, okStep("ollama"))
	t.Setenv("OLLAMA_HOST", s.Listener.Addr().String())
	c, err := New("ollama:qwen2.5-coder:7b", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Chat(context.Background(), hello(), nil); err != nil {
		t.Fatal(err)
	}
	if got := s.Requests(); len(got) != 1 || got[0].Path != "/api/chat" {
		t.Errorf("requests = %+v, want one to /api/chat", got)
	}
}

// The model's arguments keep the order it wrote them in, nested objects
// included (the answers of final_answer are in the model's order), both in
// the reply and when the call goes back to the server in the history.
func TestOllamaToolArgumentsOrder(t *testing.T) {
	const args = `{"summary":"Revenue peaks in July.","answers":{"peak_month":"2024-07","total_revenue":152300.5,"avg_order":42,"best_region":"West","zeta":[3,1,2],"alpha":{"y":1,"b":2}}}`
	line := `{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"","tool_calls":[` +
		`{"id":"call_1","function":{"index":0,"name":"final_answer","arguments":` + args + `}},` +
		`{"id":"call_2","function":{"index":1,"name":"run_python","arguments":{"timeout":30,"code":"df.head()"}}}]},"done":false}`
	s := newServer(t, ndjson(line, ollamaDone), ndjson(ollamaHello, ollamaDone))
	c := testClient(t, "ollama", "m", s, Options{})
	resp, err := c.Chat(context.Background(), hello(), nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls
	if len(calls) != 2 {
		t.Fatalf("calls = %+v, want 2", calls)
	}
	if calls[0].Arguments != args {
		t.Errorf("final_answer arguments\n got %s\nwant %s", calls[0].Arguments, args)
	}
	if want := `{"timeout":30,"code":"df.head()"}`; calls[1].Arguments != want {
		t.Errorf("run_python arguments\n got %s\nwant %s", calls[1].Arguments, want)
	}

	history := hello()
	history.Messages = append(history.Messages, resp.Message,
		Message{Role: RoleTool, ToolCallID: "call_1", Content: "ok"},
		Message{Role: RoleTool, ToolCallID: "call_2", Content: "ok"})
	if _, err := c.Chat(context.Background(), history, nil); err != nil {
		t.Fatal(err)
	}
	if sent := string(s.Requests()[1].Body); !strings.Contains(sent, `"arguments":`+args+`}`) {
		t.Errorf("the history sent back does not carry the arguments as written:\n%s", sent)
	}
}
