package agent

import (
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/eda"
)

// Out of core, the model is told that df is a sample and how to get exact
// aggregates over every row; otherwise the prompt says nothing of it.
func TestSystemPromptOutOfCore(t *testing.T) {
	p := promptProfile()
	in := PromptInput{DataName: "sales.csv", Profile: p, Tools: true}
	if s := SystemPrompt(in); strings.Contains(s, "full.") || strings.Contains(s, "random sample") {
		t.Errorf("an in-memory run's prompt speaks of a sample:\n%s", s)
	}
	p.Rows = 16_000_000
	p.OutOfCore = &eda.OutOfCoreInfo{Rows: 16_000_000, SampleRows: 1_000_000, ChunkRows: 200_000}
	s := SystemPrompt(in)
	for _, want := range []string{"`df` is a uniform random sample of 1,000,000 of its 16,000,000 rows",
		"full.count(where=None)", "full.value_counts(column, where=None)", "full.aggregate(by, column)", "full.chunks(columns, where)"} {
		if !strings.Contains(s, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, s)
		}
	}
}
