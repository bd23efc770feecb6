package agent

import "fmt"

// The stages of a run in which the model answers the i-th question
// (1-based), then reflects on its charts: also the phases the agent's
// steps, calls and events are tagged with. Defined here, the lowest
// package that every user (pipeline, evals, audit) imports.
func StageQuestion(i int) string   { return fmt.Sprintf("question-%d", i) }
func StageReflection(i int) string { return fmt.Sprintf("reflection-%d", i) }
