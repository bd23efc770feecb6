// Package runrecord is the schema of NAME.run.json, the record a run
// writes beside its notebook: the Go types pipeline writes and every reader
// decodes (pipeline to render a run again and to find what a previous run
// wrote, audit to verify and replay it, cmd to find a run's baseline), and
// the one way to read it (Read, bounded by internal/runfile). A field is
// added here, once, for the writer and the readers alike; a run's tests
// decode what it wrote with no field unknown (pipeline's run helper).
//
// The sections other packages compute keep their types there when those
// packages sit below this one (agent's answers, baseline's comparison,
// kernel's limits); the replay's (Recording, Rerun) are here, for audit
// reads the record and so sits above it.
package runrecord

import (
	"fmt"
	"time"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/baseline"
	"github.com/analyst-cli/analyst/dataset"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/internal/runfile"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/numtrace"
	"github.com/analyst-cli/analyst/report"
)

// Record is NAME.run.json: what ran, on what, with what result.
type Record struct {
	AnalystVersion string            `json:"analyst_version"`
	Driver         string            `json:"driver"`
	Seccomp        string            `json:"seccomp"` // the kernel's seccomp profile (seccomp.Hash)
	Image          string            `json:"image"`
	Runtime        string            `json:"runtime"`
	Rootless       bool              `json:"rootless"`
	Versions       map[string]string `json:"versions"`
	Data           Data              `json:"data"`
	// Inputs are the dataset's files: a file, or every file of a folder
	// with its kind (table, document, ignored, skipped), format, bytes and
	// sha256 (data.sha256 of a folder is their Folder.Digest).
	Inputs []dataset.File `json:"inputs"`
	// Occasion holds all that differs between two runs of the same data:
	// when it ran and how long it took. Nothing else in run.json, and
	// nothing in the notebook, report or charts, depends on the occasion.
	Occasion Occasion        `json:"occasion"`
	Stages   []Stage         `json:"stages"`
	Limits   kernel.Enforced `json:"limits"`
	Failure  string          `json:"failure,omitempty"`
	Outputs  Outputs         `json:"outputs"`
	// Files are every file and folder the run wrote but this manifest,
	// with their sha256 (a re-run replaces only these; analyst verify
	// checks them); Cells a digest of each notebook cell (analyst verify).
	Files []runfile.File `json:"files"`
	Cells []Cell         `json:"cells,omitempty"`
	// Replies is every model reply in full, when the run has a Recorder
	// (analyst replay plays them back).
	Replies *Recording `json:"replies,omitempty"`
	// Model and Questions are there when questions were asked: Asked
	// every question given, Questions the answer to each asked so far.
	Model     *Model          `json:"model,omitempty"`
	Asked     []string        `json:"asked,omitempty"`
	Questions []*agent.Answer `json:"questions,omitempty"`
	// Independent: the questions were answered each in its own forked
	// session and conversation (--independent); analyst replay does too.
	Independent bool `json:"independent,omitempty"`
	// Rerun is there for a replay on new data: the recorded run, the
	// schema changes, each model cell's source, the named values old → new.
	Rerun *Rerun `json:"rerun,omitempty"`
	// Exploration is there when the model explored the data.
	Exploration *Exploration `json:"exploration,omitempty"`
	// Sketch is the file that keeps what a later comparison needs;
	// Baseline is there when the run was compared with one.
	Sketch     *baseline.SketchRef `json:"sketch,omitempty"`
	Baseline   *baseline.Record    `json:"baseline,omitempty"`
	KeyChanges *KeyChanges         `json:"key_changes,omitempty"`
}

// Data identifies the dataset.
type Data struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	SHA256  string `json:"sha256"`
	Bytes   int64  `json:"bytes"`
	Rows    int    `json:"rows"`
	Columns int    `json:"columns"`
	Format  string `json:"format,omitempty"`
	// Paths are the files and folders of a set given one by one (--data
	// A --data B); Path is then "".
	Paths []string `json:"paths,omitempty"`
	// MainTable is a folder's main table, bound to df (Rows and Columns
	// are its); Tables each table's name, file and shape.
	MainTable string  `json:"main_table,omitempty"`
	Tables    []Table `json:"tables,omitempty"`
	// OutOfCore is set when the data was read out of core.
	OutOfCore *eda.OutOfCoreInfo `json:"out_of_core,omitempty"`
	// MemoryEstimate and MemoryLimit say why it was: its estimated size in
	// memory over the kernel's limit, in bytes (absent when --out-of-core
	// asked for it).
	MemoryEstimate int64 `json:"memory_estimate,omitempty"`
	MemoryLimit    int64 `json:"memory_limit,omitempty"`
}

// Table is a folder's table as loaded.
type Table struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	Rows    int    `json:"rows"`
	Columns int    `json:"columns"`
	Format  string `json:"format"`
}

// Stage is one stage's outcome (its time is the occasion's).
type Stage struct {
	Name   string             `json:"name"`
	Title  string             `json:"title"`
	Status report.StageStatus `json:"status"`
	// Lead stages (the questions) open the report.
	Lead bool `json:"lead,omitempty"`
}

// Outputs are the files of the run, relative to the output folder.
type Outputs struct {
	Notebook string   `json:"notebook"`
	Report   string   `json:"report"`
	Charts   []string `json:"charts"`
	// CodeFiles are the files the code wrote to the sandbox's /output,
	// kept in NAME_files/.
	CodeFiles []CodeFile `json:"code_files,omitempty"`
}

// CodeFile is a file the code wrote, by its name in NAME_files/.
type CodeFile struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
}

// Cell identifies one notebook cell for `analyst verify`, which
// names a cell that was edited, removed or added since the run.
type Cell struct {
	ID     string `json:"id"`
	SHA256 string `json:"sha256"` // nbformat.CellDigest
}

// Occasion is what is about the occasion of a run, not its
// content: two runs of the same data differ in run.json only here.
type Occasion struct {
	Started    time.Time          `json:"started"`
	DurationMS float64            `json:"duration_ms"`
	StagesMS   map[string]float64 `json:"stages_ms"`
	// LoadMBPerS is the data file's size (in MB, 10^6 bytes) over the
	// load stage's time; absent when the load did not finish.
	LoadMBPerS *float64 `json:"load_mb_per_s,omitempty"`
	// ModelCalls are the times of each model call, in the order of
	// questions[].calls, named by phase and turn as those are.
	ModelCalls []ModelCallTime `json:"model_calls,omitempty"`
}

// ModelCallTime is the time one model call took (agent.ModelCall's
// DurationMS and OverheadMS).
type ModelCallTime struct {
	Phase      string  `json:"phase"`
	Turn       int     `json:"turn"`
	DurationMS float64 `json:"duration_ms"`
	OverheadMS float64 `json:"overhead_ms"`
}

// Model is the model of a run and what it cost.
type Model struct {
	Spec     string `json:"spec"`
	Provider string `json:"provider"`
	Name     string `json:"name"`
	Digest   string `json:"digest,omitempty"`
	Tools    bool   `json:"tools"`
	Vision   bool   `json:"vision"`
	Mode     string `json:"mode"` // tools or code-blocks
	// ToolsRefused is the server's refusal of tool calling that switched
	// the run to code-block mode ("" if none).
	ToolsRefused  string `json:"tools_refused,omitempty"`
	ContextLength int    `json:"context_length,omitempty"` // the model's window, as the server said`
	// MaxReplyTokens is the completion limit every request carried.
	MaxReplyTokens   int     `json:"max_reply_tokens,omitempty"`
	Temperature      float64 `json:"temperature"`
	Seed             int     `json:"seed"`
	MaxTurns         int     `json:"max_turns"`
	MaxRepairs       int     `json:"max_repairs"`
	ReflectRounds    int     `json:"reflect_rounds"`
	CellTimeout      string  `json:"cell_timeout"` // of the model's cells ("2m0s")
	SystemPrompt     string  `json:"system_prompt"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	Calls            int     `json:"calls"`
	Turns            int     `json:"turns"`
	Repairs          int     `json:"repairs"`
	// Retries counts model requests made again after a failure (429, 5xx,
	// dropped connections), when the client reports them.
	Retries int `json:"retries"`
	// Truncations counts replies cut off by the token limit.
	Truncations int `json:"truncations,omitempty"`
	// Unanswered counts the questions that got no answer.
	Unanswered int `json:"unanswered"`
	// Explore is true when the model explored the data, asked for Goals
	// goals (analyst replay runs the exploration again from these).
	Explore bool `json:"explore,omitempty"`
	Goals   int  `json:"goals,omitempty"`
	// TracedNumbers and UntracedNumbers count the numbers and named values
	// of the answers, and the numbers of the reasons the model gave for
	// accepting its charts, that a cell's output shows, and that none does
	// (each answer's and verdict's "numbers" lists them).
	TracedNumbers   int `json:"traced_numbers"`
	UntracedNumbers int `json:"untraced_numbers"`
}

// Report is the model as a report's header and "About this run" show it,
// nil for no model.
func (m *Model) Report() *report.ModelInfo {
	if m == nil {
		return nil
	}
	name := m.Spec
	if name == "" {
		name = m.Provider + ":" + m.Name
	}
	set := func(k string, v any) report.Setting { return report.Setting{Name: k, Value: fmt.Sprint(v)} }
	settings := []report.Setting{set("Temperature", m.Temperature), set("Seed", m.Seed), set("Max turns", m.MaxTurns),
		set("Max repairs", m.MaxRepairs), set("Reflection rounds", m.ReflectRounds), set("Cell timeout", m.CellTimeout)}
	if m.ContextLength > 0 {
		settings = append(settings, set("Context length", m.ContextLength))
	}
	if m.MaxReplyTokens > 0 {
		settings = append(settings, set("Reply limit (tokens)", m.MaxReplyTokens))
	}
	mode := m.Mode
	if m.ToolsRefused != "" {
		mode += " (the server refused tool calling)"
	}
	return &report.ModelInfo{Name: name, Digest: m.Digest, Mode: mode, Settings: settings,
		PromptTokens: m.PromptTokens, CompletionTokens: m.CompletionTokens, Calls: m.Calls, Retries: m.Retries}
}

// Exploration is what the exploration did, for run.json.
type Exploration struct {
	GoalsAsked int `json:"goals_asked"`
	// Proposal is the model's goals: those explored, those dropped and
	// why, and a note when the goals could not be read.
	Proposal *agent.GoalSet  `json:"proposal"`
	Goals    []*ExploredGoal `json:"goals"`
	// Ranking is the model's choice of the key findings.
	Ranking     *agent.Ranking `json:"ranking,omitempty"`
	KeyFindings []KeyFinding   `json:"key_findings"`
}

// ExploredGoal is one goal's code, checks, verdicts and finding.
type ExploredGoal struct {
	Goal   agent.Goal    `json:"goal"`
	Answer *agent.Answer `json:"answer"`
	// Finding is the model's finding (its summary after reflection); ""
	// when the goal got no answer (Answer.Stop says why).
	Finding string `json:"finding,omitempty"`
	// Cell is the id of the notebook cell that drew the goal's chart,
	// Chart that chart's kind and title.
	Cell  string `json:"cell,omitempty"`
	Chart string `json:"chart,omitempty"`
	// FindingCell is the id of the markdown cell that states the finding
	// (the report marks its numbers there as in the Key findings).
	FindingCell string `json:"finding_cell,omitempty"`
}

// KeyFinding is a finding the report opens with.
type KeyFinding struct {
	Goal    int    `json:"goal"` // 1-based
	Finding string `json:"finding"`
	Cell    string `json:"cell,omitempty"`
	Chart   string `json:"chart,omitempty"`
}

// KeyChanges is run.json's "key_changes": the model's account of what
// changed since the baseline, the cell that shows it and where its numbers
// were traced.
type KeyChanges struct {
	*agent.KeyChanges
	Cell    string           `json:"cell,omitempty"`
	Numbers *numtrace.Record `json:"numbers,omitempty"`
}
