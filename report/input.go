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
	Notice string
	// Numbers are the numbers stated in Answer, each linked to the cell
	// whose output shows it or marked "not traced to any cell".
	Numbers []NumberMark
	// KeyFindings is the model's key findings of an exploration, as
	// markdown (linking to their cells), shown first after the header;
	// "" leaves the section out. KeyFindingNumbers are its numbers, as
	// Numbers are Answer's.
	KeyFindings       string
	KeyFindingNumbers []NumberMark
	// CellNumbers are numbers stated in markdown cells of the notebook (a
	// model's findings), by cell ID, their spans in the cell's source: the
	// cell is shown with them marked as Numbers are in Answer.
	CellNumbers map[string][]NumberMark
	Notebook    *nbformat.Notebook // cells tagged "stage:NAME", in order
	Profile     *eda.Profile       // nil when profiling did not finish
	// Distributions are the profiled columns' distributions as the
	// profile's sketch keeps them, by column name: the columns table draws
	// a numeric or date column's as a small histogram (a categorical
	// column's top values come from Profile). nil draws none.
	Distributions map[string]*Distribution
	// Relationships is the profile of the tables together (eda.Relationships),
	// shown as "Tables and relationships" with the diagram of the cell tagged
	// eda.RelationshipsChartTag; nil for a single table or when it did not finish.
	Relationships *eda.RelationshipProfile
	// Inputs are a folder dataset's files, shown first in the Data
	// section (Profile is then its main table's); nil for a file.
	Inputs *Inputs
	Run    RunInfo
	// NotebookLink, when set, is the notebook's address from the report
	// (a relative link): analyst's own code of at least LinkedCodeBytes
	// (a cell hidden in the notebook, plumbing such as the loader and the
	// profile's functions, or of a stage eda generates, such as the
	// relationships') is not copied into the page but named and linked
	// there, one click away; the model's code is always copied. Eval cases set it: their notebook is always
	// beside the report, and the loader alone would be a third of the page.
	NotebookLink    string
	LinkedCodeBytes int
	// KaTeXDir holds katex.min.js, katex.min.css, contrib/auto-render.min.js
	// and fonts/ (Debian's libjs-katex, in the kernel image); the report
	// inlines them. "" shows formulas as TeX source.
	KaTeXDir string
	// KaTeXRoot is the root filesystem that KaTeXDir's absolute symlinks
	// point into. "" means the folder above usr/share/javascript/katex when
	// KaTeXDir ends so (the kernel image's rootfs: see KaTeXDirIn), else /.
	KaTeXRoot string
}

// Distribution is a column's distribution as the sketch keeps it.
type Distribution struct {
	// Points are a numeric column's values in order (each distinct value,
	// or quantiles), Weights the rows each stands for.
	Points  []float64
	Weights []int64
	// Periods are a date column's rows per period, [period, rows], in
	// order.
	Periods [][2]int64
}

// Inputs are a folder dataset's files: each table with its name in the
// kernel and its shape, each document, the files ignored or skipped with
// why.
type Inputs struct {
	Folder string // its name
	Digest string // its sha256 (the sha256 of its files' sorted sha256sum listing)
	Main   string // the main table, bound to df
	Files  []InputFile
}

// InputFile is a file of a folder dataset.
type InputFile struct {
	Path, Kind, Format string
	Bytes              int64
	SHA256             string
	Table              string // a table's name in tables[...]
	Rows, Columns      int    // a table's shape, once profiled
	Headings           int    // a Markdown document's headings
	Reason             string // why a file is ignored or skipped
}

// StageStatus is how a stage ended, as the report, the progress display and
// the --json events name it.
type StageStatus string

const (
	StatusOK          StageStatus = "ok"
	StatusError       StageStatus = "error"
	StatusInterrupted StageStatus = "interrupted"
	StatusSkipped     StageStatus = "skipped"
	// StatusNoAnswer: a question's stage ended without an answer.
	StatusNoAnswer StageStatus = "no-answer"
	// StatusFailed is the run's status (run-end events) when it stopped early.
	StatusFailed StageStatus = "failed"
	// StatusNotReached is what the report shows for the stages a failed run
	// never reached.
	StatusNotReached StageStatus = "not reached"
)

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
	// OutputFiles are the files the run's code wrote to the sandbox's
	// /output, which analyst copied to the host into OutputFolder
	// (NAME_files/): the report lists them, so what a model's code put on
	// the user's disk is in plain sight.
	OutputFiles  []OutputFile
	OutputFolder string
}

// OutputFile is a file the code wrote, by its name in the output folder.
type OutputFile struct {
	Name  string
	Bytes int64
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
	Status   StageStatus
	Duration time.Duration
	// Lead stages (the questions) are shown right after the answer, before
	// the data overview.
	Lead bool
}
