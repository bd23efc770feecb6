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
	"sync"
	"time"
)

// Bounds on how long one wait between attempts may be.
const (
	maxBackoff    = 30 * time.Second // exponential backoff stops growing here
	maxRetryAfter = 60 * time.Second // a server's Retry-After is honoured up to here
)

// policy is the retry and timeout policy both providers share: each
// provider's SDK does no retries of its own.
type policy struct {
	maxRetries int
	baseDelay  time.Duration
	firstToken limit // from sending a request to the first byte of its reply
	idle       limit // between two reads of a reply
	reply      replyLimit
}

// limit is a timeout as the user knows it: its name, value and setting.
type limit struct {
	name, setting string
	d             time.Duration // ≤ 0: none
}

// hint is what to do when a server refuses the completion limit.
func (l replyLimit) hint() string {
	return fmt.Sprintf("the completion limit (%d tokens) and the conversation must fit the model: lower the limit with %s, "+
		"or give the model's context length so that the limit is kept within it", l.tokens, l.setting)
}

func newPolicy(opts Options) policy {
	bound := func(d, def time.Duration, name, setting, field string) limit {
		if d == 0 {
			d = def
		}
		if setting == "" {
			setting = "Options." + field
		}
		return limit{name: name, setting: setting, d: d}
	}
	return policy{
		maxRetries: max(opts.MaxRetries, 0),
		baseDelay:  opts.RetryBaseDelay,
		firstToken: bound(opts.FirstTokenTimeout, DefaultFirstTokenTimeout, "first-token timeout", opts.FirstTokenTimeoutSetting, "FirstTokenTimeout"),
		idle:       bound(opts.Timeout, DefaultIdleTimeout, "idle timeout", opts.TimeoutSetting, "Timeout"),
		reply:      newReplyLimit(opts),
	}
}

// target names the model and server an Error is about.
type target struct {
	provider, model, host string
	hints                 hints
}

// hints are what to tell the user for each kind of failure.
type hints struct {
	unreachable, unauthorized, unknownModel, rateLimited, toolsUnsupported string
	limitRefused                                                           string
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
		actx, cancel := context.WithCancelCause(context.WithValue(ctx, recordKey{}, rec))
		rec.watch = newWatchdog(p.firstToken, p.idle, cancel)
		err := attempt(actx)
		rec.watch.stop()
		cause := context.Cause(actx)
		cancel(nil)
		if err == nil {
			return nil
		}
		var e *Error
		var timeout *timeoutError
		retry := false
		switch {
		case ctx.Err() != nil:
			e = &Error{Err: context.Cause(ctx)}
		case errors.As(cause, &timeout):
			// Not retried: a model too slow once is as slow the next time.
			e = &Error{Kind: ErrTimeout, Err: timeout, Hint: "raise it with " + timeout.setting}
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

// timeoutError is the cause of an attempt the watchdog cancelled.
type timeoutError struct{ limit }

func (e *timeoutError) Error() string {
	if e.name == "idle timeout" {
		return fmt.Sprintf("the reply stalled: nothing arrived for the %s of %s", e.name, e.d)
	}
	return fmt.Sprintf("no reply within the %s of %s (a model being loaded starts late)", e.name, e.d)
}

// watchdog cancels an attempt whose reply does not come: first-token until
// the first byte of a response body arrives, then idle between reads.
// The transport reports each read (activity).
type watchdog struct {
	mu      sync.Mutex
	timer   *time.Timer
	started bool // the first byte arrived
	stopped bool
	idle    limit
	cancel  context.CancelCauseFunc
}

func newWatchdog(first, idle limit, cancel context.CancelCauseFunc) *watchdog {
	w := &watchdog{idle: idle, cancel: cancel}
	if first.d > 0 {
		w.timer = time.AfterFunc(first.d, func() { cancel(&timeoutError{first}) })
	}
	return w
}

// activity says bytes of a reply arrived: the idle bound starts over.
func (w *watchdog) activity() {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.stopped:
	case w.started && w.timer != nil:
		w.timer.Reset(w.idle.d)
	case !w.started:
		w.started = true
		if w.timer != nil {
			w.timer.Stop()
			w.timer = nil
		}
		if w.idle.d > 0 {
			w.timer = time.AfterFunc(w.idle.d, func() { w.cancel(&timeoutError{w.idle}) })
		}
	}
}

func (w *watchdog) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	if w.timer != nil {
		w.timer.Stop()
	}
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
// (network) → ErrUnreachable, retried unless the name does not resolve; a
// 400 or 422 refusing tools → ErrToolsUnsupported; an HTTP error status →
// its kind (statusKind); anything else is generic. err carries the
// server's reason.
func (h hints) classify(err error, status int) (*Error, bool) {
	if (status == http.StatusBadRequest || status == http.StatusUnprocessableEntity) && refusesTools(err.Error()) {
		return &Error{Kind: ErrToolsUnsupported, StatusCode: status, Err: err, Hint: h.toolsUnsupported}, false
	}
	if status == http.StatusBadRequest && refusesLimit(err.Error()) {
		return &Error{StatusCode: status, Err: err, Hint: h.limitRefused}, false
	}
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
	watch         *watchdog
	tap           io.Writer   // if set, gets a copy of a successful response's body
	bound         *replyBound // if set, ends the body at its bytes
}

// maxErrorBody is how much of an error response's body a record keeps.
const maxErrorBody = 4 << 10

type recordKey struct{}

type recordingTransport struct{ next http.RoundTripper }

func (t recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if rec, ok := req.Context().Value(recordKey{}).(*record); ok && resp != nil {
		if rec.watch != nil {
			resp.Body = watchedBody{resp.Body, rec.watch}
		}
		if rec.bound != nil {
			resp.Body = boundedBody{resp.Body, rec.bound}
		}
		rec.status = resp.StatusCode
		rec.retryAfter, rec.hasRetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		if resp.StatusCode >= 400 {
			head, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
			rec.errorBody = strings.TrimSpace(string(head))
			resp.Body = readCloser{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
		} else if rec.tap != nil {
			resp.Body = readCloser{io.TeeReader(resp.Body, rec.tap), resp.Body}
		}
	}
	return resp, err
}

// watchedBody tells the watchdog of each read that brought bytes.
type watchedBody struct {
	io.ReadCloser
	watch *watchdog
}

func (b watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.watch.activity()
	}
	return n, err
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
