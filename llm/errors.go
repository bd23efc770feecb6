package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"unicode"
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
	// ErrReplyTooLong: a reply ran past the client's size bound without
	// ending (Response.Overrun); the message names the completion limit
	// and the setting that changes it.
	ErrReplyTooLong = errors.New("the model's reply ran past its size bound")
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
	case errors.Is(err, syscall.ECONNREFUSED) && refusedLocally(err):
		// Nothing listens on that port of this machine: the seconds the
		// retries take will not change it, and the user hears at once.
		return true, false
	case errors.Is(err, errDropped), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.As(err, &op):
		return true, true
	}
	return false, false
}

// refusedLocally says whether a refused connection was to a loopback
// address.
func refusedLocally(err error) bool {
	var op *net.OpError
	if !errors.As(err, &op) || op.Addr == nil {
		return false
	}
	host, _, splitErr := net.SplitHostPort(op.Addr.String())
	if splitErr != nil {
		host = op.Addr.String()
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
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

// maxReason is how much of a server's reason an error shows, in runes.
const maxReason = 300

// serverReason is the server's own explanation in an error body, clipped:
// the message of the JSON shapes servers use (OpenAI's
// {"error":{"message":…}}, {"error":"…"} of Ollama and LM Studio, vLLM's
// top-level {"message":…}, FastAPI's {"detail":…}), the title or the text
// of an HTML page (a proxy's), or the body itself.
func serverReason(body string) string {
	body = strings.TrimSpace(body)
	var shaped struct{ Error, Message, Detail json.RawMessage }
	if json.Unmarshal([]byte(body), &shaped) == nil {
		for _, raw := range []json.RawMessage{shaped.Error, shaped.Message, shaped.Detail} {
			if r := jsonReason(raw); r != "" {
				return clip(r)
			}
		}
	} else if strings.HasPrefix(body, "<") {
		return clip(htmlReason(body))
	}
	return clip(body)
}

// jsonReason reads a message that is text, an object with a message, or
// FastAPI's list of validation errors ({"loc": [...], "msg": ...}).
func jsonReason(raw json.RawMessage) string {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return text
	}
	var obj struct{ Message string }
	if json.Unmarshal(raw, &obj) == nil && obj.Message != "" {
		return obj.Message
	}
	var list []struct {
		Loc []any
		Msg string
	}
	if json.Unmarshal(raw, &list) != nil {
		return ""
	}
	var parts []string
	for _, v := range list {
		loc := make([]string, len(v.Loc))
		for i, l := range v.Loc {
			loc[i] = fmt.Sprint(l)
		}
		parts = append(parts, strings.TrimPrefix(strings.Join(loc, ".")+": "+v.Msg, ": "))
	}
	return strings.Join(parts, "; ")
}

var (
	htmlTitle = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
	htmlCode  = regexp.MustCompile(`(?is)<(script|style)[^>]*>.*?</(script|style)>`)
	htmlTag   = regexp.MustCompile(`(?s)<[^>]*>`)
)

// htmlReason is a page's title, else its text.
func htmlReason(page string) string {
	if m := htmlTitle.FindStringSubmatch(page); m != nil && strings.TrimSpace(m[1]) != "" {
		return html.UnescapeString(m[1])
	}
	return html.UnescapeString(htmlTag.ReplaceAllString(htmlCode.ReplaceAllString(page, " "), " "))
}

// clip puts s on one line, without control characters (it is shown on
// terminals), and cuts it at maxReason runes.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	if r := []rune(s); len(r) > maxReason {
		return string(r[:maxReason]) + "…"
	}
	return s
}

// refusesTools reports whether a 400's reason says the server or model
// does not do tool calling: "… does not support tools" (Ollama), "\"tools\"
// is not supported", "tool_choice … not supported", vLLM's "\"auto\" tool
// choice requires --enable-auto-tool-choice …", llama.cpp's "tools param
// requires --jinja flag".
func refusesTools(reason string) bool {
	r := strings.ToLower(reason)
	return strings.Contains(r, "does not support tools") ||
		strings.Contains(r, "enable-auto-tool-choice") ||
		strings.Contains(r, "tools param requires") ||
		(strings.Contains(r, "tool") && (strings.Contains(r, "not supported") || strings.Contains(r, "unsupported")))
}

// refusesLimit reports whether a 400's reason is about the completion
// limit: too large for the model ("max_tokens is too large: 8192. This
// model supports at most 4096 completion tokens") or, with the prompt, over
// its window (vLLM: "This model's maximum context length is 8192 tokens.
// However, you requested 9000 tokens (4904 in the messages, 4096 in the
// completion)").
func refusesLimit(reason string) bool {
	r := strings.ToLower(reason)
	return strings.Contains(r, "max_tokens") || strings.Contains(r, "max_completion_tokens") ||
		strings.Contains(r, "completion tokens") || strings.Contains(r, "in the completion")
}
