package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/analyst-cli/analyst/internal/clip"
	"github.com/analyst-cli/analyst/llm"
)

// MaxChangeLines bounds the changes a model is given to explain: every
// change at warn and fail comes first, then those at info.
const MaxChangeLines = 60

// KeyChanges is the model's account of what changed since a baseline.
type KeyChanges struct {
	Prompt string `json:"prompt"`
	// Text is the key changes as Markdown bullet points; "" with a Note
	// when there are none.
	Text  string      `json:"text"`
	Note  string      `json:"note,omitempty"`
	Calls []ModelCall `json:"calls,omitempty"`
}

// ExplainChanges asks the model, in one call of its own, for the key
// changes of a comparison: it reads the changes (each a line "level check
// column: what changed, with its numbers"), never the rows, and writes 3
// to 5 bullet points using only the numbers given.
func (a *Agent) ExplainChanges(ctx context.Context, phase, baselineName, dataName string, changes []string) (*KeyChanges, error) {
	kc := &KeyChanges{}
	var b strings.Builder
	fmt.Fprintf(&b, "The dataset %q was compared with an earlier version of it, %q (the baseline). These are the changes the "+
		"comparison found, most severe first: each with its level (fail, warn or info, by fixed thresholds), the check, the column "+
		"and the numbers measured:\n\n", dataName, baselineName)
	for i, line := range changes {
		if i == MaxChangeLines {
			fmt.Fprintf(&b, "- (%d more at info)\n", len(changes)-i)
			break
		}
		b.WriteString("- " + clip.Runes(strings.ReplaceAll(line, "\n", " "), 400) + "\n")
	}
	b.WriteString("\nWrite the key changes for a reader who must decide whether the new data can be used as before: 3 to 5 " +
		"bullet points in Markdown, most important first, each naming the column. State only numbers that appear in the list " +
		"above, written as they are there or rounded; compute no new ones. Say what the numbers show, not why it happened. " +
		"Reply with the bullet points only.")
	kc.Prompt = b.String()
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: "You are a careful data analyst who reports what changed in a dataset, and only what the numbers show."},
		{Role: llm.RoleUser, Content: kc.Prompt},
	}
	resp, call, err := a.chatOnce(ctx, phase, 1, msgs, nil)
	if call != nil {
		kc.Calls = append(kc.Calls, *call)
	}
	switch {
	case err != nil:
		kc.Note = "the model call failed: " + FailureText(err)
		return kc, err
	case resp.Truncated():
		kc.Note = "the model's reply was cut off by the token limit"
	default:
		kc.Text = strings.TrimSpace(resp.Message.Content)
		if kc.Text == "" {
			kc.Note = "the model replied with no text"
		}
	}
	return kc, nil
}
