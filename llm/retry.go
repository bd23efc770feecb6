package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Bounds on how long one wait between attempts may be.
const (
	maxBackoff    = 30 * time.Second // exponential backoff stops growing here
	maxRetryAfter = 60 * time.Second // a server's Retry-After is honoured up to here
)

// policy is the retry policy both providers share: each provider's SDK does
// no retries of its own.
type policy struct {
	maxRetries int
	baseDelay  time.Duration
	timeout    time.Duration // per attempt; 0 means none
}

func newPolicy(opts Options) policy {
	return policy{maxRetries: max(opts.MaxRetries, 0), baseDelay: opts.RetryBaseDelay, timeout: opts.Timeout}
}

// target names the model and server an Error is about.
type target struct {
	provider, model, host string
	hints                 hints
}

// hints are what to tell the user for each kind of failure.
type hints struct {
	unreachable, unauthorized, unknownModel, rateLimited string
}

// classifier turns the error of a failed attempt, and what the transport
// saw of its response, into an *Error, and says whether to try again.
type classifier func(err error, rec *record) (*Error, bool)

// run makes attempts until one succeeds, a failure is not worth retrying,
// the retries are spent or ctx is done. It waits between attempts with
// exponential backoff and jitter, or as long as the server's Retry-After
// asks (capped); cancelling ctx ends the wait at once.
func (p policy) run(ctx context.Context, t target, op string, attempt func(context.Context) error, classify classifier) error {
	for n := 1; ; n++ {
		rec := &record{}
		actx, cancel := p.attemptContext(context.WithValue(ctx, recordKey{}, rec))
		err := attempt(actx)
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded)
		cancel()
		if err == nil {
			return nil
		}
		var e *Error
		retry := false
		switch {
		case ctx.Err() != nil:
			e = &Error{Err: context.Cause(ctx)}
		case timedOut:
			e = &Error{Err: fmt.Errorf("no complete reply within %s: %w", p.timeout, context.DeadlineExceeded), Hint: "raise the request timeout"}
		default:
			e, retry = classify(err, rec)
		}
		e.Provider, e.Op, e.Model, e.Host, e.Attempts = t.provider, op, t.model, t.host, n
		if !retry || n > p.maxRetries {
			return e
		}
		wait := time.NewTimer(p.backoff(n, rec))
		select {
		case <-ctx.Done():
			wait.Stop()
			return &Error{Provider: t.provider, Op: op, Model: t.model, Host: t.host, Attempts: n,
				Err: fmt.Errorf("%w while waiting to retry after: %s", context.Cause(ctx), e.detail())}
		case <-wait.C:
		}
	}
}

// attemptContext bounds one attempt by the per-attempt timeout, if any.
func (p policy) attemptContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if p.timeout > 0 {
		return context.WithTimeout(ctx, p.timeout)
	}
	return context.WithCancel(ctx)
}

// backoff is the wait after attempt n (1-based): the server's Retry-After
// if it sent one, else baseDelay·2ⁿ⁻¹ with jitter, in [d/2, d].
func (p policy) backoff(n int, rec *record) time.Duration {
	if rec.hasRetryAfter {
		return min(rec.retryAfter, maxRetryAfter)
	}
	d := p.baseDelay << (n - 1)
	if d <= 0 || d > maxBackoff {
		d = maxBackoff
	}
	return d/2 + rand.N(d/2+1)
}

// classify is the failure classification both providers share: no response
// (network) → ErrUnreachable, retried unless the name does not resolve; an
// HTTP error status → its kind (statusKind); anything else is generic.
func (h hints) classify(err error, status int) (*Error, bool) {
	if status >= 400 {
		kind, retry := statusKind(status)
		e := &Error{Kind: kind, StatusCode: status, Err: err}
		switch kind {
		case ErrUnauthorized:
			e.Hint = h.unauthorized
		case ErrUnknownModel:
			e.Hint = h.unknownModel
		case ErrRateLimited:
			e.Hint = h.rateLimited
		}
		return e, retry
	}
	if failed, retry := networkFailure(err); failed {
		return &Error{Kind: ErrUnreachable, Err: err, Hint: h.unreachable}, retry
	}
	return &Error{Err: err}, false
}

// record is what the transport saw of an attempt's response. The SDKs'
// errors do not always carry the status, headers and message (Ollama's
// streaming client drops the headers; openai-go fails to decode an error
// body that is not in OpenAI's shape), so the transport notes them.
type record struct {
	status        int
	retryAfter    time.Duration
	hasRetryAfter bool
	errorBody     string // the start of an error response's body
}

// maxErrorBody is how much of an error response's body a record keeps.
const maxErrorBody = 4 << 10

type recordKey struct{}

type recordingTransport struct{ next http.RoundTripper }

func (t recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if rec, ok := req.Context().Value(recordKey{}).(*record); ok && resp != nil {
		rec.status = resp.StatusCode
		rec.retryAfter, rec.hasRetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		if resp.StatusCode >= 400 {
			head, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
			rec.errorBody = strings.TrimSpace(string(head))
			resp.Body = readCloser{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
		}
	}
	return resp, err
}

type readCloser struct {
	io.Reader
	io.Closer
}

// recording returns a copy of c whose transport records each response.
func recording(c *http.Client) *http.Client {
	cc := *c
	next := cc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	cc.Transport = recordingTransport{next: next}
	return &cc
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
		return time.Duration(secs) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}
