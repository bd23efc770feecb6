package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Role is who speaks a message.
type Role string

// The roles of a conversation.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one turn of a conversation.
type Message struct {
	Role    Role
	Content string
	// Images are PNG bytes. Only user messages carry images: tool messages
	// are text-only on OpenAI, so a chart produced by a tool call goes back
	// to the model in a follow-up user message.
	Images [][]byte
	// ToolCalls are the calls an assistant message made.
	ToolCalls []ToolCall
	// ToolCallID is the call a tool message answers.
	ToolCallID string
	// ToolName is the tool that produced a tool message (Ollama wants it).
	// When empty it is taken from the call that ToolCallID names.
	ToolName string
}

// ToolCall is one function call made by the model.
type ToolCall struct {
	// ID names the call; its tool message answers with the same ID.
	ID   string
	Name string
	// Arguments is a JSON object as text, as the server sent it: keys in
	// the model's order, nested objects included.
	Arguments string
}

// Tool is a function the model may call.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON schema of the arguments object.
	Parameters json.RawMessage
}

// Request is one chat turn: the whole conversation so far, and how to sample.
type Request struct {
	Messages []Message
	Tools    []Tool
	// Temperature and Seed are sent only when set.
	Temperature *float64
	Seed        *int
	// MaxTokens, when > 0, bounds the reply below the client's completion
	// limit (Options.MaxReplyTokens), which every request carries: 0 is
	// that limit.
	MaxTokens int
	// ContextWindow, when > 0, is the context window in tokens the server
	// should give the conversation: Ollama gets it as options.num_ctx (its
	// default window is small, and it silently drops the oldest messages
	// beyond it). OpenAI-compatible servers fix the window themselves and
	// ignore it.
	ContextWindow int
}

// Response is the model's reply to one Request.
type Response struct {
	// Message is the assistant message, to be appended to the conversation.
	Message Message
	Usage   Usage
	// Duration is the wall time of the Chat call, retries included.
	Duration time.Duration
	// Model is the model that answered, as the server names it.
	Model string
	// FinishReason is the provider's own word for why the reply ended
	// (Ollama done_reason: "stop", "length"; OpenAI finish_reason: "stop",
	// "tool_calls", "length", "content_filter").
	FinishReason string
	// Overrun is set when the client stopped reading the reply because it
	// ran past its size bound (twice the completion limit in chunks, or
	// its size in bytes) without ending: the server ignored the limit, or
	// streams without end. The connection is closed, the reply is cut
	// (FinishReason "length", no tool calls), and Overrun is the error
	// (kind ErrReplyTooLong, naming the limit and its setting) for a
	// caller that gives up on the model.
	Overrun error
}

// Truncated reports whether the reply was cut by the token limit (OpenAI
// finish_reason "length", Ollama done_reason "length"): its text is
// incomplete and must not be read as a final answer.
func (r *Response) Truncated() bool {
	return r != nil && r.FinishReason == "length"
}

// Usage counts the tokens of one Chat call, as the server counted them
// (Ollama prompt_eval_count and eval_count; OpenAI usage). Zero when the
// server did not say.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// Capabilities say what a model accepts.
type Capabilities struct {
	Tools  bool // function calling
	Vision bool // images in user messages
}

// ModelInfo describes the model a Client talks to.
type ModelInfo struct {
	Provider string
	Name     string
	// Digest identifies the exact weights when the server says (Ollama);
	// empty otherwise.
	Digest       string
	Capabilities Capabilities
	// ContextLength is the model's context window in tokens: on Ollama the
	// num_ctx parameter the model was created with if any, else the
	// architecture's context_length from /api/show model_info; on
	// OpenAI-compatible servers, which do not report it,
	// Options.ContextLength. 0 means unknown. Options.ContextLength, when
	// set, overrides what the server says on both.
	ContextLength int
	// MaxReplyTokens is the completion limit the client sends with every
	// request (Options.MaxReplyTokens, default applied).
	MaxReplyTokens int
}

// Client talks to one model on one server.
type Client interface {
	// Chat sends the conversation and returns the assistant's reply. onDelta,
	// if not nil, receives the reply's text as it streams. When a dropped
	// connection is retried, onDelta has already seen the text of the
	// failed attempt and then sees the retried reply from its start: treat
	// deltas as a live display; the Response is the reply.
	Chat(ctx context.Context, req Request, onDelta func(text string)) (*Response, error)
	// Model asks the server about the model.
	Model(ctx context.Context) (*ModelInfo, error)
}

// Options configure a Client. The zero value works: every field has a
// default.
type Options struct {
	// OllamaHost is the Ollama server: a URL or "host:port" as OLLAMA_HOST
	// accepts. Empty means $OLLAMA_HOST, else http://127.0.0.1:11434.
	OllamaHost string
	// BaseURL is the OpenAI-compatible API root. Empty means
	// $OPENAI_BASE_URL, else https://api.openai.com/v1.
	BaseURL string
	// APIKey authenticates to the OpenAI-compatible server. Empty means
	// $OLLAMA_API_KEY when BaseURL is on ollama.com (hosted models through
	// Ollama's OpenAI-compatible endpoint), else $OPENAI_API_KEY.
	APIKey string
	// Vision says whether an OpenAI-compatible model accepts images, which
	// no such server reports. nil means: only OpenAI's multimodal families
	// on api.openai.com do. Ollama reports it, and ignores this.
	Vision *bool
	// HTTPClient makes the requests; nil means a plain http.Client.
	HTTPClient *http.Client
	// MaxRetries is how many times a failed request is retried. 0 means 4;
	// a negative value disables retries.
	MaxRetries int
	// RetryBaseDelay is the first backoff delay, doubled each retry. 0 means
	// 500ms.
	RetryBaseDelay time.Duration
	// FirstTokenTimeout bounds how long one attempt waits for the server to
	// start answering: the response headers and then the first streamed
	// chunk (a model being loaded into memory answers late). 0 means
	// DefaultFirstTokenTimeout; a negative value means no bound.
	FirstTokenTimeout time.Duration
	// Timeout is the idle timeout of a streamed reply: the longest wait
	// between two chunks once the reply has started. 0 means
	// DefaultIdleTimeout; a negative value means no bound.
	Timeout time.Duration
	// A request that hits either bound fails with ErrTimeout, not retried
	// (a slow model stays slow), whose message names the bound, its value
	// and the setting that changes it: FirstTokenTimeoutSetting and
	// TimeoutSetting name it for the user (e.g. "--model-idle-timeout");
	// empty means the Options field's name.
	FirstTokenTimeoutSetting, TimeoutSetting string

	// ContextLength, when > 0, is the model's context window in tokens,
	// overriding what the server reports (ModelInfo.ContextLength); for
	// OpenAI-compatible servers, which report none, it is the only source.
	ContextLength int

	// MaxReplyTokens is the completion limit every request carries (OpenAI
	// max_tokens, or max_completion_tokens on api.openai.com; Ollama
	// num_predict), unless the Request asks for less. 0 means
	// DefaultMaxReplyTokens. The client also stops reading a reply that
	// runs past it without ending (Response.Overrun).
	// MaxReplyTokensSetting names it for the user, as TimeoutSetting does.
	MaxReplyTokens        int
	MaxReplyTokensSetting string
}

// The defaults of Options.FirstTokenTimeout and Options.Timeout.
const (
	DefaultFirstTokenTimeout = 10 * time.Minute
	DefaultIdleTimeout       = 2 * time.Minute
)

// DefaultMaxReplyTokens is the default completion limit. An agent's reply
// is a code cell or a short answer, rarely over 1,500 tokens; some hosted
// models (gpt-4-turbo, gpt-3.5-turbo) refuse a max_tokens over 4096; and a
// local model that loops at 20-50 tokens a second is stopped within a few
// minutes. Reasoning models count their hidden reasoning in it and need
// more (16384 or over).
const DefaultMaxReplyTokens = 4096

// providers maps a spec's provider to its constructor.
var providers = map[string]func(model string, opts Options) (Client, error){
	"ollama": newOllama,
	"openai": newOpenAI,
}

// New returns the client for spec, written "provider:model": for example
// "ollama:qwen2.5-coder:7b" (the model name keeps its own colon) or
// "openai:gpt-4o-mini".
func New(spec string, opts Options) (Client, error) {
	known := strings.Join(slices.Sorted(maps.Keys(providers)), ", ")
	provider, model, ok := strings.Cut(strings.TrimSpace(spec), ":")
	if !ok {
		return nil, fmt.Errorf("model %q: write it as provider:model, e.g. ollama:qwen2.5-coder:7b or openai:gpt-4o-mini (providers: %s)", spec, known)
	}
	newClient, found := providers[provider]
	if !found {
		return nil, fmt.Errorf("model %q: unknown provider %q; known providers: %s (write provider:model, e.g. ollama:qwen2.5-coder:7b)", spec, provider, known)
	}
	if model == "" {
		return nil, fmt.Errorf("model %q: no model name after %q", spec, provider+":")
	}
	if opts.MaxRetries == 0 {
		opts.MaxRetries = 4
	}
	if opts.RetryBaseDelay <= 0 {
		opts.RetryBaseDelay = 500 * time.Millisecond
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{}
	}
	return newClient(model, opts)
}

// validate checks the protocol rules both providers depend on: every
// assistant tool call is answered by exactly one tool message, and those
// tool messages come straight after it; images ride only on user messages.
func (r Request) validate() error {
	if len(r.Messages) == 0 {
		return errors.New("invalid request: no messages")
	}
	for _, t := range r.Tools {
		if t.Name == "" {
			return errors.New("invalid request: a tool has no name")
		}
		if len(t.Parameters) > 0 && !isJSONObject(t.Parameters) {
			return fmt.Errorf("invalid request: tool %s: parameters are not a JSON schema object", t.Name)
		}
	}
	open := map[string]bool{} // calls of the last assistant message not yet answered
	for i, m := range r.Messages {
		if len(open) > 0 && m.Role != RoleTool {
			return fmt.Errorf("invalid request: message %d (%s): tool calls %s have no tool message; send one tool message per tool call id straight after the assistant message", i, m.Role, pendingIDs(open))
		}
		if len(m.Images) > 0 && m.Role != RoleUser {
			return fmt.Errorf("invalid request: message %d (%s) carries images; only user messages may (send a chart in a follow-up user message)", i, m.Role)
		}
		if len(m.ToolCalls) > 0 && m.Role != RoleAssistant {
			return fmt.Errorf("invalid request: message %d (%s) carries tool calls; only assistant messages may", i, m.Role)
		}
		switch m.Role {
		case RoleSystem, RoleUser:
		case RoleAssistant:
			for _, tc := range m.ToolCalls {
				switch {
				case tc.ID == "" || tc.Name == "":
					return fmt.Errorf("invalid request: message %d: a tool call lacks its id or name", i)
				case open[tc.ID]:
					return fmt.Errorf("invalid request: message %d: tool call id %s appears twice", i, tc.ID)
				}
				open[tc.ID] = true
			}
		case RoleTool:
			if !open[m.ToolCallID] {
				return fmt.Errorf("invalid request: message %d: tool message for %q answers no open tool call of the assistant message before it (one tool message per tool call id)", i, m.ToolCallID)
			}
			delete(open, m.ToolCallID)
		default:
			return fmt.Errorf("invalid request: message %d: unknown role %q", i, m.Role)
		}
	}
	if len(open) > 0 {
		return fmt.Errorf("invalid request: the conversation ends with tool calls %s unanswered", pendingIDs(open))
	}
	return nil
}

func pendingIDs(open map[string]bool) string {
	return strings.Join(slices.Sorted(maps.Keys(open)), ", ")
}

func isJSONObject(b []byte) bool {
	var v map[string]json.RawMessage
	return json.Unmarshal(b, &v) == nil && v != nil
}
