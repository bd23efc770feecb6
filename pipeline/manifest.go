package pipeline

import (
	"time"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/audit"
	"github.com/analyst-cli/analyst/baseline"
	"github.com/analyst-cli/analyst/dataset"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/internal/units"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/seccomp"
	"github.com/analyst-cli/analyst/report"
)

// Manifest is NAME.run.json: what ran, on what, with what result.
type Manifest struct {
	AnalystVersion string            `json:"analyst_version"`
	Driver         string            `json:"driver"`
	Seccomp        string            `json:"seccomp"` // the kernel's seccomp profile (seccomp.Hash)
	Image          string            `json:"image"`
	Runtime        string            `json:"runtime"`
	Rootless       bool              `json:"rootless"`
	Versions       map[string]string `json:"versions"`
	Data           ManifestData      `json:"data"`
	// Inputs are the dataset's files: a file, or every file of a folder
	// with its kind (table, document, ignored, skipped), format, bytes and
	// sha256 (data.sha256 of a folder is their Folder.Digest).
	Inputs []dataset.File `json:"inputs"`
	// Occasion holds all that differs between two runs of the same data:
	// when it ran and how long it took. Nothing else in run.json, and
	// nothing in the notebook, report or charts, depends on the occasion.
	Occasion ManifestOccasion `json:"occasion"`
	Stages   []ManifestStage  `json:"stages"`
	Limits   kernel.Enforced  `json:"limits"`
	Failure  string           `json:"failure,omitempty"`
	Outputs  ManifestOutputs  `json:"outputs"`
	// Files are every file and folder the run wrote but this manifest,
	// with their sha256 (a re-run replaces only these; analyst verify
	// checks them); Cells a digest of each notebook cell (analyst verify).
	Files []ManifestFile `json:"files"`
	Cells []ManifestCell `json:"cells,omitempty"`
	// Replies is every model reply in full, when the run has a Recorder
	// (analyst replay plays them back).
	Replies *audit.Recording `json:"replies,omitempty"`
	// Model and Questions are there when questions were asked: Asked
	// every question given, Questions the answer to each asked so far.
	Model     *ManifestModel  `json:"model,omitempty"`
	Asked     []string        `json:"asked,omitempty"`
	Questions []*agent.Answer `json:"questions,omitempty"`
	// Independent: the questions were answered each in its own forked
	// session and conversation (--independent); analyst replay does too.
	Independent bool `json:"independent,omitempty"`
	// Rerun is there for a replay on new data: the recorded run, the
	// schema changes, each model cell's source, the named values old → new.
	Rerun *audit.RerunRecord `json:"rerun,omitempty"`
	// Exploration is there when the model explored the data.
	Exploration *Exploration `json:"exploration,omitempty"`
	// Sketch is the file that keeps what a later comparison needs;
	// Baseline is there when the run was compared with one.
	Sketch     *baseline.SketchRef `json:"sketch,omitempty"`
	Baseline   *baseline.Record    `json:"baseline,omitempty"`
	KeyChanges *KeyChanges         `json:"key_changes,omitempty"`
}

// ManifestData identifies the dataset.
type ManifestData struct {
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
	MainTable string          `json:"main_table,omitempty"`
	Tables    []ManifestTable `json:"tables,omitempty"`
	// OutOfCore is set when the data was read out of core.
	OutOfCore *eda.OutOfCoreInfo `json:"out_of_core,omitempty"`
	// MemoryEstimate and MemoryLimit say why it was: its estimated size in
	// memory over the kernel's limit, in bytes (absent when --out-of-core
	// asked for it).
	MemoryEstimate int64 `json:"memory_estimate,omitempty"`
	MemoryLimit    int64 `json:"memory_limit,omitempty"`
}

// ManifestTable is a folder's table as loaded.
type ManifestTable struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	Rows    int    `json:"rows"`
	Columns int    `json:"columns"`
	Format  string `json:"format"`
}

// ManifestStage is one stage's outcome (its time is the occasion's).
type ManifestStage struct {
	Name   string             `json:"name"`
	Title  string             `json:"title"`
	Status report.StageStatus `json:"status"`
	// Lead stages (the questions) open the report.
	Lead bool `json:"lead,omitempty"`
}

// ManifestOutputs are the files of the run, relative to the output folder.
type ManifestOutputs struct {
	Notebook string   `json:"notebook"`
	Report   string   `json:"report"`
	Charts   []string `json:"charts"`
	// CodeFiles are the files the code wrote to the sandbox's /output,
	// kept in NAME_files/.
	CodeFiles []ManifestCodeFile `json:"code_files,omitempty"`
}

// ManifestCodeFile is a file the code wrote, by its name in NAME_files/.
type ManifestCodeFile struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
}

func (r *runner) manifest(charts []string) *Manifest {
	m := &Manifest{
		AnalystVersion: r.opts.AnalystVersion,
		Driver:         kernel.DriverHash(),
		Seccomp:        seccomp.Hash(),
		Image:          r.opts.ImageID,
		Runtime:        r.opts.Runtime,
		Rootless:       r.opts.Kernel.Rootless,
		Versions:       r.opts.Versions,
		Data:           ManifestData{Name: r.in.Name, Path: r.in.Path, SHA256: r.in.SHA256, Bytes: r.in.Bytes},
		Occasion:       ManifestOccasion{Started: r.started.UTC(), DurationMS: units.Millis(time.Since(r.started)), StagesMS: map[string]float64{}},
		Limits:         r.opts.Kernel.Enforcement(),
		Failure:        r.failure,
		Outputs: ManifestOutputs{Notebook: r.name + ".ipynb", Report: r.name + ".html", Charts: charts,
			CodeFiles: r.outputFiles()},
	}
	m.Inputs = r.ds.Inputs()
	if r.profile != nil {
		m.Data.Rows, m.Data.Columns, m.Data.Format = r.profile.Rows, r.profile.Columns, r.profile.Load.Format
		m.Data.OutOfCore = r.profile.OutOfCore
	}
	if r.ooc != nil && r.ooc.Estimate > 0 {
		m.Data.MemoryEstimate, m.Data.MemoryLimit = r.ooc.Estimate, r.ooc.Limit
	}
	r.manifestTables(&m.Data)
	for _, s := range r.stages {
		m.Stages = append(m.Stages, ManifestStage{Name: s.Name, Title: s.Title, Status: s.Status, Lead: s.Lead})
		m.Occasion.StagesMS[s.Name] = units.Millis(s.Duration)
	}
	if rate, ok := r.loadRate(); ok {
		m.Occasion.LoadMBPerS = &rate
	}
	m.Model = r.manifestModel()
	m.Asked, m.Questions, m.Independent = r.opts.Questions, r.answers, r.opts.Independent && len(r.opts.Questions) > 0
	m.Occasion.ModelCalls = modelCallTimes(r.answers)
	if r.opts.Rerun != nil {
		m.Rerun = r.opts.Rerun.Record()
	}
	m.Exploration = r.exploration
	m.Sketch, m.Baseline, m.KeyChanges = r.sketch, r.baselineRecord(), r.keyChanges
	if r.opts.Recorder != nil {
		m.Replies = r.opts.Recorder.Recording()
	}
	return m
}

// outputFiles are the files the code copied out of the kernel's /output
// into NAME_files.
func (r *runner) outputFiles() []ManifestCodeFile {
	if r.k == nil {
		return nil
	}
	var files []ManifestCodeFile
	for _, f := range r.k.OutputFiles() {
		files = append(files, ManifestCodeFile{Name: f.Name, Bytes: f.Bytes})
	}
	return append(files, r.sessionFiles...)
}
