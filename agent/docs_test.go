package agent

import (
	"fmt"
	"testing"

	"github.com/analyst-cli/analyst/internal/docscheck"
)

// The user guide states these constants: each sentence is formatted from
// the constant, so a changed constant fails here until the page says so.
func TestDocsStateTheAgentsBounds(t *testing.T) {
	times := map[int]string{1: "once", 2: "twice", 3: "three times"}
	count := map[int]string{2: "two", 3: "three", 4: "four"}
	docscheck.Says(t, "docs/exploration-and-tracing.md",
		fmt.Sprintf("proposes `--goals` analysis goals (default %d, config key `goals`)", DefaultGoals),
		fmt.Sprintf("a category axis with more than %d labels", MaxCategoryTicks),
		fmt.Sprintf("(at most %s per goal or question;", times[MaxChartRejections]),
		fmt.Sprintf("the %d to %d most important", MinKeyFindings, MaxKeyFindings),
	)
	docscheck.Says(t, "docs/folders.md",
		fmt.Sprintf("at most %d per document, %d documents, %s characters in all",
			promptHeadingsPerDoc, promptDocsListed, docscheck.Thousands(promptDocsChars)))
	docscheck.Says(t, "docs/models.md",
		fmt.Sprintf("`--max-turns` (default %d) model turns per question, at most %d repairs in a row of cells that fail, `--reflect-rounds` (default %d); the seed sent is %d.",
			DefaultMaxTurns, DefaultMaxRepairs, DefaultReflectRounds, DefaultSeed),
		fmt.Sprintf("(%dk, doubled as needed, at most the model's length and %dk)", minContextWindow>>10, maxContextWindow>>10),
		fmt.Sprintf("the model is asked to restate briefly, at most %s in a row (`truncations` in run.json)", times[MaxTruncations]),
		fmt.Sprintf("a question stops after %s cut replies in a row (exit 7)", count[MaxTruncations+1]),
	)
	docscheck.Says(t, "docs/configuration.md",
		fmt.Sprintf("max-turns: %d ", DefaultMaxTurns),
		fmt.Sprintf("reflect-rounds: %d ", DefaultReflectRounds),
		fmt.Sprintf("goals: %d ", DefaultGoals),
	)
}
