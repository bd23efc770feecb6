// Package modeltest gives tests above package llm a scripted model server
// (llmtest.Model, both wire formats) together with an llm client for it.
// It is apart from llmtest because llm's own tests use llmtest, which
// therefore cannot import llm.
package modeltest

import (
	"testing"
	"time"

	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/llm/llmtest"
)

// Model is a scripted model server for one test.
type Model struct{ *llmtest.Model }

// New starts a server speaking provider's wire format ("ollama" or
// "openai") that replies with turns in order (the last repeats).
func New(t testing.TB, provider string, turns ...llmtest.Turn) *Model {
	return &Model{llmtest.NewModel(t, provider, turns...)}
}

// Client is an llm client for the server, with vision on or off and
// retries without waiting.
func (m *Model) Client(t testing.TB, vision bool) llm.Client {
	t.Helper()
	c, err := llm.New(m.Spec(), llm.Options{RetryBaseDelay: time.Millisecond, Vision: &vision,
		OllamaHost: m.OllamaHost(), BaseURL: m.BaseURL(), APIKey: m.APIKey()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
