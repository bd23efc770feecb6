// Package llm holds the model clients: a small, provider-neutral layer over a
// local Ollama server (github.com/ollama/ollama/api) and OpenAI-compatible
// servers (github.com/openai/openai-go/v3).
//
// A [Client] streams one chat turn at a time ([Client.Chat]) and reports what
// the model can do ([Client.Model]). The conversation is the caller's: it
// sends the whole history each turn, and the package checks the protocol
// rules providers reject requests for (one tool message per tool call id,
// straight after the assistant message that made the calls; images only on
// user messages), so a mistake surfaces as a clear error rather than a 400.
//
// Both providers share one retry policy (retry.go): exponential backoff with
// jitter on 429, 408, 5xx and dropped connections, honouring Retry-After;
// and two time limits per request, first-token and idle, that cancel a
// reply that does not come. Every request carries a completion limit
// ([Options].MaxReplyTokens), and a reply that runs past its size bound
// without ending (the server ignores the limit) is cut there, the
// connection closed (bound.go): memory stays bounded whatever the server
// streams. Failures are *[Error] values whose Kind is one of
// [ErrUnreachable], [ErrUnauthorized], [ErrUnknownModel],
// [ErrRateLimited], [ErrToolsUnsupported], [ErrTimeout] or
// [ErrReplyTooLong], for errors.Is, and whose message carries the server's
// own reason whatever the shape of its error body.
package llm
