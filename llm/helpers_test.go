package llm

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/llm/llmtest"
)

// The scripted server and its handlers are llmtest's; these short names
// are this package's.
type server = llmtest.Server

var (
	newServer = llmtest.NewServer
	route     = llmtest.Route
	ndjson    = llmtest.NDJSON
	sse       = llmtest.SSE
	reply     = llmtest.Reply
	dropAfter = llmtest.DropAfter
	hangUp    = llmtest.HangUp
	hang      = llmtest.Hang
)

// testClient returns a client of provider ("ollama" or "openai") for the
// model at s, with retries that wait a millisecond.
func testClient(t *testing.T, provider, model string, s *server, opts Options) Client {
	t.Helper()
	switch provider {
	case "ollama":
		opts.OllamaHost = s.URL
	case "openai":
		opts.BaseURL = s.URL + "/v1"
		if opts.APIKey == "" {
			opts.APIKey = "sk-test"
		}
	}
	if opts.RetryBaseDelay == 0 {
		opts.RetryBaseDelay = time.Millisecond
	}
	c, err := New(provider+":"+model, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Canned replies in each provider's wire format.
const (
	ollamaHello = `{"model":"qwen2.5-coder:7b","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"hello"},"done":false}`
	ollamaDone  = `{"model":"qwen2.5-coder:7b","created_at":"2025-01-01T00:00:01Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":1000,"prompt_eval_count":12,"eval_count":3}`
	openaiHello = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"role":"assistant","content":"hello"},"logprobs":null,"finish_reason":null}],"usage":null}`
	openaiStop  = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}`
	openaiUsage = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini-2024-07-18","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}`
)

// okStep is a successful "hello" reply for provider.
func okStep(provider string) http.HandlerFunc {
	if provider == "ollama" {
		return ndjson(ollamaHello, ollamaDone)
	}
	return sse(openaiHello, openaiStop, openaiUsage)
}

// partialStep is the start of a reply, as the connection drops under it.
func partialStep(provider string) http.HandlerFunc {
	if provider == "ollama" {
		return dropAfter("application/x-ndjson", ollamaHello+"\n")
	}
	return dropAfter("text/event-stream", "data: "+openaiHello+"\n\n")
}

func hello() Request {
	return Request{Messages: []Message{{Role: RoleUser, Content: "say hello"}}}
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(t *testing.T, a, b any) bool {
	t.Helper()
	norm := func(v any) string {
		var raw []byte
		switch v := v.(type) {
		case string:
			raw = []byte(v)
		case json.RawMessage:
			raw = v
		default:
			var err error
			if raw, err = json.Marshal(v); err != nil {
				t.Fatal(err)
			}
		}
		var x any
		if err := json.Unmarshal(raw, &x); err != nil {
			t.Fatalf("not JSON: %v: %s", err, raw)
		}
		out, _ := json.Marshal(x)
		return string(out)
	}
	return norm(a) == norm(b)
}

func mustContain(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%q\ndoes not contain %q", s, sub)
		}
	}
}
