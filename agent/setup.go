package agent

import (
	"time"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/llm"
)

// Setup is what an Agent for loaded data is made of. New makes the agent
// and its system prompt from it, the budgets resolved once, so that analyst
// run and each analyst eval case ask the model the same way.
type Setup struct {
	Client llm.Client
	Info   *llm.ModelInfo
	Kernel Executor
	// DataName is the dataset's file name (mounted at /data/NAME); Profile
	// is its profile, which the prompt summarises.
	DataName string
	Profile  *eda.Profile
	// Folder, when the dataset is a folder, is its tables (Profile is then
	// the main table's, df) and documents.
	Folder   *Folder
	Versions map[string]string // python and library versions of the image

	MaxTurns   int // 0: DefaultMaxTurns
	MaxRepairs int // 0: DefaultMaxRepairs
	// CellTimeout bounds each cell of the model's; 0: the kernel's default.
	// The model is told it either way.
	CellTimeout time.Duration
	Seed        int // 0: DefaultSeed
}

// New returns the agent for s, with its system prompt.
func New(s Setup) *Agent {
	ag := &Agent{
		Client: s.Client, Info: s.Info, Kernel: s.Kernel, Columns: s.Profile.ColumnNames(),
		MaxTurns: s.MaxTurns, MaxRepairs: s.MaxRepairs, CellTimeout: s.CellTimeout, Seed: orDefault(s.Seed, DefaultSeed),
	}
	if s.Folder != nil {
		ag.Columns, ag.ColumnsOf = s.Folder.names(), "any table, nor a table's name"
	}
	turns, repairs := ag.Budgets()
	told := s.CellTimeout
	if told <= 0 {
		told = kernel.DefaultLimits().CellTimeout
	}
	ag.System = SystemPrompt(PromptInput{DataName: s.DataName, Profile: s.Profile, Versions: s.Versions,
		Tools: s.Info.Capabilities.Tools, Vision: s.Info.Capabilities.Vision,
		MaxTurns: turns, MaxRepairs: repairs, CellTimeout: told, Folder: s.Folder})
	return ag
}
