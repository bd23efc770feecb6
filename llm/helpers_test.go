package llm

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
)

// server is an httptest server scripted per request: request i is answered
// by steps[i] (the last step answers the rest). It keeps what it received.
type server struct {
	*httptest.Server
	mu    sync.Mutex
	got   []received
	steps []http.HandlerFunc
}

// received is one request as the server saw it.
type received struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

func newServer(t *testing.T, steps ...http.HandlerFunc) *server {
	t.Helper()
	s := &server{steps: steps}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.got = append(s.got, received{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		step := s.steps[min(len(s.got), len(s.steps))-1]
		s.mu.Unlock()
		step(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) requests() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.got...)
}

// json decodes the body of request i.
func (s *server) json(t *testing.T, i int) map[string]any {
	t.Helper()
	got := s.requests()
	if i >= len(got) {
		t.Fatalf("server saw %d requests, want at least %d", len(got), i+1)
	}
	var m map[string]any
	if err := json.Unmarshal(got[i].Body, &m); err != nil {
		t.Fatalf("request %d body is not JSON: %v\n%s", i, err, got[i].Body)
	}
	return m
}

// route answers by path; unknown paths get 404 page not found.
func route(routes map[string]http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if h, ok := routes[r.URL.Path]; ok {
			h(w, r)
			return
		}
		http.NotFound(w, r)
	}
}

// ndjson streams lines the way Ollama's /api/chat does.
func ndjson(lines ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		for _, l := range lines {
			fmt.Fprintln(w, l)
			w.(http.Flusher).Flush()
		}
	}
}

// sse streams data events the way OpenAI's /v1/chat/completions does,
// ending with [DONE].
func sse(events ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range append(events, "[DONE]") {
			fmt.Fprintf(w, "data: %s\n\n", e)
			w.(http.Flusher).Flush()
		}
	}
}

// reply answers with a status, a JSON body and header pairs.
func reply(status int, body string, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// hangUp closes the connection without a response.
func hangUp(w http.ResponseWriter, r *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	conn.Close()
}

// dropAfter starts a 200 stream with partial, then closes the connection.
func dropAfter(contentType, partial string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		io.WriteString(w, partial)
		w.(http.Flusher).Flush()
		hangUp(w, r)
	}
}

// hang answers only when the client gives up.
func hang(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

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
