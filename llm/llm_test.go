package llm

import (
	"context"
	"testing"
)

func TestNewSpec(t *testing.T) {
	tests := []struct {
		spec      string
		wantModel string   // on success
		wantErr   []string // substrings of the error
	}{
		{spec: "ollama:qwen2.5-coder:7b", wantModel: "qwen2.5-coder:7b"},
		{spec: "openai:gpt-4o-mini", wantModel: "gpt-4o-mini"},
		{spec: "gpt-4o", wantErr: []string{`"gpt-4o"`, "provider:model", "ollama, openai"}},
		{spec: "bogus:x", wantErr: []string{`unknown provider "bogus"`, "known providers: ollama, openai"}},
		{spec: "qwen2.5-coder:7b", wantErr: []string{`unknown provider "qwen2.5-coder"`, "ollama:qwen2.5-coder:7b"}},
		{spec: "ollama:", wantErr: []string{"no model name"}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			c, err := New(tt.spec, Options{})
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("New(%q) = %T, want an error", tt.spec, c)
				}
				mustContain(t, err.Error(), tt.wantErr...)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got string
			switch c := c.(type) {
			case *ollamaClient:
				got = c.model
			case *openaiClient:
				got = c.model
			}
			if got != tt.wantModel {
				t.Errorf("model = %q, want %q", got, tt.wantModel)
			}
		})
	}
}

func TestOllamaHost(t *testing.T) {
	tests := []struct{ in, want, wantErr string }{
		{in: "", want: "http://127.0.0.1:11434"},
		{in: "127.0.0.1:8080", want: "http://127.0.0.1:8080"},
		{in: "gpu-box", want: "http://gpu-box:11434"},
		{in: "0.0.0.0", want: "http://0.0.0.0:11434"},
		{in: ":11500", want: "http://127.0.0.1:11500"},
		{in: "[::1]:11434", want: "http://[::1]:11434"},
		{in: "http://gpu-box", want: "http://gpu-box:80"},
		{in: "https://gpu-box", want: "https://gpu-box:443"},
		{in: "https://example.com/ollama", want: "https://example.com:443/ollama"},
		{in: "ollama.com", want: "https://ollama.com:443"},
		{in: "ftp://gpu-box", wantErr: "http or https"},
		{in: "gpu-box:99999", wantErr: "bad port"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			u, err := ollamaHost(tt.in)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("ollamaHost(%q) = %v, want an error", tt.in, u)
				}
				mustContain(t, err.Error(), tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if u.String() != tt.want {
				t.Errorf("ollamaHost(%q) = %s, want %s", tt.in, u, tt.want)
			}
		})
	}
}

// A request that breaks the tool-call protocol is refused before anything
// is sent, the same way by both providers.
func TestInvalidRequestNotSent(t *testing.T) {
	call := func(id string) ToolCall { return ToolCall{ID: id, Name: "run_python", Arguments: `{"code":"1"}`} }
	asst := Message{Role: RoleAssistant, ToolCalls: []ToolCall{call("a"), call("b")}}
	user := Message{Role: RoleUser, Content: "q"}
	toolA := Message{Role: RoleTool, ToolCallID: "a", Content: "1"}
	toolB := Message{Role: RoleTool, ToolCallID: "b", Content: "1"}
	tests := []struct {
		name    string
		msgs    []Message
		wantErr string
	}{
		{"no messages", nil, "no messages"},
		{"image on a tool message", []Message{user, asst, toolA, {Role: RoleTool, ToolCallID: "b", Images: [][]byte{{1}}}}, "carries images"},
		{"image on an assistant message", []Message{user, {Role: RoleAssistant, Images: [][]byte{{1}}}}, "carries images"},
		{"a call left unanswered", []Message{user, asst, toolA}, "tool calls b unanswered"},
		{"chart before the tool messages", []Message{user, asst, {Role: RoleUser, Images: [][]byte{{1}}}, toolA, toolB}, "tool calls a, b have no tool message"},
		{"two tool messages for one call", []Message{user, asst, toolA, toolA, toolB}, `for "a" answers no open tool call`},
		{"tool message for no call", []Message{user, {Role: RoleTool, ToolCallID: "z"}}, `for "z" answers no open tool call`},
		{"duplicate call id", []Message{user, {Role: RoleAssistant, ToolCalls: []ToolCall{call("a"), call("a")}}}, "appears twice"},
		{"call without id", []Message{user, {Role: RoleAssistant, ToolCalls: []ToolCall{call("")}}}, "lacks its id"},
		{"unknown role", []Message{{Role: "developer", Content: "x"}}, `unknown role "developer"`},
	}
	for _, provider := range []string{"ollama", "openai"} {
		for _, tt := range tests {
			t.Run(provider+"/"+tt.name, func(t *testing.T) {
				s := newServer(t, okStep(provider))
				c := testClient(t, provider, "m", s, Options{})
				_, err := c.Chat(context.Background(), Request{Messages: tt.msgs}, nil)
				if err == nil {
					t.Fatal("Chat succeeded, want an invalid-request error")
				}
				mustContain(t, err.Error(), "invalid request", tt.wantErr)
				if n := len(s.Requests()); n != 0 {
					t.Errorf("server saw %d requests, want none", n)
				}
			})
		}
	}
	t.Run("tool schema not an object", func(t *testing.T) {
		s := newServer(t, okStep("openai"))
		c := testClient(t, "openai", "m", s, Options{})
		req := hello()
		req.Tools = []Tool{{Name: "run_python", Parameters: []byte(`[1]`)}}
		if _, err := c.Chat(context.Background(), req, nil); err == nil {
			t.Fatal("Chat succeeded, want an error")
		}
		if n := len(s.Requests()); n != 0 {
			t.Errorf("server saw %d requests, want none", n)
		}
	})
}
