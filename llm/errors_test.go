package llm

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// replyAs answers with a status, a content type and a body as it is.
func replyAs(status int, contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

const nginx413 = "<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n</body>\r\n</html>\r\n"

// The server's reason reaches the error, whatever shape its body has, on
// both providers, clipped when long.
func TestErrorBodies(t *testing.T) {
	long := strings.Repeat("the prompt is far too long for this model; ", 20)
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		want        string // in the error
		notWant     string // not in the error
	}{
		{"OpenAI shape", 400, "application/json",
			`{"error":{"message":"Invalid value for 'temperature'","type":"invalid_request_error","param":"temperature","code":null}}`,
			"Invalid value for 'temperature'", ""},
		{"top-level message (vLLM)", 400, "application/json",
			`{"object":"error","message":"This model's maximum context length is 8192 tokens.","type":"BadRequestError","param":null,"code":400}`,
			"maximum context length is 8192 tokens", ""},
		{"error as text (Ollama, LM Studio)", 400, "application/json",
			`{"error":"invalid options: num_ctxx"}`, "invalid options: num_ctxx", ""},
		{"detail as text (FastAPI)", 400, "application/json",
			`{"detail":"Model not loaded"}`, "Model not loaded", ""},
		{"detail as validation errors (FastAPI)", 422, "application/json",
			`{"detail":[{"type":"missing","loc":["body","messages"],"msg":"Field required","input":{}}]}`,
			"body.messages: Field required", ""},
		{"HTML proxy page", 413, "text/html", nginx413, "413 Request Entity Too Large", "<"},
		{"HTML without a title", 400, "text/html",
			"<!DOCTYPE html><html><body><script>var x=1;</script><p>Request blocked by the gateway &amp; logged.</p></body></html>",
			"Request blocked by the gateway & logged.", "var x"},
		{"plain text", 400, "text/plain", "Bad Request: model field is required\n", "Bad Request: model field is required", ""},
		{"long text is clipped", 400, "application/json", `{"error":"` + long + `"}`, "the prompt is far too long", long[:400]},
	}
	for _, tt := range tests {
		for _, provider := range []string{"ollama", "openai"} {
			t.Run(provider+"/"+tt.name, func(t *testing.T) {
				s := newServer(t, replyAs(tt.status, tt.contentType, tt.body))
				c := testClient(t, provider, "m", s, Options{})
				_, err := c.Chat(context.Background(), hello(), nil)
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("err = %v, want *Error", err)
				}
				if e.StatusCode != tt.status {
					t.Errorf("status %d, want %d", e.StatusCode, tt.status)
				}
				mustContain(t, err.Error(), tt.want)
				if tt.notWant != "" && strings.Contains(err.Error(), tt.notWant) {
					t.Errorf("%q\ncontains %q", err, tt.notWant)
				}
				if n := len(err.Error()); n > 700 {
					t.Errorf("error is %d bytes long: %q", n, err)
				}
			})
		}
	}
}

func TestServerReasonClip(t *testing.T) {
	got := serverReason(strings.Repeat("é", 1000))
	if n := len([]rune(got)); n > maxReason+1 || !strings.HasSuffix(got, "…") {
		t.Errorf("clipped to %d runes: %q", n, got)
	}
	// The reason is shown on terminals: a server's control sequences are
	// not passed on.
	if got := serverReason("{\"error\":\"model \\u001b]0;pwned\\u0007not found\\u001b[2J\"}"); got != "model ]0;pwnednot found[2J" {
		t.Errorf("reason with control characters: %q", got)
	}
}

// A server that refuses tool calling is ErrToolsUnsupported, not retried,
// in the shapes real servers send.
func TestToolsUnsupported(t *testing.T) {
	tests := []struct {
		name, provider string
		status         int
		body           string
		want           bool
	}{
		{"Ollama", "ollama", 400, `{"error":"registry.ollama.ai/library/gemma2:latest does not support tools"}`, true},
		{"Ollama's OpenAI endpoint", "openai", 400, `{"error":{"message":"registry.ollama.ai/library/gemma2:latest does not support tools","type":"api_error","param":null,"code":null}}`, true},
		{"vLLM without auto tool choice", "openai", 400, `{"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}`, true},
		{"tools not supported", "openai", 400, `{"error":{"message":"\"tools\" is not supported","type":"invalid_request_error","param":"tools","code":null}}`, true},
		{"tool_choice not supported", "openai", 400, `{"error":"tool_choice 'auto' is not supported by this model"}`, true},
		{"llama.cpp without --jinja", "openai", 400, `{"error":{"code":400,"message":"tools param requires --jinja flag","type":"invalid_request_error"}}`, true},
		{"a tool message error is not a refusal", "openai", 400, `{"error":{"message":"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.","type":"invalid_request_error","param":"messages.[2].role","code":null}}`, false},
		{"a 500 is not a refusal", "ollama", 500, `{"error":"model does not support tools right now"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, reply(tt.status, tt.body), okStep(tt.provider))
			c := testClient(t, tt.provider, "m", s, Options{MaxRetries: 1})
			_, err := c.Chat(context.Background(), hello(), nil)
			if got := errors.Is(err, ErrToolsUnsupported); got != tt.want {
				t.Fatalf("errors.Is(%v, ErrToolsUnsupported) = %v, want %v", err, got, tt.want)
			}
			if tt.want {
				if n := len(s.Requests()); n != 1 {
					t.Errorf("server saw %d requests, want 1", n)
				}
				mustContain(t, err.Error(), "tool", "HTTP 400")
			}
		})
	}
}
