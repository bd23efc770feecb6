package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// The size bound of one streamed reply, whatever the server does with the
// completion limit. A server that honours the limit sends at most one chunk
// per token, plus a few that carry none (the role, each tool call's head,
// the finish reason, the usage); twice the limit leaves room for servers
// that split a token (a multi-byte character) or send empty chunks. A
// chunk is 100-300 bytes on the wire (Azure's, with content filter results,
// about 600), so 1 KiB per token of the limit leaves room too; the bytes
// bound catches what the chunk count cannot: one chunk, or one SSE event,
// that never ends.
const (
	replyChunkSlack    = 256     // chunks that carry no token
	replyBytesPerToken = 1 << 10 // wire bytes allowed per token of the limit
)

// errReplyBound ends the reading of a reply past its bound.
var errReplyBound = errors.New("the reply ran past its size bound")

// replyLimit is the completion limit a client sends, as the user knows it.
type replyLimit struct {
	tokens  int
	setting string
}

func newReplyLimit(opts Options) replyLimit {
	l := replyLimit{tokens: opts.MaxReplyTokens, setting: opts.MaxReplyTokensSetting}
	if l.tokens <= 0 {
		l.tokens = DefaultMaxReplyTokens
	}
	if l.setting == "" {
		l.setting = "Options.MaxReplyTokens"
	}
	return l
}

// of is the limit req is sent with: the client's, or less if req asks.
func (l replyLimit) of(req Request) int {
	if req.MaxTokens > 0 && req.MaxTokens < l.tokens {
		return req.MaxTokens
	}
	return l.tokens
}

// replyBound counts one attempt's reply against its bound: the transport
// counts the body's bytes (boundedBody), the client the chunks it decodes.
// Both run in the goroutine that reads the reply.
type replyBound struct {
	limit     replyLimit
	tokens    int // the completion limit the request was sent with
	maxChunks int
	chunks    int
	maxBytes  int64
	bytes     int64
	hit       string // what ran over, "" while within the bound
}

// bound starts the bound of a reply to a request sent with a limit of
// tokens, and hands it to the transport of the attempt ctx belongs to.
func (l replyLimit) bound(ctx context.Context, tokens int) *replyBound {
	b := &replyBound{limit: l, tokens: tokens, maxChunks: 2*tokens + replyChunkSlack,
		maxBytes: int64(tokens+replyChunkSlack) * replyBytesPerToken}
	if rec, ok := ctx.Value(recordKey{}).(*record); ok {
		rec.bound = b
	}
	return b
}

// chunk counts a decoded chunk; false once the reply is over its bound.
func (b *replyBound) chunk() bool {
	b.chunks++
	if b.chunks > b.maxChunks && b.hit == "" {
		b.hit = fmt.Sprintf("%d chunks (twice the completion limit of %d tokens, and %d more)", b.maxChunks, b.tokens, replyChunkSlack)
	}
	return b.hit == ""
}

// over reports whether the reply ran past its bound.
func (b *replyBound) over() bool { return b.hit != "" }

// overrun is the error of a reply cut at its bound.
func (b *replyBound) overrun(t target) *Error {
	return &Error{Kind: ErrReplyTooLong, Provider: t.provider, Op: "chat", Model: t.model, Host: t.host, Attempts: 1,
		Err: fmt.Errorf("the reply did not end within %s: the server ignores the limit, or streams without end; "+
			"reading stopped there and the connection was closed", b.hit),
		Hint: "a model that loops does not stop at a higher limit (try another model, or a server that honours " +
			"max_tokens or num_predict); the completion limit is set with " + b.limit.setting}
}

// cut is what is kept of a reply cut at its bound: its text so far,
// marked cut by the token limit, and the error to give up with.
func (b *replyBound) cut(t target, model, text string) *Response {
	return &Response{Message: Message{Role: RoleAssistant, Content: text}, Model: model, FinishReason: "length", Overrun: b.overrun(t)}
}

// boundedBody ends a reply's body at the bound's bytes.
type boundedBody struct {
	io.ReadCloser
	bound *replyBound
}

func (r boundedBody) Read(p []byte) (int, error) {
	b := r.bound
	left := b.maxBytes - b.bytes
	if left <= 0 {
		if b.hit == "" {
			b.hit = fmt.Sprintf("%d KiB (1 KiB for each token of the completion limit of %d tokens, and %d more)", b.maxBytes>>10, b.tokens, replyChunkSlack)
		}
		return 0, errReplyBound
	}
	if int64(len(p)) > left {
		p = p[:left]
	}
	n, err := r.ReadCloser.Read(p)
	b.bytes += int64(n)
	return n, err
}
