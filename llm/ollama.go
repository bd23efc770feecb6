package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// ollamaClient talks to an Ollama server through its own API package:
// /api/chat (NDJSON stream), /api/show (capabilities), /api/tags (digest).
type ollamaClient struct {
	api           *api.Client
	model         string
	contextLength int // Options.ContextLength
	policy        policy
	target        target
}

func newOllama(name string, opts Options) (Client, error) {
	raw := opts.OllamaHost
	if raw == "" {
		raw = os.Getenv("OLLAMA_HOST")
	}
	base, err := ollamaHost(raw)
	if err != nil {
		return nil, err
	}
	return &ollamaClient{
		api:           api.NewClient(base, recording(opts.HTTPClient)),
		model:         name,
		contextLength: opts.ContextLength,
		policy:        newPolicy(opts),
		target: target{provider: "ollama", model: name, host: base.String(), hints: hints{
			unreachable:      "is Ollama running there? Start it with `ollama serve`, or point OLLAMA_HOST at it",
			unauthorized:     "the server refused this client: for ollama.com cloud models run `ollama signin`; otherwise check what guards OLLAMA_HOST",
			unknownModel:     fmt.Sprintf("run `ollama pull %s` (and check that OLLAMA_HOST is an Ollama server)", name),
			rateLimited:      "the server kept refusing for load; wait and run again",
			toolsUnsupported: "the model does not do tool calling (`ollama show " + name + "` lists its capabilities)",
			limitRefused:     newReplyLimit(opts).hint(),
		}},
	}, nil
}

// ollamaHost reads a server address the way Ollama reads OLLAMA_HOST: the
// scheme is optional (http), so is the port (11434, or 80/443 after an
// explicit http/https), and "ollama.com" alone means https://ollama.com:443.
// Empty means http://127.0.0.1:11434.
func ollamaHost(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	scheme, hostport, ok := strings.Cut(s, "://")
	defaultPort := "11434"
	switch {
	case !ok && s == "ollama.com":
		scheme, hostport = "https", "ollama.com:443"
	case !ok:
		scheme, hostport = "http", s
	case scheme == "http":
		defaultPort = "80"
	case scheme == "https":
		defaultPort = "443"
	default:
		return nil, fmt.Errorf("ollama host %q: the scheme must be http or https", s)
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = strings.Trim(hostport, "[]"), defaultPort
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return nil, fmt.Errorf("ollama host %q: bad port %q", s, port)
	}
	u := &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port)}
	if path != "" {
		u.Path = "/" + path
	}
	return u, nil
}

func (c *ollamaClient) Chat(ctx context.Context, req Request, onDelta func(string)) (*Response, error) {
	req.MaxTokens = c.policy.reply.of(req)
	creq, err := c.chatRequest(req)
	if err != nil {
		return nil, &Error{Provider: c.target.provider, Op: "chat", Model: c.model, Host: c.target.host, Err: err}
	}
	// Calls keep the server's ids (Ollama 0.17.4 sends them); older servers
	// send none, so they are named after the reply's place in the
	// conversation, which is the same on every retry.
	turn := 0
	for _, m := range req.Messages {
		if m.Role == RoleAssistant {
			turn++
		}
	}
	start := time.Now()
	var resp *Response
	err = c.policy.run(ctx, c.target, "chat", func(ctx context.Context) error {
		var err error
		resp, err = c.chatOnce(ctx, creq, req.MaxTokens, turn, onDelta)
		return err
	}, c.classify)
	if err != nil {
		return nil, err
	}
	resp.Duration = time.Since(start)
	return resp, nil
}

// chatOnce makes one streamed /api/chat request, sent with a completion
// limit of tokens; a reply that runs past its bound is cut there.
func (c *ollamaClient) chatOnce(ctx context.Context, creq *api.ChatRequest, tokens, turn int, onDelta func(string)) (*Response, error) {
	var content strings.Builder
	var calls []ToolCall
	var final *api.ChatResponse
	raw := &rawArguments{}
	if rec, ok := ctx.Value(recordKey{}).(*record); ok {
		rec.tap = raw
	}
	bound := c.policy.reply.bound(ctx, tokens)
	err := c.api.Chat(ctx, creq, func(r api.ChatResponse) error {
		if !bound.chunk() {
			return errReplyBound
		}
		if r.Message.Content != "" {
			content.WriteString(r.Message.Content)
			if onDelta != nil {
				onDelta(r.Message.Content)
			}
		}
		for _, tc := range r.Message.ToolCalls {
			args, err := json.Marshal(tc.Function.Arguments)
			if err != nil {
				return fmt.Errorf("encoding the arguments of a %s call: %w", tc.Function.Name, err)
			}
			id := tc.ID
			if id == "" {
				id = fmt.Sprintf("call_%d_%d", turn, len(calls))
			}
			calls = append(calls, ToolCall{ID: id, Name: tc.Function.Name, Arguments: string(args)})
		}
		if r.Done {
			final = &r
		}
		return nil
	})
	if bound.over() {
		return bound.cut(c.target, c.model, content.String()), nil
	}
	if err != nil {
		return nil, err
	}
	// The api package ends a stream quietly when the connection drops (and
	// when an error status comes with an empty body): a reply is complete
	// only once the server said done.
	if final == nil {
		return nil, errDropped
	}
	if args := raw.all(); len(args) == len(calls) {
		for i := range calls {
			calls[i].Arguments = args[i]
		}
	}
	return &Response{
		Message:      Message{Role: RoleAssistant, Content: content.String(), ToolCalls: calls},
		Usage:        Usage{PromptTokens: final.PromptEvalCount, CompletionTokens: final.EvalCount},
		Model:        final.Model,
		FinishReason: final.DoneReason,
	}, nil
}

// chatRequest translates a Request into Ollama's. Temperature, seed, the
// token bound and the context window go in options; tool messages name their tool.
func (c *ollamaClient) chatRequest(req Request) (*api.ChatRequest, error) {
	if err := req.validate(); err != nil {
		return nil, err
	}
	stream := true
	creq := &api.ChatRequest{Model: c.model, Stream: &stream, Options: map[string]any{}}
	if req.Temperature != nil {
		creq.Options["temperature"] = *req.Temperature
	}
	if req.Seed != nil {
		creq.Options["seed"] = *req.Seed
	}
	if req.MaxTokens > 0 {
		creq.Options["num_predict"] = req.MaxTokens
	}
	if req.ContextWindow > 0 {
		creq.Options["num_ctx"] = req.ContextWindow
	}
	toolOf := map[string]string{} // call id → tool name
	for _, m := range req.Messages {
		am := api.Message{Role: string(m.Role), Content: m.Content, ToolCallID: m.ToolCallID, ToolName: m.ToolName}
		for _, img := range m.Images {
			am.Images = append(am.Images, api.ImageData(img))
		}
		for i, tc := range m.ToolCalls {
			args, err := orderedArguments(tc.Arguments)
			if err != nil {
				return nil, fmt.Errorf("tool call %s: arguments are not a JSON object: %w", tc.ID, err)
			}
			am.ToolCalls = append(am.ToolCalls, api.ToolCall{ID: tc.ID, Function: api.ToolCallFunction{Index: i, Name: tc.Name, Arguments: args}})
			toolOf[tc.ID] = tc.Name
		}
		if m.Role == RoleTool && am.ToolName == "" {
			am.ToolName = toolOf[m.ToolCallID]
		}
		creq.Messages = append(creq.Messages, am)
	}
	for _, t := range req.Tools {
		var params api.ToolFunctionParameters
		if len(t.Parameters) > 0 {
			if err := json.Unmarshal(t.Parameters, &params); err != nil {
				return nil, fmt.Errorf("tool %s: parameters: %w", t.Name, err)
			}
		}
		creq.Tools = append(creq.Tools, api.Tool{Type: "function", Function: api.ToolFunction{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	return creq, nil
}

// Model reads the capabilities and context length from /api/show
// (Options.ContextLength overrides the latter) and the digest from
// /api/tags (show does not report it; a model that is not pulled, such as
// a cloud model, has none).
func (c *ollamaClient) Model(ctx context.Context) (*ModelInfo, error) {
	var show *api.ShowResponse
	var list *api.ListResponse
	err := c.policy.run(ctx, c.target, "model info", func(ctx context.Context) error {
		var err error
		if show, err = c.api.Show(ctx, &api.ShowRequest{Model: c.model}); err != nil {
			return err
		}
		list, err = c.api.List(ctx)
		return err
	}, c.classify)
	if err != nil {
		return nil, err
	}
	info := &ModelInfo{Provider: c.target.provider, Name: c.model, Capabilities: Capabilities{
		Tools:  slices.Contains(show.Capabilities, model.CapabilityTools),
		Vision: slices.Contains(show.Capabilities, model.CapabilityVision),
	}, ContextLength: c.contextLength, MaxReplyTokens: c.policy.reply.tokens}
	if info.ContextLength == 0 {
		info.ContextLength = showContextLength(show)
	}
	want := c.model
	if !strings.Contains(want, ":") {
		want += ":latest"
	}
	for _, m := range list.Models {
		if m.Name == want || m.Model == want {
			info.Digest = m.Digest
			break
		}
	}
	return info, nil
}

// The api package decodes a call's arguments into an ordered map whose
// nested objects are Go maps, so re-encoding them sorts their keys: the
// answers object of final_answer would lose the model's order. The
// arguments are therefore read from the NDJSON stream itself, which the
// transport tees into rawArguments (record.tap), keeping the api package
// for everything else (its errors, ollama.com's request signing). And a
// call sent back in the history is rebuilt from its text key by key with
// the values as raw JSON, so nothing is reordered either way.

// rawArguments collects, from the NDJSON lines of a reply, the arguments
// of each tool call in order, as the server wrote them (compacted).
type rawArguments struct {
	pending []byte // the start of a line not yet complete
	args    []string
}

func (r *rawArguments) Write(p []byte) (int, error) {
	r.pending = append(r.pending, p...)
	for {
		i := bytes.IndexByte(r.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		r.line(r.pending[:i])
		r.pending = r.pending[i+1:]
	}
}

func (r *rawArguments) line(l []byte) {
	var chunk struct {
		Message struct {
			ToolCalls []struct {
				Function struct{ Arguments json.RawMessage }
			} `json:"tool_calls"`
		}
	}
	if json.Unmarshal(l, &chunk) != nil {
		return
	}
	for _, tc := range chunk.Message.ToolCalls {
		var b bytes.Buffer
		if json.Compact(&b, tc.Function.Arguments) != nil || b.Len() == 0 || b.String() == "null" {
			b.Reset()
			b.WriteString("{}")
		}
		r.args = append(r.args, b.String())
	}
}

// all returns the arguments of every call, the last line included.
func (r *rawArguments) all() []string {
	if len(bytes.TrimSpace(r.pending)) > 0 {
		r.line(r.pending)
		r.pending = nil
	}
	return r.args
}

// orderedArguments reads a JSON object into the api package's ordered
// arguments, keeping every value as its raw JSON.
func orderedArguments(text string) (api.ToolCallFunctionArguments, error) {
	args := api.NewToolCallFunctionArguments()
	if strings.TrimSpace(text) == "" {
		return args, nil
	}
	dec := json.NewDecoder(strings.NewReader(text))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return args, fmt.Errorf("want a JSON object, got %.40q", text)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return args, err
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return args, err
		}
		args.Set(tok.(string), value)
	}
	if _, err := dec.Token(); err != nil {
		return args, err
	}
	if dec.More() {
		return args, fmt.Errorf("text after the object in %.40q", text)
	}
	return args, nil
}

// showContextLength is the model's window as /api/show reports it: the
// num_ctx parameter the model was created with, else the architecture's
// context_length in model_info ("qwen2.context_length": 32768); 0 if
// neither is there.
func showContextLength(show *api.ShowResponse) int {
	for _, line := range strings.Split(show.Parameters, "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "num_ctx" {
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				return n
			}
		}
	}
	for key, v := range show.ModelInfo {
		if n, ok := v.(float64); ok && n > 0 && strings.HasSuffix(key, ".context_length") {
			return int(n)
		}
	}
	return 0
}

// classify reads the server's reason from the body the transport kept
// (the api package keeps only {"error": ...} bodies whole, and of others
// their first line or nothing) and adds the sign-in address, when the
// server sends one, to the shared classification.
func (c *ollamaClient) classify(err error, rec *record) (*Error, bool) {
	var auth api.AuthorizationError
	errors.As(err, &auth)
	var status api.StatusError
	if reason := serverReason(rec.errorBody); reason != "" {
		err = errors.New(reason)
	} else if errors.As(err, &status) && status.ErrorMessage != "" {
		err = errors.New(status.ErrorMessage)
	}
	e, retry := c.target.hints.classify(err, rec.status)
	if auth.SigninURL != "" {
		e.Hint += " (sign in at " + auth.SigninURL + ")"
	}
	return e, retry
}
