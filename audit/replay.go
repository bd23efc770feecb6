package audit

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/runrecord"
)

type streamKey struct{}

// WithStream marks the model calls made with ctx as conversation stream's,
// for Recorder and Replayer: conversations that run at once are recorded
// interleaved and replayed each in its own order.
func WithStream(ctx context.Context, stream string) context.Context {
	return context.WithValue(ctx, streamKey{}, stream)
}

func streamOf(ctx context.Context) string {
	s, _ := ctx.Value(streamKey{}).(string)
	return s
}

// errorKinds are the model errors a replay gives back as what they were.
var errorKinds = map[string]error{
	"tools-unsupported": llm.ErrToolsUnsupported,
	"unreachable":       llm.ErrUnreachable,
	"unauthorized":      llm.ErrUnauthorized,
	"unknown-model":     llm.ErrUnknownModel,
	"rate-limited":      llm.ErrRateLimited,
	"timeout":           llm.ErrTimeout,
}

// recordedError is a model error as the run got it: the same text, and the
// same kind for errors.Is.
type recordedError struct {
	msg  string
	kind error
}

func (e *recordedError) Error() string { return e.msg }
func (e *recordedError) Unwrap() error { return e.kind }

func errorKind(err error) string {
	for k, e := range errorKinds {
		if errors.Is(err, e) {
			return k
		}
	}
	return ""
}

// Recorder is a model client that records what its client replies.
type Recorder struct {
	llm.Client
	mu  sync.Mutex
	rec runrecord.Recording
}

// NewRecorder records the replies of c.
func NewRecorder(c llm.Client) *Recorder { return &Recorder{Client: c} }

// Chat asks the recorded client and keeps its reply.
func (r *Recorder) Chat(ctx context.Context, req llm.Request, onDelta func(string)) (*llm.Response, error) {
	resp, err := r.Client.Chat(ctx, req, onDelta)
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case err != nil && ctx.Err() == nil:
		r.rec.Replies = append(r.rec.Replies, runrecord.Reply{Error: err.Error(), ErrorKind: errorKind(err), Stream: streamOf(ctx)})
	case err == nil:
		reply := runrecord.Reply{Message: resp.Message, Usage: resp.Usage, Model: resp.Model, FinishReason: resp.FinishReason, Stream: streamOf(ctx)}
		if resp.Overrun != nil {
			reply.Overrun = resp.Overrun.Error()
		}
		r.rec.Replies = append(r.rec.Replies, reply)
	}
	return resp, err
}

// Model asks the recorded client and keeps its answer.
func (r *Recorder) Model(ctx context.Context) (*llm.ModelInfo, error) {
	info, err := r.Client.Model(ctx)
	if err == nil {
		r.mu.Lock()
		r.rec.Model = info
		r.mu.Unlock()
	}
	return info, err
}

// Recording returns what was recorded so far (for run.json).
func (r *Recorder) Recording() *runrecord.Recording {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.rec
	rec.Replies = append([]runrecord.Reply(nil), r.rec.Replies...)
	return &rec
}

// ErrReplayDiverged is a replay asked for more replies than the run got:
// the run went another way (other data, image or analyst version).
var ErrReplayDiverged = errors.New("the replay went another way than the run")

// Replayer is a model client that plays a recording back, reply by reply,
// each stream's in its order (WithStream).
type Replayer struct {
	mu    sync.Mutex
	rec   *runrecord.Recording
	next  map[string]int // by stream: the index of the reply after its last
	calls map[string]int // by stream: the calls played
}

// NewReplayer plays rec back.
func NewReplayer(rec *runrecord.Recording) *Replayer {
	return &Replayer{rec: rec, next: map[string]int{}, calls: map[string]int{}}
}

// Chat returns the stream's next recorded reply.
func (p *Replayer) Chat(ctx context.Context, req llm.Request, onDelta func(string)) (*llm.Response, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	stream := streamOf(ctx)
	i := p.next[stream]
	for i < len(p.rec.Replies) && p.rec.Replies[i].Stream != stream {
		i++
	}
	p.calls[stream]++
	if i >= len(p.rec.Replies) {
		what := "the run"
		if stream != "" {
			what = "the run's " + stream
		}
		return nil, fmt.Errorf("%w: %s made %d model calls, the replay asks for call %d", ErrReplayDiverged, what, p.calls[stream]-1, p.calls[stream])
	}
	r := p.rec.Replies[i]
	p.next[stream] = i + 1
	if r.Error != "" {
		return nil, &recordedError{msg: r.Error, kind: errorKinds[r.ErrorKind]}
	}
	if onDelta != nil && r.Message.Content != "" {
		onDelta(r.Message.Content)
	}
	resp := &llm.Response{Message: r.Message, Usage: r.Usage, Model: r.Model, FinishReason: r.FinishReason}
	if r.Overrun != "" {
		resp.Overrun = &recordedError{msg: r.Overrun, kind: llm.ErrReplyTooLong}
	}
	return resp, nil
}

// Model returns the recorded model information.
func (p *Replayer) Model(ctx context.Context) (*llm.ModelInfo, error) {
	if p.rec.Model == nil {
		return nil, errors.New("the run recorded no model")
	}
	return p.rec.Model, nil
}
