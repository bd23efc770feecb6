package pipeline_test

import (
	"testing"
	"time"

	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/llm/llmtest"
)

// The scripted model server is llmtest.Model; these short names are this
// package's.
type (
	call = llmtest.Call
	turn = llmtest.Turn
)

type fakeModel struct{ *llmtest.Model }

func newFakeModel(t testing.TB, provider string, turns ...turn) *fakeModel {
	return &fakeModel{llmtest.NewModel(t, provider, turns...)}
}

func code(src string) call                              { return llmtest.Code(src) }
func final(answers map[string]any, summary string) call { return llmtest.Final(answers, summary) }

// client returns an llm client for the fake server.
func (f *fakeModel) client(t testing.TB, vision bool) llm.Client {
	t.Helper()
	c, err := llm.New(f.Spec(), llm.Options{RetryBaseDelay: time.Millisecond, Vision: &vision,
		OllamaHost: f.OllamaHost(), BaseURL: f.BaseURL(), APIKey: f.APIKey()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *fakeModel) requests() []map[string]any                    { return f.Requests() }
func (f *fakeModel) messages(t testing.TB, i int) []map[string]any { return f.Messages(t, i) }
func (f *fakeModel) checkProtocol(t testing.TB)                    { f.CheckProtocol(t) }
func (f *fakeModel) toolNames(t testing.TB, i int) []string        { return f.ToolNames(t, i) }
func (f *fakeModel) lastText(t testing.TB, i int, role string) string {
	return f.LastText(t, i, role)
}

func asList(v any) []any       { return llmtest.AsList(v) }
func contentText(c any) string { return llmtest.ContentText(c) }
