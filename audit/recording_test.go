package audit_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/analyst-cli/analyst/audit"
	"github.com/analyst-cli/analyst/internal/modeltest"
	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/llm/llmtest"
	"github.com/analyst-cli/analyst/runrecord"
)

// A reply the client cut at its size bound is recorded with its error, and
// played back the same: cut, with an overrun of the same kind and words.
// No kernel.
func TestRecordingKeepsOverrun(t *testing.T) {
	m := modeltest.New(t, "ollama", llmtest.Turn{Endless: true})
	rec := audit.NewRecorder(m.Client(t, false))
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}}
	live, err := rec.Chat(context.Background(), req, nil)
	if err != nil || live.Overrun == nil {
		t.Fatalf("live reply: %+v, %v", live, err)
	}
	b, err := json.Marshal(rec.Recording())
	if err != nil {
		t.Fatal(err)
	}
	var back runrecord.Recording
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	played, err := audit.NewReplayer(&back).Chat(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !played.Truncated() || !errors.Is(played.Overrun, llm.ErrReplyTooLong) || played.Overrun.Error() != live.Overrun.Error() ||
		played.Message.Content != live.Message.Content {
		t.Errorf("played back %+v (overrun %v), recorded %v", played.Message.Role, played.Overrun, live.Overrun)
	}
}
