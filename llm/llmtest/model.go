package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Turn is one scripted model reply: text, tool calls, or an HTTP failure.
type Turn struct {
	Text   string
	Calls  []Call
	Status int // non-zero: answer with this HTTP status instead
	// Finish, if set, is the finish reason sent ("length": cut off by the
	// token limit).
	Finish string
	// Endless: the reply never ends (EndlessChunks): text at full speed
	// and no finish reason, until the client hangs up.
	Endless bool
}

// The models a Model serves: Spec is what llm.New takes.
const (
	OllamaModel  = "qwen2.5-coder:7b"
	OllamaDigest = "sha256:feedface"
	OpenAIModel  = "gpt-4o-mini"
)

// Model is an httptest server speaking Ollama's /api/chat (NDJSON) or
// OpenAI's /v1/chat/completions (SSE), replying with turns in order (the
// last turn repeats), and keeping every chat request body.
type Model struct {
	*httptest.Server
	Provider string // "ollama" or "openai"
	// Caps is the capabilities /api/show reports (a JSON list).
	Caps string
	// Wait, if set, is called before each chat reply (to simulate latency
	// or block until a test cancels).
	Wait func(r *http.Request)
	// RefuseTools makes the server answer any request that offers tools
	// with HTTP 400, the way servers without tool calling do.
	RefuseTools bool
	// Conversations, if set, script conversations that run at once: a
	// request whose messages contain a key gets that conversation's turn
	// numbered by the assistant messages it carries (the last repeats),
	// whatever order the conversations' requests come in; other requests
	// get the turns in order.
	Conversations map[string][]Turn

	mu      sync.Mutex
	turns   []Turn
	chats   []map[string]any
	refused int
	endless []int // chunks written of each endless reply
}

// NewModel starts a scripted model server of provider ("ollama" or
// "openai"), closed when the test ends.
func NewModel(t testing.TB, provider string, turns ...Turn) *Model {
	m := &Model{Provider: provider, turns: turns, Caps: `["completion","tools"]`}
	m.Server = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.Close)
	return m
}

// Spec is the model spec for llm.New ("ollama:..." or "openai:...").
func (m *Model) Spec() string {
	if m.Provider == "ollama" {
		return "ollama:" + OllamaModel
	}
	return "openai:" + OpenAIModel
}

// OllamaHost and BaseURL are where llm's clients find the server (one is
// "": the other provider's).
func (m *Model) OllamaHost() string { return m.urlFor("ollama", "") }
func (m *Model) BaseURL() string    { return m.urlFor("openai", "/v1") }

func (m *Model) urlFor(provider, path string) string {
	if m.Provider != provider {
		return ""
	}
	return m.URL + path
}

// APIKey is the key an OpenAI client sends ("" for Ollama, which needs
// none).
func (m *Model) APIKey() string {
	if m.Provider == "openai" {
		return "sk-test"
	}
	return ""
}

// Refused counts the requests RefuseTools refused.
func (m *Model) Refused() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.refused
}

func (m *Model) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/api/show":
		OllamaShow(w, m.Caps)
		return
	case "/api/tags":
		OllamaTags(w, OllamaModel, OllamaDigest)
		return
	case "/v1/models/" + OpenAIModel:
		fmt.Fprintf(w, `{"id":%q,"object":"model","created":1,"owned_by":"openai"}`, OpenAIModel)
		return
	case "/api/chat", "/v1/chat/completions":
	default:
		http.NotFound(w, r)
		return
	}
	var req map[string]any
	_ = json.Unmarshal(body, &req)
	m.mu.Lock()
	if _, hasTools := req["tools"]; hasTools && m.RefuseTools {
		m.refused++
		m.mu.Unlock()
		RefuseTools(w, m.Provider)
		return
	}
	m.chats = append(m.chats, req)
	n := len(m.chats)
	tn, ok := m.conversationTurn(req)
	if !ok {
		tn = m.turns[min(n, len(m.turns))-1]
	}
	wait := m.Wait
	m.mu.Unlock()
	if wait != nil {
		wait(r)
	}
	if tn.Status != 0 {
		w.WriteHeader(tn.Status)
		io.WriteString(w, `{"error":{"message":"scripted failure","type":"test"}}`)
		return
	}
	if tn.Endless {
		model := map[string]string{"ollama": OllamaModel, "openai": OpenAIModel}[m.Provider]
		EndlessChunks(m.Provider, model, func(chunks int) {
			m.mu.Lock()
			m.endless = append(m.endless, chunks)
			m.mu.Unlock()
		})(w, r)
		return
	}
	if m.Provider == "ollama" {
		OllamaChat(w, OllamaModel, OllamaMessage(tn.Text, tn.Calls...), tn.Finish)
	} else {
		OpenAIChat(w, OpenAIModel, n, tn.Text, tn.Calls, tn.Finish)
	}
}

// conversationTurn is req's turn in the conversation whose key its user
// messages contain.
func (m *Model) conversationTurn(req map[string]any) (Turn, bool) {
	msgs := AsList(req["messages"])
	said := 0
	var user strings.Builder
	for _, msg := range msgs {
		mm, _ := msg.(map[string]any)
		switch mm["role"] {
		case "assistant":
			said++
		case "user":
			user.WriteString(ContentText(mm["content"]))
		}
	}
	for key, turns := range m.Conversations {
		if strings.Contains(user.String(), key) {
			return turns[min(said, len(turns)-1)], true
		}
	}
	return Turn{}, false
}

// Endless are the chunks written of each endless reply that has ended
// (the client hung up), in order.
func (m *Model) Endless() []int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]int(nil), m.endless...)
}

// Requests are the chat request bodies so far.
func (m *Model) Requests() []map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]map[string]any(nil), m.chats...)
}

// Messages returns the messages of chat request i.
func (m *Model) Messages(t testing.TB, i int) []map[string]any {
	t.Helper()
	reqs := m.Requests()
	if i >= len(reqs) {
		t.Fatalf("the model got %d requests, want at least %d", len(reqs), i+1)
	}
	var out []map[string]any
	for _, msg := range reqs[i]["messages"].([]any) {
		out = append(out, msg.(map[string]any))
	}
	return out
}

// CheckProtocol asserts on every request: each assistant tool call is
// answered by exactly one tool message right after it; images only in user
// messages (OpenAI: content parts; Ollama: images); temperature 0 and a
// seed.
func (m *Model) CheckProtocol(t testing.TB) {
	t.Helper()
	for i, req := range m.Requests() {
		var temp, seed any
		if m.Provider == "ollama" {
			o, _ := req["options"].(map[string]any)
			temp, seed = o["temperature"], o["seed"]
		} else {
			temp, seed = req["temperature"], req["seed"]
		}
		if temp != 0.0 || seed == nil {
			t.Errorf("request %d: temperature %v, seed %v; want 0 and a seed", i, temp, seed)
		}
		msgs := m.Messages(t, i)
		if msgs[0]["role"] != "system" {
			t.Errorf("request %d: first message is %v, want system", i, msgs[0]["role"])
		}
		open := map[string]bool{}
		for j, msg := range msgs {
			role := msg["role"]
			if len(open) > 0 && role != "tool" {
				t.Errorf("request %d message %d (%v): tool calls %v unanswered", i, j, role, open)
			}
			if role != "user" {
				if _, has := msg["images"]; has {
					t.Errorf("request %d message %d (%v) has images", i, j, role)
				}
				if parts, ok := msg["content"].([]any); ok {
					t.Errorf("request %d message %d (%v) has content parts %v", i, j, role, parts)
				}
			}
			if role == "tool" {
				if _, isText := msg["content"].(string); !isText {
					t.Errorf("request %d message %d: tool content is not text", i, j)
				}
			}
			for _, tc := range AsList(msg["tool_calls"]) {
				id, _ := tc.(map[string]any)["id"].(string)
				if m.Provider == "ollama" && id == "" {
					continue
				}
				open[id] = true
				if fn := tc.(map[string]any)["function"].(map[string]any); m.Provider == "openai" {
					if _, isString := fn["arguments"].(string); !isString {
						t.Errorf("request %d: arguments are not a JSON string: %v", i, fn["arguments"])
					}
				}
			}
			if role == "tool" {
				id, _ := msg["tool_call_id"].(string)
				if m.Provider == "openai" && !open[id] {
					t.Errorf("request %d message %d: tool message for %q answers no open call", i, j, id)
				}
				delete(open, id)
				if m.Provider == "ollama" {
					open = map[string]bool{}
				}
			}
		}
	}
}

// AsList is v as a JSON list (nil when it is not one).
func AsList(v any) []any {
	l, _ := v.([]any)
	return l
}

// ToolNames are the tools request i offered.
func (m *Model) ToolNames(t testing.TB, i int) []string {
	var names []string
	for _, tl := range AsList(m.Requests()[i]["tools"]) {
		names = append(names, tl.(map[string]any)["function"].(map[string]any)["name"].(string))
	}
	return names
}

// LastText is the text content of the last message of request i with role.
func (m *Model) LastText(t testing.TB, i int, role string) string {
	msgs := m.Messages(t, i)
	for j := len(msgs) - 1; j >= 0; j-- {
		if msgs[j]["role"] == role {
			return ContentText(msgs[j]["content"])
		}
	}
	return ""
}

// ContentText is a message's text: its content string, or its text parts.
func ContentText(c any) string {
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
