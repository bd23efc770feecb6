// Package evaltest is a scripted model server for eval tests: it speaks
// Ollama's real wire format (/api/show, /api/tags, NDJSON /api/chat, through
// llmtest's writers), finds
// which DABench question a conversation is about, runs a cell in the
// kernel, then answers with the values a test chose.
package evaltest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"

	"github.com/analyst-cli/analyst/llm/llmtest"
)

// Digest is the model digest the server reports.
const Digest = "sha256:e7a1e7a1"

// Model is the scripted server.
type Model struct {
	*httptest.Server
	// Questions maps the text sent for a question (a substring of the user
	// message) to what the model answers: named values, or nil for no
	// final answer (a reply with no tool call and no @name[value]).
	Questions map[string]map[string]string
	// Code is the cell the model runs before answering; Codes, by the same
	// keys as Questions, the cell for a question when it has its own.
	Code  string
	Codes map[string]string

	mu    sync.Mutex
	chats []Chat
}

// Chat is one /api/chat request as the server got it.
type Chat struct {
	Messages []Message `json:"messages"`
	Tools    []any     `json:"tools"`
	Options  map[string]any
}

// Message is a chat message as sent.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Printed, as an answer's value, stands for what the question's cell
// printed after "ANSWER=" (the rest of that line, the last one printed):
// an answer computed in the kernel.
const Printed = "<printed>"

var printedRe = regexp.MustCompile(`ANSWER=([^\n]*)`)

// New starts a scripted server; Close it when done.
func New(questions map[string]map[string]string) *Model {
	m := &Model{Questions: questions, Code: `print("ROWS", len(df))`}
	m.Server = httptest.NewServer(http.HandlerFunc(m.serve))
	return m
}

// Chats returns the chat requests so far.
func (m *Model) Chats() []Chat {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Chat(nil), m.chats...)
}

func (m *Model) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	switch r.URL.Path {
	case "/api/show":
		llmtest.OllamaShow(w, `["completion","tools"]`)
		return
	case "/api/tags":
		llmtest.OllamaTags(w, "scripted:1b", Digest)
		return
	case "/api/chat":
	default:
		http.NotFound(w, r)
		return
	}
	var c Chat
	if err := json.Unmarshal(body, &c); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.chats = append(m.chats, c)
	m.mu.Unlock()

	var answer map[string]string
	found, ran, code, output := false, false, m.Code, ""
	for _, msg := range c.Messages {
		if msg.Role == "user" && !found {
			for q, a := range m.Questions {
				if strings.Contains(msg.Content, q) {
					answer, found = a, true
					if qc, ok := m.Codes[q]; ok {
						code = qc
					}
					break
				}
			}
		}
		if msg.Role == "tool" {
			ran, output = true, msg.Content
		}
	}
	msg := map[string]any{"role": "assistant", "content": ""}
	switch {
	case !found:
		msg["content"] = "I cannot tell which question this is."
	case !ran:
		msg["tool_calls"] = []any{map[string]any{"function": map[string]any{"name": "run_python", "arguments": map[string]any{"code": code}}}}
	case answer == nil:
		msg["content"] = "The answer is probably around forty."
	default:
		msg["tool_calls"] = []any{map[string]any{"function": map[string]any{"name": "final_answer",
			"arguments": map[string]any{"answers": printed(answer, output), "summary": "Computed from df."}}}}
	}
	llmtest.OllamaChat(w, "scripted:1b", msg, "")
}

// printed is answer with each Printed value replaced by what the cell
// printed after ANSWER= in output.
func printed(answer map[string]string, output string) map[string]string {
	out := map[string]string{}
	for k, v := range answer {
		if v == Printed {
			v = ""
			if ms := printedRe.FindAllStringSubmatch(output, -1); ms != nil {
				v = strings.TrimSpace(ms[len(ms)-1][1])
			}
		}
		out[k] = v
	}
	return out
}
