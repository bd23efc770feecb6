package pipeline

import (
	"time"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/audit"
	"github.com/analyst-cli/analyst/baseline"
	"github.com/analyst-cli/analyst/dataset"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/report"
	"github.com/analyst-cli/analyst/runrecord"
)

// Options configure a run.
type Options struct {
	Data string // the dataset on the host: a file or a folder
	// DataPaths, if set, are the files and folders of the dataset given one
	// by one (seen as one folder: dataset.CheckSet); Data is then unused.
	DataPaths []string
	// Input is Data as Preflight checked and hashed it; nil: Run checks
	// Data itself. Passing it spares a second read of the whole file.
	Input *dataset.Input
	// Dataset, if set, is the dataset already checked by Preflight (with
	// Name the name it returned) and opened: Run checks nothing again and
	// leaves it open. Data, Input, Sheet, Table and Load are then unused.
	Dataset *dataset.Dataset
	Sheet   string // spreadsheets: the sheet, by name or number from 1; "": the first
	Table   string // SQLite: the table; "": the only one
	// SkipUnreadable leaves out a folder's tables and documents that cannot
	// be read (listed in the report and run.json as skipped, with why)
	// instead of refusing the folder.
	SkipUnreadable bool
	OutDir         string // where NAME.ipynb, NAME.html, NAME.run.json and NAME_files/ go
	Name           string // output base name; default: the data file's name without extensions
	// Force replaces NAME.ipynb, NAME.html, NAME.run.json and the whole
	// NAME_files folder even where no previous run's manifest lists them
	// unchanged (see CheckOutputs).
	Force  bool
	Kernel kernel.Options

	CellTimeout time.Duration // per cell; zero: the kernel's default
	Load        eda.LoadOptions
	EDA         eda.Options
	// OutOfCore is OutOfCoreAuto (also ""), OutOfCoreOn or OutOfCoreOff:
	// whether the data is read chunk by chunk (see eda.LoadOutOfCore);
	// OutOfCoreOptions tunes it.
	OutOfCore        string
	OutOfCoreOptions eda.OutOfCore

	// Provenance, recorded in the notebook and the manifest.
	AnalystVersion string
	ImageID        string
	Versions       map[string]string // python and library versions of the image
	Runtime        string
	// KaTeXDir is KaTeX in the kernel image, inlined into the report.
	KaTeXDir string

	// Progress, if set, is told what happens as it happens.
	Progress func(Event)

	// Questions for the model, in order; follow-ups share the kernel's
	// state and the conversation. None: the run is the EDA stages only,
	// and the exploration when there is a model.
	Questions []string
	// Independent answers the questions as independent ones, at once, each
	// in a session forked from the kernel after the exploration, with a
	// conversation of its own (see askIndependent).
	Independent bool
	// Model answers the questions and explores the data; required when
	// there are questions. Without one the run is the EDA stages only.
	Model llm.Client
	// Recorder, if set, records Model's replies (it is Model, or what Model
	// asks): run.json keeps them in full, for analyst replay.
	Recorder *audit.Recorder
	// ModelInfo is what the model server said of Model, if the caller asked
	// already (before starting anything slow); nil: Run asks. ModelErr is
	// why it could not answer, when the caller asked and it failed: Run
	// then writes the failed run without starting a kernel.
	ModelInfo *llm.ModelInfo
	ModelErr  error
	// NoExplore skips the exploration stage, which runs by default when
	// there is a model (before the questions): goals from the profile, a
	// chart and a finding per goal, the key findings first in the report.
	NoExplore bool
	// Goals is how many analysis goals the model is asked for; 0:
	// agent.DefaultGoals.
	Goals int
	// ModelSpec is the model as the user named it ("ollama:qwen2.5-coder:7b").
	ModelSpec string
	// MaxTurns bounds the model calls per question; 0: agent.DefaultMaxTurns.
	MaxTurns int
	// MaxRepairs bounds failed cells in a row; 0: agent.DefaultMaxRepairs.
	MaxRepairs int
	// ReflectRounds bounds the reflection rounds per question; nil:
	// agent.DefaultReflectRounds, 0: no reflection.
	ReflectRounds *int
	// Seed is sent with temperature 0; 0: agent.DefaultSeed.
	Seed int
	// RunTimeout bounds the whole run; 0: none.
	RunTimeout time.Duration
	// Rerun, if set, makes the run a replay of a recorded run on new data
	// (analyst replay --data): Model is then a Recorder of Rerun.Client(), the
	// schema changes are stated after the profile, and each named value is
	// shown old → new.
	Rerun *audit.Rerun
	// ModelRetries, if set, says how many model requests were retries so
	// far (the client retries 429, 5xx and dropped connections by itself);
	// shown on the progress line and counted in run.json.
	ModelRetries func() int
	// Baseline, if set, is a run to compare the data with (What changed,
	// see baseline.go), judged by ChangeRules.
	Baseline    *baseline.Baseline
	ChangeRules eda.ChangeRules
	// ExplainChanges: the model writes the key changes (see keychanges.go).
	ExplainChanges bool
}

// Result is what a run produced, also when it failed.
type Result struct {
	Name     string
	Notebook *nbformat.Notebook
	Profile  *eda.Profile
	Stages   []report.StageInfo
	Failure  string
	Files    Files
	Manifest *runrecord.Record
	// Answers to the questions, in order (as far as the run got).
	Answers []*agent.Answer
	// Exploration is what the model's exploration found; nil when it did
	// not run.
	Exploration *runrecord.Exploration
	// Changes are what changed since Options.Baseline; nil without one, or
	// when the run stopped before the comparison.
	Changes *baseline.Changes
}

// Unanswered returns the questions (1-based) asked that got no answer,
// with the reason each stopped.
func (r *Result) Unanswered() []Unanswered {
	var out []Unanswered
	for i, a := range r.Answers {
		if !a.Answered {
			out = append(out, Unanswered{Index: i + 1, Question: a.Question, Reason: a.Stop})
		}
	}
	return out
}

// Unanswered is a question that got no answer, and why.
type Unanswered struct {
	Index    int
	Question string
	Reason   string
}

// Files are the paths a run wrote.
type Files struct {
	Notebook string
	Report   string
	Manifest string
	Charts   []string
}
