package agent_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/llm"
)

// call is a tool call a scripted model makes; Args is sent as is (OpenAI)
// or parsed into an object (Ollama).
type call struct{ Name, Args string }

// turn is one scripted model reply: text, tool calls, or an HTTP failure.
type turn struct {
	Text   string
	Calls  []call
	Status int // non-zero: answer with this HTTP status instead
	// Finish, if set, is the finish reason sent ("length": cut off by the
	// token limit).
	Finish string
}

func code(src string) call {
	b, _ := json.Marshal(map[string]string{"code": src})
	return call{"run_python", string(b)}
}

func final(answers map[string]any, summary string) call {
	b, _ := json.Marshal(map[string]any{"answers": answers, "summary": summary})
	return call{"final_answer", string(b)}
}

// fakeModel is an httptest server speaking Ollama's /api/chat (NDJSON) or
// OpenAI's /v1/chat/completions (SSE), replying with turns in order (the
// last turn repeats), and keeping every chat request body.
type fakeModel struct {
	*httptest.Server
	provider string
	mu       sync.Mutex
	turns    []turn
	chats    []map[string]any
	caps     string // Ollama capabilities JSON
	// wait, if set, is called before each chat reply (to simulate latency
	// or block until a test cancels).
	wait func(r *http.Request)
	// refuseTools makes the server answer any request that offers tools
	// with HTTP 400, the way servers without tool calling do; refused
	// counts those requests.
	refuseTools bool
	refused     int
}

func newFakeModel(t testing.TB, provider string, turns ...turn) *fakeModel {
	f := &fakeModel{provider: provider, turns: turns, caps: `["completion","tools"]`}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeModel) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/api/show":
		fmt.Fprintf(w, `{"modelfile":"FROM x","details":{"family":"qwen2"},"model_info":{},"capabilities":%s}`, f.caps)
		return
	case "/api/tags":
		io.WriteString(w, `{"models":[{"name":"qwen2.5-coder:7b","model":"qwen2.5-coder:7b","size":1,"digest":"sha256:feedface"}]}`)
		return
	case "/v1/models/gpt-4o-mini":
		io.WriteString(w, `{"id":"gpt-4o-mini","object":"model","created":1,"owned_by":"openai"}`)
		return
	case "/api/chat", "/v1/chat/completions":
	default:
		http.NotFound(w, r)
		return
	}
	var req map[string]any
	_ = json.Unmarshal(body, &req)
	f.mu.Lock()
	if _, hasTools := req["tools"]; hasTools && f.refuseTools {
		f.refused++
		f.mu.Unlock()
		w.WriteHeader(http.StatusBadRequest)
		if f.provider == "ollama" {
			io.WriteString(w, `{"error":"registry.ollama.ai/library/qwen2.5-coder:7b does not support tools"}`)
		} else {
			io.WriteString(w, `{"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}`)
		}
		return
	}
	f.chats = append(f.chats, req)
	tn := f.turns[min(len(f.chats), len(f.turns))-1]
	wait := f.wait
	f.mu.Unlock()
	if wait != nil {
		wait(r)
	}
	if tn.Status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(tn.Status)
		io.WriteString(w, `{"error":{"message":"scripted failure","type":"test"}}`)
		return
	}
	if f.provider == "ollama" {
		f.ollama(w, tn)
	} else {
		f.openai(w, tn)
	}
}

func (f *fakeModel) ollama(w http.ResponseWriter, tn turn) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	msg := map[string]any{"role": "assistant", "content": tn.Text}
	var calls []any
	for _, c := range tn.Calls {
		var args any
		if err := json.Unmarshal([]byte(c.Args), &args); err != nil {
			args = map[string]any{"code": c.Args}
		}
		calls = append(calls, map[string]any{"function": map[string]any{"name": c.Name, "arguments": args}})
	}
	if calls != nil {
		msg["tool_calls"] = calls
	}
	line, _ := json.Marshal(map[string]any{"model": "qwen2.5-coder:7b", "created_at": "2025-01-01T00:00:00Z", "message": msg, "done": false})
	fmt.Fprintf(w, "%s\n", line)
	finish := tn.Finish
	if finish == "" {
		finish = "stop"
	}
	fmt.Fprintf(w, `{"model":"qwen2.5-coder:7b","created_at":"2025-01-01T00:00:01Z","message":{"role":"assistant","content":""},"done":true,"done_reason":%q,"total_duration":1000,"prompt_eval_count":100,"eval_count":20}`+"\n", finish)
}

func (f *fakeModel) openai(w http.ResponseWriter, tn turn) {
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta any, finish any) {
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o-mini",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	f.mu.Lock()
	n := len(f.chats)
	f.mu.Unlock()
	chunk(map[string]any{"role": "assistant", "content": tn.Text}, nil)
	for i, c := range tn.Calls {
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": fmt.Sprintf("call_%d_%d", n, i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": c.Args}}}}, nil)
	}
	finish := "stop"
	if len(tn.Calls) > 0 {
		finish = "tool_calls"
	}
	if tn.Finish != "" {
		finish = tn.Finish
	}
	chunk(map[string]any{}, finish)
	fmt.Fprint(w, `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120}}`+"\n\n")
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// client returns an llm client for the fake server.
func (f *fakeModel) client(t testing.TB, vision bool) llm.Client {
	t.Helper()
	opts := llm.Options{RetryBaseDelay: time.Millisecond, Vision: &vision}
	spec := "ollama:qwen2.5-coder:7b"
	if f.provider == "ollama" {
		opts.OllamaHost = f.URL
	} else {
		spec = "openai:gpt-4o-mini"
		opts.BaseURL = f.URL + "/v1"
		opts.APIKey = "sk-test"
	}
	c, err := llm.New(spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *fakeModel) requests() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.chats...)
}

// messages returns the messages of chat request i.
func (f *fakeModel) messages(t testing.TB, i int) []map[string]any {
	t.Helper()
	reqs := f.requests()
	if i >= len(reqs) {
		t.Fatalf("the model got %d requests, want at least %d", len(reqs), i+1)
	}
	var out []map[string]any
	for _, m := range reqs[i]["messages"].([]any) {
		out = append(out, m.(map[string]any))
	}
	return out
}

// checkProtocol asserts on every request: each assistant tool call is
// answered by exactly one tool message right after it; images only in user
// messages (OpenAI: content parts; Ollama: images); temperature 0 and a
// seed.
func (f *fakeModel) checkProtocol(t testing.TB) {
	t.Helper()
	for i, req := range f.requests() {
		var temp, seed any
		if f.provider == "ollama" {
			o, _ := req["options"].(map[string]any)
			temp, seed = o["temperature"], o["seed"]
		} else {
			temp, seed = req["temperature"], req["seed"]
		}
		if temp != 0.0 || seed == nil {
			t.Errorf("request %d: temperature %v, seed %v; want 0 and a seed", i, temp, seed)
		}
		msgs := f.messages(t, i)
		if msgs[0]["role"] != "system" {
			t.Errorf("request %d: first message is %v, want system", i, msgs[0]["role"])
		}
		open := map[string]bool{}
		for j, m := range msgs {
			role := m["role"]
			if len(open) > 0 && role != "tool" {
				t.Errorf("request %d message %d (%v): tool calls %v unanswered", i, j, role, open)
			}
			if role != "user" {
				if _, has := m["images"]; has {
					t.Errorf("request %d message %d (%v) has images", i, j, role)
				}
				if parts, ok := m["content"].([]any); ok {
					t.Errorf("request %d message %d (%v) has content parts %v", i, j, role, parts)
				}
			}
			if role == "tool" {
				if _, isText := m["content"].(string); !isText {
					t.Errorf("request %d message %d: tool content is not text", i, j)
				}
			}
			for _, tc := range asList(m["tool_calls"]) {
				id, _ := tc.(map[string]any)["id"].(string)
				if f.provider == "ollama" && id == "" {
					continue
				}
				open[id] = true
				if fn := tc.(map[string]any)["function"].(map[string]any); f.provider == "openai" {
					if _, isString := fn["arguments"].(string); !isString {
						t.Errorf("request %d: arguments are not a JSON string: %v", i, fn["arguments"])
					}
				}
			}
			if role == "tool" {
				id, _ := m["tool_call_id"].(string)
				if f.provider == "openai" && !open[id] {
					t.Errorf("request %d message %d: tool message for %q answers no open call", i, j, id)
				}
				delete(open, id)
				if f.provider == "ollama" {
					open = map[string]bool{}
				}
			}
		}
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// toolNames are the tools request i offered.
func (f *fakeModel) toolNames(t testing.TB, i int) []string {
	var names []string
	for _, tl := range asList(f.requests()[i]["tools"]) {
		names = append(names, tl.(map[string]any)["function"].(map[string]any)["name"].(string))
	}
	return names
}

// lastText is the text content of the last message of request i with role.
func (f *fakeModel) lastText(t testing.TB, i int, role string) string {
	msgs := f.messages(t, i)
	for j := len(msgs) - 1; j >= 0; j-- {
		if msgs[j]["role"] == role {
			return contentText(msgs[j]["content"])
		}
	}
	return ""
}

func contentText(c any) string {
	switch c := c.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, p := range c {
			if s, ok := p.(map[string]any)["text"].(string); ok {
				b.WriteString(s)
			}
		}
		return b.String()
	}
	return ""
}
