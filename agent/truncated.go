package agent

import (
	"fmt"
	"strings"

	"github.com/analyst-cli/analyst/internal/clip"
	"github.com/analyst-cli/analyst/llm"
)

// maxCutText is how much of a reply the client cut at its size bound stays
// in the conversation: enough for the model to see where it went wrong.
const maxCutText = 2000

// truncated takes a reply cut off by the token limit. A cut reply is never
// read: half a value or half a call would pass for an answer. Its text
// stays (so "restate it" has a referent; clipped when the client cut it,
// since it may be megabytes of a loop), its calls are dropped, and the
// model is asked to restate briefly. It returns why the round stops, if it
// does: after MaxTruncations cut replies in a row; or, with the client's
// error, when a reply overran the client's bound again after the request
// to restate (a server that ignores the completion limit will not start
// to honour it).
func (a *Agent) truncated(c *convo, msg llm.Message, resp *llm.Response) (string, error) {
	msg.ToolCalls = nil
	if resp.Overrun != nil {
		msg.Content = clip.Bytes(msg.Content, maxCutText)
	}
	if strings.TrimSpace(msg.Content) == "" {
		msg.Content = "[reply cut off by the token limit]"
	}
	a.add(msg, true)
	c.ans.Truncations++
	if c.truncations == 0 {
		c.overruns = 0
	}
	c.truncations++
	if resp.Overrun != nil {
		if c.overruns++; c.overruns > 1 {
			return fmt.Sprintf("%d replies in a row ran on past %s without ending; the model server ignores it, or the model loops",
				c.overruns, a.limitText()), resp.Overrun
		}
	}
	if c.truncations > MaxTruncations {
		return fmt.Sprintf("%d replies in a row were cut off by %s", c.truncations, a.limitText()), nil
	}
	a.add(llm.Message{Role: llm.RoleUser, Content: "Your last reply was cut off by the token limit before it ended, so none of it was used " +
		"(no code was run, no answer recorded). Restate it briefly: shorter code without long printouts, and a short answer."}, false)
	return "", nil
}

// limitText names the completion limit and its flag, for the report.
func (a *Agent) limitText() string {
	if a.Info != nil && a.Info.MaxReplyTokens > 0 {
		return fmt.Sprintf("the completion limit of %d tokens (--max-reply-tokens)", a.Info.MaxReplyTokens)
	}
	return "the completion limit (--max-reply-tokens)"
}
