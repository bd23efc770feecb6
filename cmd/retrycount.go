package cmd

import (
	"bytes"
	"crypto/sha256"
	"io"
	"net/http"
	"sync"
)

// retryCounter counts the model requests that repeat the one before: the
// llm client's retries (429, 5xx, dropped connections), which it makes by
// itself. Each turn of a conversation sends a different body, so a body
// sent twice in a row is a retry.
type retryCounter struct {
	base    http.RoundTripper
	mu      sync.Mutex
	last    [sha256.Size]byte
	retries int
}

func newRetryCounter() *retryCounter { return &retryCounter{base: http.DefaultTransport} }

func (c *retryCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && req.Body != nil {
		var body []byte
		if req.GetBody != nil {
			if rc, err := req.GetBody(); err == nil {
				body, _ = io.ReadAll(rc)
				rc.Close()
			}
		} else {
			body, _ = io.ReadAll(req.Body)
			req.Body.Close()
			req = req.Clone(req.Context())
			req.Body = io.NopCloser(bytes.NewReader(body))
		}
		sum := sha256.Sum256(body)
		c.mu.Lock()
		if sum == c.last {
			c.retries++
		}
		c.last = sum
		c.mu.Unlock()
	}
	return c.base.RoundTrip(req)
}

// Retries is how many requests were retries so far.
func (c *retryCounter) Retries() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.retries
}
