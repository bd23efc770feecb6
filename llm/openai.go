package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

const openaiDefaultBaseURL = "https://api.openai.com/v1"

// openaiClient talks to an OpenAI-compatible server through openai-go:
// /chat/completions (SSE stream) and /models/{id}.
type openaiClient struct {
	chat     openai.ChatService
	models   openai.ModelService
	model    string
	official bool  // the server is api.openai.com
	vision   *bool // Options.Vision
	ctxLen   int   // Options.ContextLength
	policy   policy
	target   target
}

func newOpenAI(name string, opts Options) (Client, error) {
	base := opts.BaseURL
	if base == "" {
		base = os.Getenv("OPENAI_BASE_URL")
	}
	if base == "" {
		base = openaiDefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("base URL %q: want an http(s) URL such as %s", base, openaiDefaultBaseURL)
	}
	keyVar := "OPENAI_API_KEY"
	if u.Hostname() == "ollama.com" {
		keyVar = "OLLAMA_API_KEY"
	}
	key := opts.APIKey
	if key == "" {
		key = os.Getenv(keyVar)
	}
	unauthorized := "check the API key in " + keyVar
	if key == "" {
		unauthorized = "no API key was given: set " + keyVar
	}
	// openai.NewClient also reads OPENAI_ORG_ID, OPENAI_PROJECT_ID and the
	// like from the environment; the base URL and key given here win.
	client := openai.NewClient(
		option.WithBaseURL(base),
		option.WithAPIKey(key),
		option.WithHTTPClient(recording(opts.HTTPClient)),
		option.WithMaxRetries(0), // policy.run retries, the same way for every provider
	)
	return &openaiClient{
		chat:     client.Chat,
		models:   client.Models,
		model:    name,
		official: u.Hostname() == "api.openai.com",
		vision:   opts.Vision,
		ctxLen:   opts.ContextLength,
		policy:   newPolicy(opts),
		target: target{provider: "openai", model: name, host: base, hints: hints{
			unreachable:      "check the network and the base URL (--base-url, OPENAI_BASE_URL)",
			unauthorized:     unauthorized,
			unknownModel:     fmt.Sprintf("the server does not serve %q (GET %s/models lists what it does), or the base URL is not an OpenAI-compatible API root (it usually ends in /v1)", name, strings.TrimSuffix(base, "/")),
			rateLimited:      "the server kept answering 429; wait, or lower the request rate",
			toolsUnsupported: "the model or server does not do tool calling (vLLM needs --enable-auto-tool-choice and --tool-call-parser, llama.cpp --jinja)",
			limitRefused:     newReplyLimit(opts).hint(),
		}},
	}, nil
}

func (c *openaiClient) Chat(ctx context.Context, req Request, onDelta func(string)) (*Response, error) {
	req.MaxTokens = c.policy.reply.of(req)
	params, err := c.params(req)
	if err != nil {
		return nil, &Error{Provider: c.target.provider, Op: "chat", Model: c.model, Host: c.target.host, Err: err}
	}
	start := time.Now()
	var resp *Response
	err = c.policy.run(ctx, c.target, "chat", func(ctx context.Context) error {
		var err error
		resp, err = c.chatOnce(ctx, params, req.MaxTokens, onDelta)
		return err
	}, c.classify)
	if err != nil {
		return nil, err
	}
	resp.Duration = time.Since(start)
	return resp, nil
}

// chatOnce makes one streamed /chat/completions request, sent with a
// completion limit of tokens; a reply that runs past its bound is cut
// there.
func (c *openaiClient) chatOnce(ctx context.Context, params openai.ChatCompletionNewParams, tokens int, onDelta func(string)) (*Response, error) {
	bound := c.policy.reply.bound(ctx, tokens)
	stream := c.chat.Completions.NewStreaming(ctx, params)
	defer stream.Close()
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		if !bound.chunk() {
			break
		}
		chunk := stream.Current()
		if !acc.AddChunk(chunk) {
			return nil, fmt.Errorf("the server sent a chunk that does not continue the reply: %s", chunk.RawJSON())
		}
		for _, ch := range chunk.Choices {
			if ch.Index == 0 && ch.Delta.Content != "" && onDelta != nil {
				onDelta(ch.Delta.Content)
			}
		}
	}
	if bound.over() {
		var text string
		if len(acc.Choices) > 0 {
			text = acc.Choices[0].Message.Content
		}
		return bound.cut(c.target, c.model, text), nil
	}
	if err := stream.Err(); err != nil {
		return nil, err
	}
	// A stream can end without error when the connection drops: the reply
	// is complete only once it has a finish reason.
	if len(acc.Choices) == 0 || acc.Choices[0].FinishReason == "" {
		return nil, errDropped
	}
	choice := acc.Choices[0]
	msg := Message{Role: RoleAssistant, Content: choice.Message.Content}
	for _, tc := range choice.Message.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return &Response{
		Message:      msg,
		Usage:        Usage{PromptTokens: int(acc.Usage.PromptTokens), CompletionTokens: int(acc.Usage.CompletionTokens)},
		Model:        acc.Model,
		FinishReason: string(choice.FinishReason),
	}, nil
}

// params translates a Request. The assistant message goes back with its
// tool calls as they came (arguments as the JSON text the model wrote), each
// tool message answers one call id, and images become image_url parts with
// PNG data URLs, on user messages only (validate enforces that).
func (c *openaiClient) params(req Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{
		Model:         c.model,
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	if err := req.validate(); err != nil {
		return p, err
	}
	if req.Temperature != nil {
		p.Temperature = openai.Float(*req.Temperature)
	}
	if req.Seed != nil {
		p.Seed = openai.Int(int64(*req.Seed))
	}
	// OpenAI's reasoning models refuse max_tokens; servers that copy the API
	// know max_tokens but not all know its successor.
	if req.MaxTokens > 0 && c.official {
		p.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
	} else if req.MaxTokens > 0 {
		p.MaxTokens = openai.Int(int64(req.MaxTokens))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case RoleSystem:
			p.Messages = append(p.Messages, openai.SystemMessage(m.Content))
		case RoleUser:
			if len(m.Images) == 0 {
				p.Messages = append(p.Messages, openai.UserMessage(m.Content))
				break
			}
			var parts []openai.ChatCompletionContentPartUnionParam
			if m.Content != "" {
				parts = append(parts, openai.TextContentPart(m.Content))
			}
			for _, img := range m.Images {
				parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{
					URL: "data:image/png;base64," + base64.StdEncoding.EncodeToString(img),
				}))
			}
			p.Messages = append(p.Messages, openai.UserMessage(parts))
		case RoleAssistant:
			var a openai.ChatCompletionAssistantMessageParam
			if m.Content != "" || len(m.ToolCalls) == 0 {
				a.Content.OfString = openai.String(m.Content)
			}
			for _, tc := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       tc.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: tc.Arguments},
					},
				})
			}
			p.Messages = append(p.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case RoleTool:
			p.Messages = append(p.Messages, openai.ToolMessage(m.Content, m.ToolCallID))
		}
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name}
		if t.Description != "" {
			fn.Description = openai.String(t.Description)
		}
		if len(t.Parameters) > 0 {
			if err := json.Unmarshal(t.Parameters, &fn.Parameters); err != nil {
				return p, fmt.Errorf("tool %s: parameters: %w", t.Name, err)
			}
		}
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(fn))
	}
	return p, nil
}

// Model asks GET /models/{id}, which says the model exists and nothing
// about what it can do: OpenAI has no capability endpoint, and neither do
// the servers that copy its API. Some of those (llama.cpp, vLLM) have no
// /models/{id} either, so a 404 is checked against the GET /models list
// before the model is called unknown. Capabilities are then Tools: true
// (every server this package targets takes tools; a model that ignores
// them answers in text, which the pipeline handles), Vision from
// openaiVision, and ContextLength from Options (no server reports it).
func (c *openaiClient) Model(ctx context.Context) (*ModelInfo, error) {
	info := &ModelInfo{Provider: c.target.provider, Name: c.model, Capabilities: Capabilities{Tools: true, Vision: c.openaiVision()},
		ContextLength: c.ctxLen, MaxReplyTokens: c.policy.reply.tokens}
	var m *openai.Model
	err := c.policy.run(ctx, c.target, "model info", func(ctx context.Context) error {
		var err error
		m, err = c.models.Get(ctx, c.model)
		return err
	}, c.classify)
	if err == nil {
		if m.ID != "" {
			info.Name = m.ID
		}
		return info, nil
	}
	if !errors.Is(err, ErrUnknownModel) {
		return nil, err
	}
	var listed []string
	listErr := c.policy.run(ctx, c.target, "model list", func(ctx context.Context) error {
		page, err := c.models.List(ctx)
		if err != nil {
			return err
		}
		listed = listed[:0]
		for _, m := range page.Data {
			listed = append(listed, m.ID)
		}
		return nil
	}, c.classify)
	if listErr != nil || !slices.Contains(listed, c.model) {
		return nil, err
	}
	return info, nil
}

// openaiVision says whether the model takes images. No OpenAI-compatible
// server reports it, so: Options.Vision when set; otherwise true only on
// api.openai.com for the multimodal families (gpt-4o, gpt-4.1, gpt-5, o3,
// o4-mini) minus their audio, realtime, speech, transcription and search
// variants and o3-mini; false everywhere else, so charts go back to the
// model as their descriptions rather than as images it may not read.
func (c *openaiClient) openaiVision() bool {
	if c.vision != nil {
		return *c.vision
	}
	if !c.official {
		return false
	}
	for _, no := range []string{"audio", "realtime", "tts", "transcribe", "search", "o3-mini"} {
		if strings.Contains(c.model, no) {
			return false
		}
	}
	for _, family := range []string{"gpt-4o", "gpt-4.1", "gpt-5", "o3", "o4-mini"} {
		if strings.HasPrefix(c.model, family) {
			return true
		}
	}
	return false
}

// classify adds the server's reason and OpenAI's quota case to the shared
// classification: a 429 for insufficient_quota is not retried, since
// waiting does not refill an account. openai-go decodes only error bodies
// in OpenAI's shape ({"error":{"message":...}}), so the reason is read from
// the body the transport kept, whatever its shape (serverReason).
func (c *openaiClient) classify(err error, rec *record) (*Error, bool) {
	var apiErr *openai.Error
	errors.As(err, &apiErr)
	if reason := serverReason(rec.errorBody); reason != "" {
		err = errors.New(reason)
	} else if apiErr != nil && apiErr.Message != "" {
		err = errors.New(apiErr.Message)
	}
	e, retry := c.target.hints.classify(err, rec.status)
	if apiErr != nil && apiErr.Code == "insufficient_quota" {
		e.Hint = "the account has no quota left: check its plan and billing"
		retry = false
	}
	return e, retry
}
