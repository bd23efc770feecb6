package llm

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Both providers retry the same failures the same way; what the server saw
// (how many requests) is the proof.
func TestRetries(t *testing.T) {
	openaiErr := func(msg, typ, code string) string {
		return `{"error":{"message":"` + msg + `","type":"` + typ + `","param":null,"code":"` + code + `"}}`
	}
	type want struct {
		requests int
		kind     error    // nil: success unless generic is set
		generic  bool     // an *Error of no kind
		status   int      // the Error's StatusCode
		contains []string // substrings of the error
	}
	tests := []struct {
		name     string
		provider string
		steps    func(provider string) []http.HandlerFunc
		want     want
	}{
		{name: "429 with Retry-After 0, then ok",
			steps: func(p string) []http.HandlerFunc {
				return []http.HandlerFunc{reply(429, `{"error":"too many requests"}`, "Retry-After", "0"), okStep(p)}
			},
			want: want{requests: 2}},
		{name: "503 twice, then ok",
			steps: func(p string) []http.HandlerFunc {
				return []http.HandlerFunc{reply(503, `{"error":"server busy"}`), reply(503, ``), okStep(p)}
			},
			want: want{requests: 3}},
		{name: "connection closed before a response, then ok",
			steps: func(p string) []http.HandlerFunc { return []http.HandlerFunc{hangUp, okStep(p)} },
			want:  want{requests: 2}},
		{name: "connection closed mid-stream, then ok",
			steps: func(p string) []http.HandlerFunc { return []http.HandlerFunc{partialStep(p), okStep(p)} },
			want:  want{requests: 2}},
		{name: "400 is not retried",
			steps: func(p string) []http.HandlerFunc {
				return []http.HandlerFunc{reply(400, `{"error":"invalid options"}`), okStep(p)}
			},
			want: want{requests: 1, generic: true, status: 400}},
		{name: "429 until the retries run out",
			steps: func(p string) []http.HandlerFunc {
				return []http.HandlerFunc{reply(429, `{"error":"slow down"}`, "Retry-After", "0")}
			},
			want: want{requests: 3, kind: ErrRateLimited, status: 429, contains: []string{"after 3 attempts"}}},
		{name: "401", provider: "openai",
			steps: func(p string) []http.HandlerFunc {
				return []http.HandlerFunc{reply(401, openaiErr("Incorrect API key provided: sk-test.", "invalid_request_error", "invalid_api_key"))}
			},
			want: want{requests: 1, kind: ErrUnauthorized, status: 401, contains: []string{"OPENAI_API_KEY", "Incorrect API key"}}},
		{name: "401", provider: "ollama",
			steps: func(p string) []http.HandlerFunc {
				return []http.HandlerFunc{reply(401, `{"error":"unauthorized","signin_url":"https://ollama.com/connect?key=abc"}`)}
			},
			want: want{requests: 1, kind: ErrUnauthorized, status: 401, contains: []string{"ollama signin", "https://ollama.com/connect?key=abc"}}},
		{name: "404 model", provider: "openai",
			steps: func(p string) []http.HandlerFunc {
				return []http.HandlerFunc{reply(404, openaiErr("The model `qwen2.5-coder:7b` does not exist", "invalid_request_error", "model_not_found"))}
			},
			want: want{requests: 1, kind: ErrUnknownModel, status: 404, contains: []string{"does not exist", "/v1/models"}}},
		{name: "404 model", provider: "ollama",
			steps: func(p string) []http.HandlerFunc {
				return []http.HandlerFunc{reply(404, `{"error":"model 'qwen2.5-coder:7b' not found"}`)}
			},
			want: want{requests: 1, kind: ErrUnknownModel, status: 404, contains: []string{"not found", "ollama pull qwen2.5-coder:7b"}}},
		{name: "429 insufficient_quota is not retried", provider: "openai",
			steps: func(p string) []http.HandlerFunc {
				return []http.HandlerFunc{reply(429, openaiErr("You exceeded your current quota", "insufficient_quota", "insufficient_quota"))}
			},
			want: want{requests: 1, kind: ErrRateLimited, status: 429, contains: []string{"billing"}}},
	}
	for _, tt := range tests {
		for _, provider := range []string{"ollama", "openai"} {
			if tt.provider != "" && tt.provider != provider {
				continue
			}
			t.Run(provider+"/"+tt.name, func(t *testing.T) {
				s := newServer(t, tt.steps(provider)...)
				c := testClient(t, provider, "qwen2.5-coder:7b", s, Options{MaxRetries: 2})
				resp, err := c.Chat(context.Background(), hello(), nil)
				if n := len(s.Requests()); n != tt.want.requests {
					t.Errorf("server saw %d requests, want %d", n, tt.want.requests)
				}
				if tt.want.kind == nil && !tt.want.generic {
					if err != nil {
						t.Fatal(err)
					}
					if resp.Message.Content != "hello" {
						t.Errorf("content = %q, want hello", resp.Message.Content)
					}
					return
				}
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("err = %v (%T), want *Error", err, err)
				}
				if e.Kind != tt.want.kind || e.StatusCode != tt.want.status {
					t.Errorf("kind, status = %v, %d; want %v, %d", e.Kind, e.StatusCode, tt.want.kind, tt.want.status)
				}
				mustContain(t, err.Error(), append(tt.want.contains, s.URL, "qwen2.5-coder:7b")...)
			})
		}
	}
}

// countingTransport counts the connections a client tried.
type countingTransport struct{ n atomic.Int32 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// A closed port on this machine is ErrUnreachable at the first attempt
// (nothing listens there; retrying would only make the user wait), naming
// the host and what to do.
func TestUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	for _, tt := range []struct{ spec, hint string }{
		{"ollama:qwen2.5-coder:7b", "ollama serve"},
		{"openai:gpt-4o-mini", "OPENAI_BASE_URL"},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			tr := &countingTransport{}
			c, err := New(tt.spec, Options{OllamaHost: addr, BaseURL: "http://" + addr + "/v1", APIKey: "k",
				RetryBaseDelay: time.Millisecond, MaxRetries: 3, HTTPClient: &http.Client{Transport: tr}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Chat(context.Background(), hello(), nil)
			if !errors.Is(err, ErrUnreachable) {
				t.Fatalf("err = %v, want ErrUnreachable", err)
			}
			if n := tr.n.Load(); n != 1 {
				t.Errorf("tried %d times, want 1: a refused local port is not retried", n)
			}
			mustContain(t, err.Error(), addr, "connection refused", tt.hint)
			if _, err := c.Model(context.Background()); !errors.Is(err, ErrUnreachable) {
				t.Errorf("Model: err = %v, want ErrUnreachable", err)
			}
		})
	}
}

// A connection refused elsewhere (a server restarting behind a proxy, a
// load balancer between instances) is retried; one refused on this
// machine is not.
func TestRefusedRetried(t *testing.T) {
	refused := func(addr string) error {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		return &url.Error{Op: "Post", URL: "http://" + addr, Err: &net.OpError{Op: "dial", Net: "tcp", Addr: a,
			Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}}
	}
	for addr, wantRetry := range map[string]bool{"127.0.0.1:11434": false, "[::1]:11434": false, "10.1.2.3:11434": true, "192.0.2.7:8000": true} {
		failed, retry := networkFailure(refused(addr))
		if !failed || retry != wantRetry {
			t.Errorf("%s: failed, retry = %v, %v; want true, %v", addr, failed, retry, wantRetry)
		}
	}
}

// Cancelling the context while waiting to retry returns at once, even when
// the server asked for a long wait.
func TestCancelDuringBackoff(t *testing.T) {
	for _, provider := range []string{"ollama", "openai"} {
		t.Run(provider, func(t *testing.T) {
			s := newServer(t, reply(503, `{"error":"busy"}`, "Retry-After", "30"))
			c := testClient(t, provider, "m", s, Options{})
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			start := time.Now()
			_, err := c.Chat(ctx, hello(), nil)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("returned after %v", d)
			}
			if n := len(s.Requests()); n != 1 {
				t.Errorf("server saw %d requests, want 1", n)
			}
			mustContain(t, err.Error(), "while waiting to retry", "503")
		})
	}
}

func TestBackoff(t *testing.T) {
	p := policy{baseDelay: 100 * time.Millisecond}
	for n, want := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 30 * time.Second} {
		attempt := n + 1
		if attempt == 4 {
			attempt = 20 // far past the cap
		}
		for range 50 {
			if d := p.backoff(attempt, &record{}); d < want/2 || d > want {
				t.Fatalf("backoff(%d) = %v, want in [%v, %v]", attempt, d, want/2, want)
			}
		}
	}
	if d := p.backoff(1, &record{retryAfter: 5 * time.Minute, hasRetryAfter: true}); d != maxRetryAfter {
		t.Errorf("Retry-After 5m gives %v, want the cap %v", d, maxRetryAfter)
	}
	if d := p.backoff(3, &record{hasRetryAfter: true}); d != 0 {
		t.Errorf("Retry-After 0 gives %v, want 0", d)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"7", 7 * time.Second, true},
		{"Wed, 01 Jan 2025 12:00:10 GMT", 10 * time.Second, true},
		{"Wed, 01 Jan 2025 11:00:00 GMT", 0, true},
		{"-3", 0, false},
		{"soon", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseRetryAfter(tt.in, now)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}
