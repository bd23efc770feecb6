package agent_test

import (
	"github.com/analyst-cli/analyst/internal/modeltest"
	"github.com/analyst-cli/analyst/llm/llmtest"
)

// Short names for the scripted model server of package modeltest.
type (
	call      = llmtest.Call
	turn      = llmtest.Turn
	fakeModel = modeltest.Model
)

var (
	newFakeModel = modeltest.New
	code         = llmtest.Code
	final        = llmtest.Final
)
