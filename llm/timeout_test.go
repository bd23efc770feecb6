package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// cancelSeen wraps a handler and closes the returned channel once the
// handler has seen its request cancelled: the client hung up, no
// connection or goroutine is left waiting on the server.
func cancelSeen(h http.HandlerFunc) (http.HandlerFunc, <-chan struct{}) {
	done := make(chan struct{}, 16)
	return func(w http.ResponseWriter, r *http.Request) {
		h(w, r)
		<-r.Context().Done()
		done <- struct{}{}
	}, done
}

func waitCancelled(t *testing.T, seen <-chan struct{}) {
	t.Helper()
	select {
	case <-seen:
	case <-time.After(10 * time.Second):
		t.Fatal("the server's handler never saw the request cancelled: the connection was left open")
	}
}

// headersOnly starts a 200 reply and then sends nothing: a model server
// that accepted the request and is still loading the model.
func headersOnly(contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
	}
}

// A server that does not start answering hits the first-token timeout:
// ErrTimeout, not retried, a message that names the limit, its value and
// the setting, and the request is cancelled on the server's side.
func TestFirstTokenTimeout(t *testing.T) {
	for _, provider := range []string{"ollama", "openai"} {
		contentType := map[string]string{"ollama": "application/x-ndjson", "openai": "text/event-stream"}[provider]
		for name, h := range map[string]http.HandlerFunc{
			"before headers": func(http.ResponseWriter, *http.Request) {},
			"after headers":  headersOnly(contentType),
		} {
			t.Run(provider+"/"+name, func(t *testing.T) {
				step, seen := cancelSeen(h)
				s := newServer(t, step)
				c := testClient(t, provider, "m", s, Options{FirstTokenTimeout: 100 * time.Millisecond, FirstTokenTimeoutSetting: "--model-first-token-timeout"})
				_, err := c.Chat(context.Background(), hello(), nil)
				if !errors.Is(err, ErrTimeout) {
					t.Fatalf("err = %v, want ErrTimeout", err)
				}
				mustContain(t, err.Error(), "first-token timeout", "100ms", "--model-first-token-timeout")
				if errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("err %q passes for the caller's deadline", err)
				}
				if strings.Contains(err.Error(), "HTTP 200") {
					t.Errorf("err %q reports the status of a reply that never came", err)
				}
				if n := len(s.Requests()); n != 1 {
					t.Errorf("server saw %d requests, want 1 (a slow model stays slow)", n)
				}
				waitCancelled(t, seen)
			})
		}
	}
}

// A reply that stops streaming hits the idle timeout, with a message that
// says so.
func TestIdleTimeout(t *testing.T) {
	for _, provider := range []string{"ollama", "openai"} {
		t.Run(provider, func(t *testing.T) {
			step, seen := cancelSeen(map[string]http.HandlerFunc{
				"ollama": ndjson(ollamaHello),
				"openai": func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/event-stream")
					fmt.Fprintf(w, "data: %s\n\n", openaiHello)
					w.(http.Flusher).Flush()
				},
			}[provider])
			s := newServer(t, step)
			c := testClient(t, provider, "m", s, Options{FirstTokenTimeout: time.Minute, Timeout: 100 * time.Millisecond, TimeoutSetting: "--model-idle-timeout"})
			var streamed string
			_, err := c.Chat(context.Background(), hello(), func(s string) { streamed += s })
			if !errors.Is(err, ErrTimeout) {
				t.Fatalf("err = %v, want ErrTimeout", err)
			}
			mustContain(t, err.Error(), "idle timeout", "100ms", "--model-idle-timeout")
			if streamed != "hello" {
				t.Errorf("streamed %q before the stall, want hello", streamed)
			}
			if n := len(s.Requests()); n != 1 {
				t.Errorf("server saw %d requests, want 1", n)
			}
			waitCancelled(t, seen)
		})
	}
}

// The idle timeout is between chunks, not over the whole reply: a reply
// that keeps streaming for longer than it completes.
func TestIdleTimeoutResetsOnEachChunk(t *testing.T) {
	const idle = 500 * time.Millisecond
	for _, provider := range []string{"ollama", "openai"} {
		t.Run(provider, func(t *testing.T) {
			slow := func(w http.ResponseWriter, r *http.Request) {
				line := map[string]string{"ollama": ollamaHello + "\n", "openai": "data: " + openaiHello + "\n\n"}[provider]
				w.Header().Set("Content-Type", map[string]string{"ollama": "application/x-ndjson", "openai": "text/event-stream"}[provider])
				for range 8 { // 8 chunks 100ms apart: longer than idle in all
					fmt.Fprint(w, line)
					w.(http.Flusher).Flush()
					time.Sleep(idle / 5)
				}
				if provider == "ollama" {
					fmt.Fprintln(w, ollamaDone)
				} else {
					fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", openaiStop)
				}
			}
			s := newServer(t, slow)
			c := testClient(t, provider, "m", s, Options{FirstTokenTimeout: idle, Timeout: idle})
			resp, err := c.Chat(context.Background(), hello(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := "hellohellohellohellohellohellohellohello"; resp.Message.Content != want {
				t.Errorf("content %q, want %q", resp.Message.Content, want)
			}
		})
	}
}

// The caller's own deadline (the pipeline's --run-timeout) is not a model
// timeout: it stays context.DeadlineExceeded and is not ErrTimeout.
func TestCallerDeadlineIsNotModelTimeout(t *testing.T) {
	for _, provider := range []string{"ollama", "openai"} {
		t.Run(provider, func(t *testing.T) {
			s := newServer(t, hang)
			c := testClient(t, provider, "m", s, Options{})
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			_, err := c.Chat(ctx, hello(), nil)
			if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTimeout) {
				t.Fatalf("err = %v, want DeadlineExceeded and not ErrTimeout", err)
			}
		})
	}
}

// Model info requests are bounded too.
func TestModelInfoTimeout(t *testing.T) {
	for _, provider := range []string{"ollama", "openai"} {
		t.Run(provider, func(t *testing.T) {
			step, seen := cancelSeen(func(http.ResponseWriter, *http.Request) {})
			s := newServer(t, step)
			c := testClient(t, provider, "m", s, Options{FirstTokenTimeout: 100 * time.Millisecond})
			_, err := c.Model(context.Background())
			if !errors.Is(err, ErrTimeout) {
				t.Fatalf("err = %v, want ErrTimeout", err)
			}
			mustContain(t, err.Error(), "first-token timeout", "100ms", "Options.FirstTokenTimeout")
			waitCancelled(t, seen)
		})
	}
}
