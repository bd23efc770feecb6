package agent

import (
	"fmt"
	"unicode/utf8"

	"github.com/analyst-cli/analyst/llm"
)

// Context window management. Ollama's default window is small and it drops
// the oldest messages — the question itself — when a conversation outgrows
// it, so the agent asks for a window (num_ctx) that fits the conversation,
// and before the model's window would be exceeded it sends old cell outputs
// condensed. The system prompt and the questions are never condensed.
const (
	imageTokens      = 768   // what one chart image costs a vision model, roughly
	minContextWindow = 8192  // the smallest window asked for
	maxContextWindow = 32768 // the largest: memory on the server grows with it
	keepRecent       = 4     // the last messages are sent whole
	condensedKeep    = 300   // characters kept of a condensed message
)

// contextState is what the agent knows about the conversation's size.
type contextState struct {
	condensable []bool  // parallel to Agent.messages: outputs that may be condensed
	scale       float64 // server tokens per estimated token, from the last usage
}

// add appends m to the conversation; condensable marks cell outputs and
// other text the model has already read that may be shortened later.
func (a *Agent) add(m llm.Message, condensable bool) {
	a.messages = append(a.messages, m)
	a.ctx.condensable = append(a.ctx.condensable, condensable)
}

func estimateMessage(m llm.Message) int {
	n := EstimateTokens(m.Content) + 4
	for _, tc := range m.ToolCalls {
		n += EstimateTokens(tc.Name) + EstimateTokens(tc.Arguments) + 4
	}
	return n + imageTokens*len(m.Images)
}

func estimateAll(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += estimateMessage(m)
	}
	return n
}

// tokens counts msgs: the estimate, scaled by what the server counted last
// time (its usage), never below the estimate.
func (s *contextState) tokens(msgs []llm.Message) int {
	n := estimateAll(msgs)
	if s.scale > 1 {
		n = int(float64(n)*s.scale + 0.5)
	}
	return n
}

// observe calibrates the count against the server's own (Usage), where the
// server says.
func (s *contextState) observe(sent []llm.Message, resp *llm.Response) {
	if est := estimateAll(sent); resp.Usage.PromptTokens > 0 && est > 0 {
		s.scale = max(1, float64(resp.Usage.PromptTokens)/float64(est))
	}
}

func toolsTokens(tools []llm.Tool) int {
	n := 0
	for _, t := range tools {
		n += EstimateTokens(t.Name+t.Description+string(t.Parameters)) + 8
	}
	return n
}

// window is the context window the conversation must fit: the model's
// (ModelInfo.ContextLength), capped at maxContextWindow; 0 when unknown.
func (a *Agent) window() int {
	if a.Info == nil || a.Info.ContextLength <= 0 {
		return 0
	}
	return min(a.Info.ContextLength, maxContextWindow)
}

// replyReserve is the room left in the window for the reply.
func replyReserve(window int) int { return min(2048, window/4) }

// request builds the next Chat request: the conversation as sent (images
// the model has already seen left out, old outputs condensed to fit the
// window), the tools, sampling, and the window to ask for. It returns the
// window asked for and how many messages were condensed.
func (a *Agent) request(reflect bool) (llm.Request, int, int) {
	zero := 0.0
	seed := a.Seed
	req := llm.Request{Temperature: &zero, Seed: &seed}
	if a.tools() {
		req.Tools = agentTools
		if reflect {
			req.Tools = reflectTools
		}
	}
	msgs := a.outgoing()
	condensed := 0
	if w := a.window(); w > 0 {
		msgs, condensed = a.condense(msgs, w-toolsTokens(req.Tools)-replyReserve(w))
		fit(&req, a.ctx.tokens(msgs), w)
	}
	req.Messages = msgs
	return req, req.ContextWindow, condensed
}

// fit asks for a context window that holds the conversation (prompt
// tokens), the tools and room for the reply, doubling from
// minContextWindow up to the model's window w; and bounds the reply to
// what that window leaves, so that it stays within the model's context
// (the client's completion limit bounds it further).
func fit(req *llm.Request, prompt, w int) {
	tools := toolsTokens(req.Tools)
	need := prompt + tools + replyReserve(w)
	req.ContextWindow = minContextWindow
	for req.ContextWindow < need && req.ContextWindow < w {
		// Doubling keeps the number of distinct windows (each one a
		// model reload on Ollama) small.
		req.ContextWindow *= 2
	}
	req.ContextWindow = min(req.ContextWindow, w)
	req.MaxTokens = max(req.ContextWindow-prompt-tools, replyReserve(w))
}

// outgoing is a copy of the conversation in which the images of user
// messages the model has already answered are left out (they were re-sent
// with every request: one chart made a request 65 kB).
func (a *Agent) outgoing() []llm.Message {
	msgs := append([]llm.Message(nil), a.messages...)
	lastAssistant := -1
	for i, m := range msgs {
		if m.Role == llm.RoleAssistant {
			lastAssistant = i
		}
	}
	for i := 0; i < lastAssistant; i++ {
		if n := len(msgs[i].Images); n > 0 {
			msgs[i].Images = nil
			msgs[i].Content += fmt.Sprintf(" [%d image(s), shown to you earlier, not sent again]", n)
		}
	}
	return msgs
}

// condense shortens the oldest condensable messages until msgs fit limit
// tokens or nothing more may be shortened; the last keepRecent messages,
// the system prompt and the questions stay whole. Assistant text is the
// last resort.
func (a *Agent) condense(msgs []llm.Message, limit int) ([]llm.Message, int) {
	n := 0
	for pass := 0; pass < 2; pass++ {
		for i := 1; i < len(msgs)-keepRecent; i++ {
			if a.ctx.tokens(msgs) <= limit {
				return msgs, n
			}
			m := &msgs[i]
			ok := a.ctx.condensable[i] || (pass == 1 && m.Role == llm.RoleAssistant)
			if !ok || len(m.Content) <= condensedKeep+100 {
				continue
			}
			m.Content = m.Content[:cutAt(m.Content, condensedKeep)] +
				fmt.Sprintf("\n… [%d characters of this earlier message left out to fit the context window; re-run code to see its output again]", len(m.Content)-condensedKeep)
			n++
		}
	}
	return msgs, n
}

// cutAt is the largest rune boundary at or below n.
func cutAt(s string, n int) int {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}
