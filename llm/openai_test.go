package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestOpenAIChatStream(t *testing.T) {
	// chunk is one chat.completion.chunk event with the given delta.
	chunk := func(delta string, finish string) string {
		fr := "null"
		if finish != "" {
			fr = `"` + finish + `"`
		}
		return `{"id":"chatcmpl-9","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini-2024-07-18",` +
			`"system_fingerprint":"fp_1","choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + fr + `}],"usage":null}`
	}
	usage := `{"id":"chatcmpl-9","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini-2024-07-18","choices":[],` +
		`"usage":{"prompt_tokens":812,"completion_tokens":41,"total_tokens":853}}`
	tests := []struct {
		name       string
		events     []string
		wantDeltas []string
		want       Response
	}{{
		name: "content deltas and the usage chunk",
		events: []string{
			chunk(`{"role":"assistant","content":"","refusal":null}`, ""),
			chunk(`{"content":"The peak "}`, ""),
			chunk(`{"content":"month is March."}`, ""),
			chunk(`{}`, "stop"),
			usage,
		},
		wantDeltas: []string{"The peak ", "month is March."},
		want: Response{
			Message: Message{Role: RoleAssistant, Content: "The peak month is March."},
			Usage:   Usage{PromptTokens: 812, CompletionTokens: 41}, Model: "gpt-4o-mini-2024-07-18", FinishReason: "stop",
		},
	}, {
		// Two calls interleaved by index, their arguments split mid-token.
		name: "tool calls split across chunks",
		events: []string{
			chunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_A1","type":"function","function":{"name":"run_python","arguments":""}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"co"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":1,"id":"call_B2","type":"function","function":{"name":"final_answer","arguments":"{\"answer\":"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"de\":\"df.head()\"}"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"\"@peak[March]\"}"}}]}`, ""),
			chunk(`{}`, "tool_calls"),
			usage,
		},
		want: Response{
			Message: Message{Role: RoleAssistant, ToolCalls: []ToolCall{
				{ID: "call_A1", Name: "run_python", Arguments: `{"code":"df.head()"}`},
				{ID: "call_B2", Name: "final_answer", Arguments: `{"answer":"@peak[March]"}`},
			}},
			Usage: Usage{PromptTokens: 812, CompletionTokens: 41}, Model: "gpt-4o-mini-2024-07-18", FinishReason: "tool_calls",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, route(map[string]http.HandlerFunc{"/v1/chat/completions": sse(tt.events...)}))
			c := testClient(t, "openai", "gpt-4o-mini", s, Options{})
			var deltas []string
			resp, err := c.Chat(context.Background(), hello(), func(d string) { deltas = append(deltas, d) })
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantDeltas, deltas); diff != "" {
				t.Errorf("deltas (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, *resp, cmpopts.IgnoreFields(Response{}, "Duration")); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
		})
	}
}

// The request the OpenAI-compatible server receives: the assistant message
// with its tool calls as sent (arguments a JSON string), one tool message
// per call id and text only, the chart in a follow-up user message as an
// image_url data URL, the tools schema, temperature 0, seed, stream with
// usage, and the key.
func TestOpenAIChatRequest(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nfake chart")
	schema := `{"type":"object","properties":{"code":{"type":"string"}},"required":["code"],"additionalProperties":false}`
	temp, seed := 0.0, 7
	req := Request{
		Messages: []Message{
			{Role: RoleSystem, Content: "You are a data analyst."},
			{Role: RoleUser, Content: "Plot revenue by month."},
			{Role: RoleAssistant, ToolCalls: []ToolCall{
				{ID: "call_A1", Name: "run_python", Arguments: `{"code":"df.plot()"}`},
				{ID: "call_B2", Name: "run_python", Arguments: `{"code":"df.describe()"}`},
			}},
			{Role: RoleTool, ToolCallID: "call_A1", Content: "chart 1 drawn"},
			{Role: RoleTool, ToolCallID: "call_B2", Content: "count 12"},
			{Role: RoleUser, Content: "Here is the chart that was generated.", Images: [][]byte{png}},
		},
		Tools:       []Tool{{Name: "run_python", Description: "Run Python in the kernel", Parameters: json.RawMessage(schema)}},
		Temperature: &temp,
		Seed:        &seed,
	}
	s := newServer(t, route(map[string]http.HandlerFunc{"/v1/chat/completions": okStep("openai")}))
	c := testClient(t, "openai", "gpt-4o-mini", s, Options{APIKey: "sk-abc"})
	if _, err := c.Chat(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	got := s.Requests()
	if len(got) != 1 || got[0].Method != "POST" || got[0].Path != "/v1/chat/completions" {
		t.Fatalf("requests = %+v, want one POST /v1/chat/completions", got)
	}
	if auth := got[0].Header.Get("Authorization"); auth != "Bearer sk-abc" {
		t.Errorf("Authorization = %q", auth)
	}
	body := s.JSON(t, 0)
	want := `{
		"model": "gpt-4o-mini",
		"stream": true,
		"stream_options": {"include_usage": true},
		"temperature": 0,
		"seed": 7,
		"max_tokens": 4096,
		"messages": [
			{"role": "system", "content": "You are a data analyst."},
			{"role": "user", "content": "Plot revenue by month."},
			{"role": "assistant", "tool_calls": [
				{"id": "call_A1", "type": "function", "function": {"name": "run_python", "arguments": "{\"code\":\"df.plot()\"}"}},
				{"id": "call_B2", "type": "function", "function": {"name": "run_python", "arguments": "{\"code\":\"df.describe()\"}"}}
			]},
			{"role": "tool", "tool_call_id": "call_A1", "content": "chart 1 drawn"},
			{"role": "tool", "tool_call_id": "call_B2", "content": "count 12"},
			{"role": "user", "content": [
				{"type": "text", "text": "Here is the chart that was generated."},
				{"type": "image_url", "image_url": {"url": "data:image/png;base64,` + base64.StdEncoding.EncodeToString(png) + `"}}
			]}
		],
		"tools": [{"type": "function", "function": {"name": "run_python", "description": "Run Python in the kernel", "parameters": ` + schema + `}}]
	}`
	if !jsonEqual(t, body, want) {
		gotJSON, _ := json.MarshalIndent(body, "", "  ")
		t.Errorf("body:\n%s\nwant:\n%s", gotJSON, want)
	}
}

func TestOpenAIModel(t *testing.T) {
	const model = `{"id":"gpt-4o-mini","object":"model","created":1721172741,"owned_by":"system"}`
	const list = `{"object":"list","data":[{"id":"qwen2.5-coder-7b","object":"model","created":1,"owned_by":"llamacpp"}]}`
	yes := true
	tests := []struct {
		name      string
		model     string
		routes    map[string]http.HandlerFunc
		opts      Options
		want      *ModelInfo
		wantErr   error
		wantPaths []string
	}{{
		name:      "found; vision is not guessed off api.openai.com",
		model:     "gpt-4o-mini",
		routes:    map[string]http.HandlerFunc{"/v1/models/gpt-4o-mini": reply(200, model)},
		want:      &ModelInfo{Provider: "openai", Name: "gpt-4o-mini", Capabilities: Capabilities{Tools: true}, MaxReplyTokens: DefaultMaxReplyTokens},
		wantPaths: []string{"/v1/models/gpt-4o-mini"},
	}, {
		name:      "vision set by option",
		model:     "gpt-4o-mini",
		routes:    map[string]http.HandlerFunc{"/v1/models/gpt-4o-mini": reply(200, model)},
		opts:      Options{Vision: &yes},
		want:      &ModelInfo{Provider: "openai", Name: "gpt-4o-mini", Capabilities: Capabilities{Tools: true, Vision: true}, MaxReplyTokens: DefaultMaxReplyTokens},
		wantPaths: []string{"/v1/models/gpt-4o-mini"},
	}, {
		// No OpenAI-compatible server reports the window: only the option.
		name:      "context length set by option",
		model:     "gpt-4o-mini",
		routes:    map[string]http.HandlerFunc{"/v1/models/gpt-4o-mini": reply(200, model)},
		opts:      Options{ContextLength: 32768},
		want:      &ModelInfo{Provider: "openai", Name: "gpt-4o-mini", Capabilities: Capabilities{Tools: true}, ContextLength: 32768, MaxReplyTokens: DefaultMaxReplyTokens},
		wantPaths: []string{"/v1/models/gpt-4o-mini"},
	}, {
		name:  "unknown model",
		model: "gpt-9",
		routes: map[string]http.HandlerFunc{
			"/v1/models/gpt-9": reply(404, `{"error":{"message":"The model 'gpt-9' does not exist","type":"invalid_request_error","param":"model","code":"model_not_found"}}`),
			"/v1/models":       reply(200, list),
		},
		wantErr:   ErrUnknownModel,
		wantPaths: []string{"/v1/models/gpt-9", "/v1/models"},
	}, {
		name:      "server without /models/{id} that lists the model (llama.cpp)",
		model:     "qwen2.5-coder-7b",
		routes:    map[string]http.HandlerFunc{"/v1/models": reply(200, list)},
		want:      &ModelInfo{Provider: "openai", Name: "qwen2.5-coder-7b", Capabilities: Capabilities{Tools: true}, MaxReplyTokens: DefaultMaxReplyTokens},
		wantPaths: []string{"/v1/models/qwen2.5-coder-7b", "/v1/models"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, route(tt.routes))
			c := testClient(t, "openai", tt.model, s, tt.opts)
			info, err := c.Model(context.Background())
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				mustContain(t, err.Error(), tt.model, s.URL, "does not exist")
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, info); diff != "" {
				t.Errorf("info (-want +got):\n%s", diff)
			}
			var paths []string
			for _, r := range s.Requests() {
				paths = append(paths, r.Method+" "+r.Path)
			}
			var wantPaths []string
			for _, p := range tt.wantPaths {
				wantPaths = append(wantPaths, "GET "+p)
			}
			if diff := cmp.Diff(wantPaths, paths); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOpenAIVisionRule(t *testing.T) {
	no := false
	tests := []struct {
		model    string
		official bool
		override *bool
		want     bool
	}{
		{"gpt-4o-mini", true, nil, true},
		{"gpt-4.1-nano", true, nil, true},
		{"gpt-5", true, nil, true},
		{"o4-mini", true, nil, true},
		{"o3", true, nil, true},
		{"o3-mini", true, nil, false},
		{"gpt-4o-audio-preview", true, nil, false},
		{"gpt-4o-mini-search-preview", true, nil, false},
		{"gpt-3.5-turbo", true, nil, false},
		{"gpt-4o", false, nil, false}, // same name elsewhere: unknown, so no
		{"gpt-4o", true, &no, false},
	}
	for _, tt := range tests {
		c := &openaiClient{model: tt.model, official: tt.official, vision: tt.override}
		if got := c.openaiVision(); got != tt.want {
			t.Errorf("vision(%s, official=%v, override=%v) = %v, want %v", tt.model, tt.official, tt.override, got, tt.want)
		}
	}
}

// rewrite sends every request to s, whatever its URL says.
type rewrite struct{ s *server }

func (r rewrite) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host = "http", r.s.Listener.Addr().String()
	return http.DefaultTransport.RoundTrip(req)
}

// The key comes from Options, else from the variable that fits the server:
// OLLAMA_API_KEY for ollama.com, OPENAI_API_KEY elsewhere. Without one the
// request goes out unauthenticated (local servers need none), and a 401
// names the variable to set.
func TestOpenAIKey(t *testing.T) {
	tests := []struct {
		name, base, optKey, openaiEnv, ollamaEnv string
		wantAuth                                 string
		wantHint                                 string
	}{
		{name: "option", base: "https://api.openai.com/v1", optKey: "sk-opt", openaiEnv: "sk-env", wantAuth: "Bearer sk-opt", wantHint: "check the API key in OPENAI_API_KEY"},
		{name: "OPENAI_API_KEY", base: "https://api.openai.com/v1", openaiEnv: "sk-env", ollamaEnv: "ol-env", wantAuth: "Bearer sk-env", wantHint: "check the API key in OPENAI_API_KEY"},
		{name: "OLLAMA_API_KEY on ollama.com", base: "https://ollama.com/v1", openaiEnv: "sk-env", ollamaEnv: "ol-env", wantAuth: "Bearer ol-env", wantHint: "check the API key in OLLAMA_API_KEY"},
		{name: "no key", base: "http://localhost:8080/v1", wantHint: "no API key was given: set OPENAI_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("OPENAI_API_KEY", tt.openaiEnv)
			t.Setenv("OLLAMA_API_KEY", tt.ollamaEnv)
			s := newServer(t, reply(401, `{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}`))
			c, err := New("openai:gpt-oss:120b", Options{BaseURL: tt.base, APIKey: tt.optKey, HTTPClient: &http.Client{Transport: rewrite{s}}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Chat(context.Background(), hello(), nil)
			if !errors.Is(err, ErrUnauthorized) {
				t.Fatalf("err = %v, want ErrUnauthorized", err)
			}
			mustContain(t, err.Error(), tt.base, tt.wantHint)
			got := s.Requests()
			if len(got) != 1 {
				t.Fatalf("server saw %d requests, want 1", len(got))
			}
			if auth := got[0].Header.Get("Authorization"); auth != tt.wantAuth {
				t.Errorf("Authorization = %q, want %q", auth, tt.wantAuth)
			}
		})
	}
}

// api.openai.com gets max_completion_tokens (its reasoning models refuse
// max_tokens); other servers get max_tokens, which they all know.
func TestOpenAIMaxTokens(t *testing.T) {
	for base, field := range map[string]string{
		"https://api.openai.com/v1": "max_completion_tokens",
		"http://localhost:8080/v1":  "max_tokens",
	} {
		t.Run(base, func(t *testing.T) {
			s := newServer(t, okStep("openai"))
			c, err := New("openai:m", Options{BaseURL: base, APIKey: "k", HTTPClient: &http.Client{Transport: rewrite{s}}})
			if err != nil {
				t.Fatal(err)
			}
			req := hello()
			req.MaxTokens = 300
			if _, err := c.Chat(context.Background(), req, nil); err != nil {
				t.Fatal(err)
			}
			body := s.JSON(t, 0)
			if body[field] != 300.0 {
				t.Errorf("%s = %v, want 300 (body %v)", field, body[field], body)
			}
			other := map[string]string{"max_tokens": "max_completion_tokens", "max_completion_tokens": "max_tokens"}[field]
			if _, sent := body[other]; sent {
				t.Errorf("%s sent too", other)
			}
		})
	}
}

// Request.ContextWindow is Ollama's: an OpenAI-compatible request carries
// no trace of it.
func TestOpenAIIgnoresContextWindow(t *testing.T) {
	s := newServer(t, okStep("openai"))
	req := hello()
	req.ContextWindow = 16384
	if _, err := testClient(t, "openai", "m", s, Options{}).Chat(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	body := s.JSON(t, 0)
	for _, key := range []string{"options", "num_ctx", "context_window"} {
		if v, sent := body[key]; sent {
			t.Errorf("sent %s = %v", key, v)
		}
	}
}

// A reply cut by the token limit says so.
func TestOpenAITruncated(t *testing.T) {
	for reason, want := range map[string]bool{"length": true, "stop": false} {
		end := `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"` + reason + `"}],"usage":null}`
		s := newServer(t, sse(openaiHello, end, openaiUsage))
		resp, err := testClient(t, "openai", "m", s, Options{}).Chat(context.Background(), hello(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Truncated() != want {
			t.Errorf("finish_reason %s: Truncated() = %v, want %v", reason, resp.Truncated(), want)
		}
	}
}
