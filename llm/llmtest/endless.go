package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// EndlessText is what an endless reply repeats: a looping model's words.
const EndlessText = "and so the revenue grows again "

// EndlessChunks streams, in provider's wire format ("ollama" or "openai"),
// a reply that never ends: text chunks at full speed, one token's text
// each, never a finish reason or done — a looping model on a server that
// ignores the completion limit, or a proxy that lost the end. It stops
// when the client hangs up, and calls wrote, if not nil, with the chunks
// it wrote.
func EndlessChunks(provider, model string, wrote func(chunks int)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		contentType, line := endlessFormat(provider, model)
		w.Header().Set("Content-Type", contentType)
		n := 0
		for r.Context().Err() == nil {
			if _, err := io.WriteString(w, line); err != nil {
				break
			}
			n++
			w.(http.Flusher).Flush()
		}
		if wrote != nil {
			wrote(n)
		}
	}
}

// EndlessLine streams one chunk of a reply whose text never ends (no line
// break, no closing quote): what a broken proxy or a hostile server sends.
// It stops when the client hangs up.
func EndlessLine(provider, model string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		contentType, line := endlessFormat(provider, model)
		w.Header().Set("Content-Type", contentType)
		head, _, _ := strings.Cut(line, EndlessText)
		if _, err := io.WriteString(w, head); err != nil {
			return
		}
		text := strings.Repeat(EndlessText, 1024)
		for r.Context().Err() == nil {
			if _, err := io.WriteString(w, text); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}
}

// endlessFormat is the content type and one text chunk of provider's
// stream, as Ollama's /api/chat and OpenAI's /v1/chat/completions write
// them.
func endlessFormat(provider, model string) (contentType, line string) {
	if provider == "ollama" {
		b, _ := json.Marshal(map[string]any{"model": model, "created_at": "2025-01-01T00:00:00Z",
			"message": map[string]any{"role": "assistant", "content": EndlessText}, "done": false})
		return "application/x-ndjson", string(b) + "\n"
	}
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": model,
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": EndlessText}, "finish_reason": nil}}})
	return "text/event-stream", fmt.Sprintf("data: %s\n\n", b)
}
