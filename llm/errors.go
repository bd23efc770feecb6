package llm

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
)

// The kinds of failure a caller may act on (exit codes, advice). Test with
// errors.Is; an *Error of no kind is a generic failure.
var (
	ErrUnreachable  = errors.New("model server unreachable")
	ErrUnauthorized = errors.New("not authorized by the model server")
	ErrUnknownModel = errors.New("unknown model")
	ErrRateLimited  = errors.New("rate limited by the model server")
	// ErrToolsUnsupported: the server or model refuses tool calling (HTTP
	// 400 "does not support tools", vLLM without --enable-auto-tool-choice).
	// Not retried; the caller may go on without tools.
	ErrToolsUnsupported = errors.New("the model server refuses tool calling")
	// ErrTimeout: a request hit the first-token or idle timeout
	// (Options.FirstTokenTimeout, Options.Timeout); the message names which,
	// its value and the setting that changes it. A deadline of the caller's
	// own context is not this kind.
	ErrTimeout = errors.New("the model server did not answer in time")
)

// Error is a failed Chat or Model call.
type Error struct {
	Kind       error  // one of the Err* kinds above, or nil
	Provider   string // "ollama", "openai"
	Op         string // "chat", "model info"
	Model      string
	Host       string // the server's base URL
	StatusCode int    // the last HTTP status, 0 if no response arrived
	Attempts   int    // requests made, retries included
	Hint       string // what to do about it
	Err        error  // the cause
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s %s (model %s at %s): %s", e.Provider, e.Op, e.Model, e.Host, e.detail())
}

// detail is the message without the provider, model and host.
func (e *Error) detail() string {
	var b strings.Builder
	if e.Kind != nil {
		b.WriteString(e.Kind.Error())
	}
	switch {
	case e.StatusCode != 0 && e.Kind != nil:
		fmt.Fprintf(&b, " (HTTP %d)", e.StatusCode)
	case e.StatusCode != 0:
		fmt.Fprintf(&b, "HTTP %d", e.StatusCode)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	if e.Err != nil {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(e.Err.Error())
	}
	if e.Hint != "" {
		b.WriteString("; " + e.Hint)
	}
	return b.String()
}

// Unwrap gives errors.Is and errors.As both the kind and the cause.
func (e *Error) Unwrap() []error {
	var errs []error
	if e.Kind != nil {
		errs = append(errs, e.Kind)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// errDropped says a streamed reply ended before the server said it was
// complete: the connection was closed under it.
var errDropped = errors.New("the connection closed before the reply was complete")

// networkFailure reports whether err is a failure to reach the server or to
// keep the connection, and whether another attempt may succeed. A host name
// that does not resolve is not retried.
func networkFailure(err error) (failed, retry bool) {
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.As(err, &dns):
		return true, dns.IsTimeout || dns.IsTemporary
	case errors.Is(err, errDropped), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.As(err, &op):
		return true, true
	}
	return false, false
}

// statusKind maps an HTTP error status to a kind and says whether it is
// worth retrying: 429, 408 and 5xx (but 501) are; other 4xx are not.
func statusKind(status int) (kind error, retry bool) {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return ErrUnauthorized, false
	case status == http.StatusNotFound:
		return ErrUnknownModel, false
	case status == http.StatusTooManyRequests:
		return ErrRateLimited, true
	case status == http.StatusRequestTimeout:
		return nil, true
	case status >= 500 && status != http.StatusNotImplemented:
		return nil, true
	}
	return nil, false
}
