// Package report renders a run as one self-contained HTML file: the answer
// and an overview of the data first, then every stage's cells with their
// code (highlighted, collapsible), outputs, charts and formulas. The page
// makes no network request.
package report

import (
	"time"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/nbformat"
)

// Input is everything a report shows. The notebook is the source of every
// number and chart; the rest is context.
type Input struct {
	Title    string
	Question string // the question asked, shown under the title ("" for none)
	// Answer is the run's answer as markdown (formulas allowed), shown first
	// after the header; "" leaves the answer box out.
	Answer string
	// Notice is markdown shown in a banner under the header, such as the
	// note that the data was read out of core; "" for none.
	Notice   string
	Notebook *nbformat.Notebook // cells tagged "stage:NAME", in order
	Profile  *eda.Profile       // nil when profiling did not finish
	Run      RunInfo
	// KaTeXDir holds katex.min.js, katex.min.css, contrib/auto-render.min.js
	// and fonts/ (Debian's libjs-katex, in the kernel image); the report
	// inlines them. "" shows formulas as TeX source.
	KaTeXDir string
	// KaTeXRoot is the root filesystem that KaTeXDir's absolute symlinks
	// point into. "" means the folder above usr/share/javascript/katex when
	// KaTeXDir ends so (the kernel image's rootfs: see KaTeXDirIn), else /.
	KaTeXRoot string
}

// RunInfo is the context of a run.
type RunInfo struct {
	DataName       string
	DataSHA256     string
	DataBytes      int64
	Started        time.Time
	Duration       time.Duration
	Stages         []StageInfo
	Failure        string // why the run stopped early, "" if it did not
	AnalystVersion string
	DriverHash     string
	ImageID        string
	Versions       map[string]string // python, pandas, ...
	// SandboxMemory says how the kernel's memory was limited (in total, or
	// per process only, with the worst case).
	SandboxMemory string
	// Model is the model that answered the questions; nil for none.
	Model *ModelInfo
}

// ModelInfo is the model of a run, its settings and what it cost.
type ModelInfo struct {
	Name   string // as the user named it: ollama:qwen2.5-coder:7b
	Digest string // the exact weights, when the server says
	Mode   string // tools or code-blocks
	// Settings are shown as they are, in order: temperature, seed, max
	// turns, ...
	Settings         []Setting
	PromptTokens     int
	CompletionTokens int
	Calls            int
	Retries          int
}

// Setting is one named model setting.
type Setting struct{ Name, Value string }

// StageInfo is one stage's outcome.
type StageInfo struct {
	Name     string
	Title    string
	Status   string // ok, error, skipped
	Duration time.Duration
	// Lead stages (the questions) are shown right after the answer, before
	// the data overview.
	Lead bool
}

// TagNotebookOnly marks cells that are for notebook readers only — the
// title and the stage headings — since the report has its own.
const TagNotebookOnly = "notebook-only"

// StageTag is the cell tag that says which stage a cell belongs to.
func StageTag(stage string) string { return "stage:" + stage }
