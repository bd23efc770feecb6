package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/llm/llmtest"
)

// sentLimit is the completion limit a chat request body carries: Ollama's
// options.num_predict, OpenAI's max_tokens (nil when absent).
func sentLimit(provider string, body map[string]any) any {
	if provider == "ollama" {
		opts, _ := body["options"].(map[string]any)
		return opts["num_predict"]
	}
	return body["max_tokens"]
}

// Every request carries a completion limit: the default, the client's
// setting, or less when the request asks for less; Model reports it.
func TestChatSendsCompletionLimit(t *testing.T) {
	tests := []struct {
		name    string
		setting int // Options.MaxReplyTokens
		asked   int // Request.MaxTokens
		want    float64
	}{
		{"default", 0, 0, DefaultMaxReplyTokens},
		{"setting", 1000, 0, 1000},
		{"request asks for less", 1000, 300, 300},
		{"request asks for more", 1000, 5000, 1000},
	}
	for _, provider := range []string{"ollama", "openai"} {
		for _, tt := range tests {
			t.Run(provider+"/"+tt.name, func(t *testing.T) {
				s := newServer(t, route(map[string]http.HandlerFunc{
					"/api/chat":            okStep("ollama"),
					"/v1/chat/completions": okStep("openai"),
					"/api/show":            reply(200, `{"modelfile":"FROM x","details":{},"model_info":{},"capabilities":["completion"]}`),
					"/api/tags":            reply(200, `{"models":[]}`),
					"/v1/models/m":         reply(200, `{"id":"m","object":"model","created":1,"owned_by":"x"}`),
				}))
				c := testClient(t, provider, "m", s, Options{MaxReplyTokens: tt.setting})
				req := hello()
				req.MaxTokens = tt.asked
				if _, err := c.Chat(context.Background(), req, nil); err != nil {
					t.Fatal(err)
				}
				if got := sentLimit(provider, s.JSON(t, 0)); got != tt.want {
					t.Errorf("completion limit sent = %v, want %v (body %s)", got, tt.want, s.Requests()[0].Body)
				}
				info, err := c.Model(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				want := tt.setting
				if want == 0 {
					want = DefaultMaxReplyTokens
				}
				if info.MaxReplyTokens != want {
					t.Errorf("ModelInfo.MaxReplyTokens = %d, want %d", info.MaxReplyTokens, want)
				}
			})
		}
	}
}

// A server that ignores the limit and streams without end (a looping
// model; a proxy that lost the end): the client stops at the bound, hangs
// up, and returns the reply cut, with the error to give up with, naming
// the limit and its setting. Not retried. Both the many-chunks and the
// one-endless-chunk forms.
func TestChatStopsEndlessReply(t *testing.T) {
	const limit = 300
	for _, provider := range []string{"ollama", "openai"} {
		model := map[string]string{"ollama": llmtest.OllamaModel, "openai": llmtest.OpenAIModel}[provider]
		for name, wantHit := range map[string]string{"chunks": "856 chunks (twice the completion limit of 300 tokens, and 256 more)", "line": "556 KiB (1 KiB for each token of the completion limit of 300 tokens, and 256 more)"} {
			t.Run(provider+"/"+name, func(t *testing.T) {
				ended := make(chan int, 1)
				h := llmtest.EndlessLine(provider, model)
				if name == "chunks" {
					h = llmtest.EndlessChunks(provider, model, func(n int) { ended <- n })
				} else {
					h = func(w http.ResponseWriter, r *http.Request) {
						llmtest.EndlessLine(provider, model)(w, r)
						ended <- 0
					}
				}
				s := newServer(t, h)
				c := testClient(t, provider, model, s, Options{MaxReplyTokens: limit, MaxReplyTokensSetting: "--max-reply-tokens"})
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				resp, err := c.Chat(ctx, hello(), nil)
				if err != nil {
					t.Fatalf("Chat: %v", err)
				}
				if !resp.Truncated() || resp.Overrun == nil || !errors.Is(resp.Overrun, ErrReplyTooLong) || len(resp.Message.ToolCalls) > 0 {
					t.Fatalf("response %+v: want cut (finish length) with an ErrReplyTooLong overrun", resp)
				}
				mustContain(t, resp.Overrun.Error(), wantHit, "--max-reply-tokens", "connection was closed", model, s.URL)
				// The text so far: the chunks read whole (none of a chunk
				// that never ended).
				text := resp.Message.Content
				if whole := strings.HasPrefix(text, llmtest.EndlessText); whole != (name == "chunks") || len(text) > (limit+replyChunkSlack)*replyBytesPerToken {
					t.Errorf("kept %d bytes of text starting %.40q: want the whole chunks read so far, within the bound", len(text), text)
				}
				select {
				case <-ended:
				case <-time.After(10 * time.Second):
					t.Fatal("the server is still streaming: the client did not hang up")
				}
				if n := len(s.Requests()); n != 1 {
					t.Errorf("%d requests: a cut reply is not retried", n)
				}
				if got := sentLimit(provider, s.JSON(t, 0)); got != float64(limit) {
					t.Errorf("completion limit sent = %v, want %d", got, limit)
				}
			})
		}
	}
}

// A reply exactly at the bound is read whole; one chunk more is cut. A
// server that honours the limit ends with "length" long before: a plain
// truncated reply, no overrun.
func TestChatReplyBoundEdge(t *testing.T) {
	const limit = 100
	maxChunks := 2*limit + replyChunkSlack
	for _, provider := range []string{"ollama", "openai"} {
		for _, tt := range []struct {
			name    string
			text    int // text chunks before the end
			finish  string
			overrun bool
		}{
			{"honours the limit", limit, "length", false},
			{"at the bound", maxChunks - trailer(provider), "stop", false},
			{"one chunk over", maxChunks - trailer(provider) + 1, "stop", true},
		} {
			t.Run(provider+"/"+tt.name, func(t *testing.T) {
				s := newServer(t, stream(provider, tt.text, tt.finish))
				c := testClient(t, provider, "m", s, Options{MaxReplyTokens: limit})
				resp, err := c.Chat(context.Background(), hello(), nil)
				if err != nil {
					t.Fatal(err)
				}
				if (resp.Overrun != nil) != tt.overrun || !resp.Truncated() && tt.finish == "length" {
					t.Fatalf("finish %q, overrun %v; want overrun %v", resp.FinishReason, resp.Overrun, tt.overrun)
				}
				if want := strings.Repeat("x ", tt.text); !tt.overrun && resp.Message.Content != want {
					t.Errorf("text of %d bytes, want %d", len(resp.Message.Content), len(want))
				}
			})
		}
	}
}

// trailer is how many chunks of provider's stream carry no text: Ollama's
// done line; OpenAI's finish and usage chunks.
func trailer(provider string) int {
	if provider == "ollama" {
		return 1
	}
	return 2
}

// stream is a reply of n text chunks ("x ") that ends with finish.
func stream(provider string, n int, finish string) http.HandlerFunc {
	var lines []string
	for range n {
		if provider == "ollama" {
			lines = append(lines, `{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"x "},"done":false}`)
		} else {
			lines = append(lines, `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"x "},"finish_reason":null}]}`)
		}
	}
	if provider == "ollama" {
		done, _ := json.Marshal(map[string]any{"model": "m", "created_at": "2025-01-01T00:00:01Z", "message": map[string]any{"role": "assistant", "content": ""},
			"done": true, "done_reason": finish, "prompt_eval_count": 10, "eval_count": n})
		return ndjson(append(lines, string(done))...)
	}
	return sse(append(lines,
		fmt.Sprintf(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":%q}]}`, finish),
		fmt.Sprintf(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":%d,"total_tokens":%d}}`, n, n+10))...)
}

// A server that refuses the completion limit (over the model's output
// limit, or with the prompt over its window) gets an error that says which
// setting lowers it; not retried.
func TestCompletionLimitRefused(t *testing.T) {
	for name, body := range map[string]string{
		"vLLM window":         `{"object":"error","message":"This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (4904 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`,
		"OpenAI output limit": `{"error":{"message":"max_tokens is too large: 8192. This model supports at most 4096 completion tokens, whereas you provided 8192.","type":"invalid_request_error","param":"max_tokens","code":"invalid_value"}}`,
	} {
		for _, provider := range []string{"ollama", "openai"} {
			t.Run(provider+"/"+name, func(t *testing.T) {
				s := newServer(t, reply(400, body))
				c := testClient(t, provider, "m", s, Options{MaxReplyTokensSetting: "--max-reply-tokens"})
				_, err := c.Chat(context.Background(), hello(), nil)
				if err == nil {
					t.Fatal("no error")
				}
				mustContain(t, err.Error(), "completion limit (4096 tokens)", "lower the limit with --max-reply-tokens")
				if n := len(s.Requests()); n != 1 {
					t.Errorf("%d requests, want 1 (not retried)", n)
				}
			})
		}
	}
}
