// Package llmtest is the fake model server of every test that reaches a
// model: it speaks the real wire formats — Ollama's /api/show, /api/tags
// and NDJSON /api/chat, OpenAI's SSE /v1/chat/completions — and keeps what
// it was sent, so tests check the requests too. It does not import llm, so
// llm's own tests use it as well.
//
//   - Server answers request i with the i-th scripted handler (llm's tests:
//     retries, dropped streams, errors).
//   - Model plays scripted turns (text, tool calls, HTTP failures) in either
//     format (the agent and pipeline tests).
//   - The writers below (OllamaShow, OllamaTags, OllamaChat, OpenAIChat,
//     RefuseTools) serve servers that choose their replies from the
//     conversation (cmd's scripts, evals/evaltest).
//   - EndlessChunks and EndlessLine play a reply that never ends (a looping
//     model on a server that ignores the completion limit), in either
//     format; a Model plays it for a Turn with Endless set.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// Call is a tool call a scripted model makes; Args is sent as is (OpenAI)
// or parsed into an object (Ollama; text that is not JSON becomes
// {"code": Args}).
type Call struct{ Name, Args string }

// Code is a run_python call with the given code.
func Code(src string) Call {
	b, _ := json.Marshal(map[string]string{"code": src})
	return Call{"run_python", string(b)}
}

// Final is a final_answer call.
func Final(answers map[string]any, summary string) Call {
	b, _ := json.Marshal(map[string]any{"answers": answers, "summary": summary})
	return Call{"final_answer", string(b)}
}

// OllamaShow answers /api/show for a model with the given capabilities (a
// JSON list: `["completion","tools"]`).
func OllamaShow(w io.Writer, caps string) {
	fmt.Fprintf(w, `{"modelfile":"FROM x","details":{"family":"qwen2"},"model_info":{},"capabilities":%s}`, caps)
}

// OllamaTags answers /api/tags with one model and its digest.
func OllamaTags(w io.Writer, model, digest string) {
	fmt.Fprintf(w, `{"models":[{"name":%q,"model":%q,"size":1,"digest":%q}]}`, model, model, digest)
}

// OllamaChat streams an /api/chat reply of model: the message (role,
// content, tool_calls) in one line, then the final line with done_reason
// ("" is "stop") and token counts.
func OllamaChat(w http.ResponseWriter, model string, msg map[string]any, doneReason string) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	if doneReason == "" {
		doneReason = "stop"
	}
	line, _ := json.Marshal(map[string]any{"model": model, "created_at": "2025-01-01T00:00:00Z", "message": msg, "done": false})
	fmt.Fprintf(w, "%s\n", line)
	fmt.Fprintf(w, `{"model":%q,"created_at":"2025-01-01T00:00:01Z","message":{"role":"assistant","content":""},"done":true,"done_reason":%q,"total_duration":1000,"prompt_eval_count":100,"eval_count":20}`+"\n", model, doneReason)
}

// OllamaMessage is an assistant message with text and tool calls, as
// Ollama sends it (arguments as objects).
func OllamaMessage(text string, calls ...Call) map[string]any {
	msg := map[string]any{"role": "assistant", "content": text}
	var tcs []any
	for _, c := range calls {
		var args any
		if err := json.Unmarshal([]byte(c.Args), &args); err != nil {
			args = map[string]any{"code": c.Args}
		}
		tcs = append(tcs, map[string]any{"function": map[string]any{"name": c.Name, "arguments": args}})
	}
	if tcs != nil {
		msg["tool_calls"] = tcs
	}
	return msg
}

// OpenAIChat streams a /v1/chat/completions reply of model as server-sent
// events: the text, each tool call (ids call_N_i), the finish reason (""
// is "stop", or "tool_calls" with calls) and the usage, then [DONE].
func OpenAIChat(w http.ResponseWriter, model string, n int, text string, calls []Call, finish string) {
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta any, finish any) {
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	chunk(map[string]any{"role": "assistant", "content": text}, nil)
	for i, c := range calls {
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": fmt.Sprintf("call_%d_%d", n, i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": c.Args}}}}, nil)
	}
	if finish == "" {
		finish = "stop"
		if len(calls) > 0 {
			finish = "tool_calls"
		}
	}
	chunk(map[string]any{}, finish)
	fmt.Fprintf(w, `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":%q,"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120}}`+"\n\n", model)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// RefuseTools answers a request that offers tools the way a server without
// tool calling does: HTTP 400 with Ollama's or vLLM's message.
func RefuseTools(w http.ResponseWriter, provider string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	if provider == "ollama" {
		io.WriteString(w, `{"error":"registry.ollama.ai/library/qwen2.5-coder:7b does not support tools"}`)
		return
	}
	io.WriteString(w, `{"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}`)
}
