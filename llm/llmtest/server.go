package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Server is an httptest server scripted per request: request i is answered
// by steps[i] (the last step answers the rest). It keeps what it received.
type Server struct {
	*httptest.Server
	mu    sync.Mutex
	got   []Received
	steps []http.HandlerFunc
}

// Received is one request as the server saw it.
type Received struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// NewServer starts a scripted server, closed when the test ends.
func NewServer(t testing.TB, steps ...http.HandlerFunc) *Server {
	t.Helper()
	s := &Server{steps: steps}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.got = append(s.got, Received{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		step := s.steps[min(len(s.got), len(s.steps))-1]
		s.mu.Unlock()
		step(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// Requests are the requests so far.
func (s *Server) Requests() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.got...)
}

// JSON decodes the body of request i.
func (s *Server) JSON(t testing.TB, i int) map[string]any {
	t.Helper()
	got := s.Requests()
	if i >= len(got) {
		t.Fatalf("server saw %d requests, want at least %d", len(got), i+1)
	}
	var m map[string]any
	if err := json.Unmarshal(got[i].Body, &m); err != nil {
		t.Fatalf("request %d body is not JSON: %v\n%s", i, err, got[i].Body)
	}
	return m
}

// Route answers by path; unknown paths get 404 page not found.
func Route(routes map[string]http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if h, ok := routes[r.URL.Path]; ok {
			h(w, r)
			return
		}
		http.NotFound(w, r)
	}
}

// NDJSON streams lines the way Ollama's /api/chat does.
func NDJSON(lines ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		for _, l := range lines {
			fmt.Fprintln(w, l)
			w.(http.Flusher).Flush()
		}
	}
}

// SSE streams data events the way OpenAI's /v1/chat/completions does,
// ending with [DONE].
func SSE(events ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range append(events, "[DONE]") {
			fmt.Fprintf(w, "data: %s\n\n", e)
			w.(http.Flusher).Flush()
		}
	}
}

// Reply answers with a status, a JSON body and header pairs.
func Reply(status int, body string, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// HangUp closes the connection without a response.
func HangUp(w http.ResponseWriter, r *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	conn.Close()
}

// DropAfter starts a 200 stream with partial, then closes the connection.
func DropAfter(contentType, partial string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		io.WriteString(w, partial)
		w.(http.Flusher).Flush()
		HangUp(w, r)
	}
}

// Hang answers only when the client gives up.
func Hang(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
