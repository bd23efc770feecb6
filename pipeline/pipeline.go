// Package pipeline runs an analysis as stages — setup, load, profile,
// distributions, visualization, then with a model the exploration and the
// questions — against one kernel, and writes the run out: a notebook, an
// HTML report, the chart files and a run manifest. A run that fails or is
// interrupted still writes what it has, with the failure shown.
package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/audit"
	"github.com/analyst-cli/analyst/baseline"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/internal/atomicfile"
	"github.com/analyst-cli/analyst/internal/units"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/seccomp"
	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/report"
)

// Options configure a run.
type Options struct {
	Data string // the dataset on the host: a file or a folder
	// DataPaths, if set, are the files and folders of the dataset given one
	// by one (seen as one folder: CheckDataSet); Data is then unused.
	DataPaths []string
	// Input is Data as Preflight checked and hashed it; nil: Run checks
	// Data itself. Passing it spares a second read of the whole file.
	Input *Input
	// Dataset, if set, is the dataset already checked by Preflight (with
	// Name the name it returned) and opened: Run checks nothing again and
	// leaves it open. Data, Input, Sheet, Table and Load are then unused.
	Dataset *Dataset
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
	// Model answers the questions and explores the data; required when
	// there are questions. Without one the run is the EDA stages only.
	Model llm.Client
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
	// (analyst replay --data): Model is then Rerun.Client() (recording), the
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

// Event is a step of a run, for progress displays.
type Event struct {
	Time    time.Time `json:"time"`
	Type    EventType `json:"type"`
	Stage   string    `json:"stage,omitempty"`
	Cell    int       `json:"cell,omitempty"`
	Turn    int       `json:"turn,omitempty"`    // model-turn, and cells of model stages
	Tokens  int       `json:"tokens,omitempty"`  // model-turn: the run's tokens so far
	Retries int       `json:"retries,omitempty"` // model-turn: model requests retried so far
	// Status is, for stage-end, a report.StageStatus; for run-end
	// report.StatusOK or report.StatusFailed; for cell, the kernel.Status of
	// the cell (or the model's step).
	Status   string        `json:"status,omitempty"`
	Duration time.Duration `json:"duration_ns,omitempty"`
	Message  string        `json:"message,omitempty"`
	// Progress inside a long cell (type progress): Done of Total Units,
	// such as 312 of 529 MiB or 7 of 10 columns; Message says it in words.
	Done  int64  `json:"done,omitempty"`
	Total int64  `json:"total,omitempty"`
	Unit  string `json:"unit,omitempty"`
}

// EventType is what an Event reports.
type EventType string

const (
	EventStageStart EventType = "stage-start"
	EventProgress   EventType = "progress" // how far a long cell has got
	EventCell       EventType = "cell"
	EventModelTurn  EventType = "model-turn"
	EventNotice     EventType = "notice"
	EventStageEnd   EventType = "stage-end"
	EventRunEnd     EventType = "run-end"
)

// Result is what a run produced, also when it failed.
type Result struct {
	Name     string
	Notebook *nbformat.Notebook
	Profile  *eda.Profile
	Stages   []report.StageInfo
	Failure  string
	Files    Files
	Manifest *Manifest
	// Answers to the questions, in order (as far as the run got).
	Answers []*agent.Answer
	// Exploration is what the model's exploration found; nil when it did
	// not run.
	Exploration *Exploration
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

// DataError is data the kernel's loader could not read (its message says
// why and what to do).
type DataError struct {
	Path string // the dataset, as the user named it
	Msg  string
}

func (e *DataError) Error() string { return e.Path + ": " + e.Msg }

// SandboxError is a kernel that could not start or died (the agent's
// type, so a kernel lost under a question is the same error).
type SandboxError = agent.SandboxError

// ModelError is a model server that could not be used: unreachable,
// refusing the key, not knowing the model, rate limiting past the retries
// (test the cause with errors.Is and llm.ErrUnreachable etc.).
type ModelError struct{ Err error }

func (e *ModelError) Error() string { return e.Err.Error() }
func (e *ModelError) Unwrap() error { return e.Err }

// StageError is a generated cell that failed for another reason.
type StageError struct {
	Stage string
	Err   *kernel.ExecError
}

func (e *StageError) Error() string {
	return fmt.Sprintf("stage %s failed: %s: %s", e.Stage, e.Err.Name, e.Err.Value)
}

// Run runs the analysis and writes its outputs. The error says why a run
// failed (an *InputError, *DataError, *SandboxError, *StageError, or the
// context's error); the Result is non-nil whenever outputs were written.
func Run(ctx context.Context, opts Options) (*Result, error) {
	ds, name, err := openDataset(opts)
	if err != nil {
		return nil, err
	}
	if opts.Dataset == nil {
		defer ds.Close()
	}
	if err := removeLeftovers(opts); err != nil {
		return nil, err
	}
	in := ds.In
	out, err := newStaging(opts.OutDir, name)
	if err != nil {
		return nil, err
	}
	defer out.discard()

	if len(opts.Questions) > 0 && opts.Model == nil {
		return nil, errors.New("questions need a model: set one with --model, ANALYST_MODEL, or `model:` in the config file")
	}
	if opts.RunTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.RunTimeout)
		defer cancel()
	}
	r := &runner{opts: opts, in: in, ds: ds, name: name, out: out, started: time.Now()}
	runErr := r.run(ctx)
	if ctx.Err() == nil {
		// The kernel is gone: nothing reads the file any more.
		if err := in.unchanged(true); err != nil {
			runErr = errors.Join(err, runErr)
		}
	}
	res, writeErr := r.finish(runErr)
	if writeErr != nil {
		return res, errors.Join(runErr, writeErr)
	}
	return res, runErr
}

// removeLeftovers removes the staging folders killed runs left in the
// output folder, with a notice for each.
func removeLeftovers(opts Options) error {
	removed, err := removeLeftoverStaging(opts.OutDir)
	for _, l := range removed {
		if opts.Progress != nil {
			opts.Progress(Event{Time: time.Now(), Type: EventNotice, Stage: eda.StageSetup,
				Message: fmt.Sprintf("removed %s, left by analyst process %d, which is gone (killed during a run)", l.path, l.ownerPID)})
		}
	}
	return err
}

// openDataset is opts.Dataset with opts.Name, or else the dataset
// Preflight checks, opened (before anything is written: a bad sheet, table
// or Parquet file is bad input), and the outputs' name.
func openDataset(opts Options) (*Dataset, string, error) {
	if opts.Dataset != nil {
		return opts.Dataset, opts.Name, nil
	}
	in, name, err := Preflight(opts)
	if err != nil {
		return nil, "", err
	}
	ds, err := OpenDataset(in, opts.Sheet, opts.Table, opts.Load)
	return ds, name, err
}

// Preflight checks what a run can check before anything slow starts: the
// dataset (an *InputError), the outputs' name, that the outputs would
// replace nothing but a previous run (an *OutputConflictError, unless
// opts.Force), and last that the data will fit in the kernel's memory
// (a *MemoryError, returned with the input and name, so that a caller can
// choose another way to analyse it) unless the run may read it out of core,
// and that --out-of-core can read the file (a *UsageError; see
// readsOutOfCore). It returns the checked input and the outputs' name.
func Preflight(opts Options) (*Input, string, error) {
	in := opts.Input
	if in == nil {
		var err error
		paths := opts.DataPaths
		if len(paths) == 0 {
			paths = []string{opts.Data}
		}
		if in, err = CheckDataSet(paths, opts.SkipUnreadable); err != nil {
			return nil, "", err
		}
	}
	name := opts.Name
	if name == "" {
		name = defaultName(in.Name)
	} else if !validName.MatchString(name) {
		return nil, "", &UsageError{fmt.Errorf("invalid --name %q: use letters, digits, '.', '_' and '-'", name)}
	}
	if !opts.Force {
		if err := CheckOutputs(opts.OutDir, name); err != nil {
			return nil, "", err
		}
	}
	if _, err := readsOutOfCore(in, opts.OutOfCore, opts.Kernel.Limits.MemoryBytes); err != nil {
		return in, name, err
	}
	return in, name, nil
}

var (
	validName       = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	unsafeNameChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)
)

// defaultName is the data file's name without its extensions, made safe.
func defaultName(file string) string {
	base := strings.ToLower(file)
	for _, ext := range []string{".gz", ".gzip"} {
		base = strings.TrimSuffix(base, ext)
	}
	base = file[:len(base)]
	base = strings.TrimSuffix(base, filepath.Ext(base))
	safe := unsafeNameChars.ReplaceAllString(base, "_")
	safe = strings.Trim(safe, "._-")
	if safe == "" {
		return "analysis"
	}
	return safe
}

type runner struct {
	opts    Options
	in      *Input
	ds      *Dataset
	name    string
	out     *staging
	started time.Time

	k       *kernel.Kernel
	nb      *nbformat.Notebook
	profile *eda.Profile   // the main table's (a file's only one)
	loaded  *Loaded        // what the load stages found: a folder's tables
	ooc     *eda.OutOfCore // the data is read out of core
	stages  []report.StageInfo
	failure string

	modelInfo *llm.ModelInfo
	system    string
	answers   []*agent.Answer
	tokens    int
	agent     *agent.Agent

	exploration *Exploration

	changes    *baseline.Changes   // what changed since the baseline
	keyChanges *KeyChanges         // the model's account of them
	sketch     *baseline.SketchRef // the sketch this run kept
}

func (r *runner) retries() int {
	if r.opts.ModelRetries == nil {
		return 0
	}
	return r.opts.ModelRetries()
}

// cellTimeout is the time a cell may take: the option, else the kernel's.
func (r *runner) cellTimeout() time.Duration {
	if r.opts.CellTimeout > 0 {
		return r.opts.CellTimeout
	}
	if t := r.opts.Kernel.Limits.CellTimeout; t > 0 {
		return t
	}
	return kernel.DefaultLimits().CellTimeout
}

// generatedCellTimeout is the time a cell of the deterministic stages may
// take: the cell timeout once per started 100 MB of data. Their time grows
// with the rows (a 1 GB CSV takes over a minute to load), and, unlike the
// model's code, they are known to end.
func (r *runner) generatedCellTimeout() time.Duration {
	const per = 100_000_000
	return r.cellTimeout() * time.Duration(1+r.in.Bytes/per)
}

func (r *runner) emit(e Event) {
	if r.opts.Progress != nil {
		e.Time = time.Now()
		r.opts.Progress(e)
	}
}

func (r *runner) run(ctx context.Context) error {
	r.nb = nbformat.New()
	r.nb.Metadata.LanguageInfo.Version = r.opts.Versions["python"]
	r.nb.SetProvenance("analyst_version", r.opts.AnalystVersion)
	r.nb.SetProvenance("driver", kernel.DriverHash())
	r.nb.SetProvenance("image", r.opts.ImageID)
	r.nb.SetProvenance("data", r.notebookData())
	r.nb.AddMarkdown(r.notebookTitle(), nbformat.TagNotebookOnly)

	if len(r.opts.Questions) > 0 || r.exploring() || r.explainsChanges() {
		// Ask the model server first: a bad key or a typo fails in a second,
		// before the kernel starts.
		info, err := r.opts.ModelInfo, r.opts.ModelErr
		if info == nil && err == nil {
			info, err = r.opts.Model.Model(ctx)
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return &ModelError{err}
		}
		r.modelInfo = info
	}

	kopts := r.ds.KernelOptions(r.opts.Kernel, r.out.filesDir())
	k, err := kernel.Start(ctx, kopts)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &SandboxError{Err: err}
	}
	r.k = k
	defer k.Close()

	if ooc, outOfCore := r.outOfCore(); outOfCore {
		r.ooc = &ooc
	}
	if r.opts.Rerun != nil {
		r.ds.Main = r.opts.Rerun.Recorded().Record.Data.MainTable // the recorded code's df
	}
	loaded, err := r.ds.RunLoad(r.ooc, func(st eda.Stage) (StageResult, error) { return r.runStage(ctx, st) })
	r.loaded, r.profile = loaded, loaded.Profile
	if err != nil {
		return err
	}
	if r.opts.Rerun != nil {
		r.compareSchema()
	}
	if err := r.compareWithBaseline(ctx); err != nil {
		return err
	}
	dist := eda.Distributions(r.profile, r.opts.EDA)
	if r.ooc != nil {
		dist = eda.DistributionsOutOfCore(r.profile, r.opts.EDA)
	}
	for _, st := range []eda.Stage{dist, eda.OnSample(eda.Visualization(r.profile, r.opts.EDA), r.profile)} {
		if _, err := r.runStage(ctx, st); err != nil {
			return err
		}
	}
	if err := r.explore(ctx); err != nil {
		return err
	}
	return r.ask(ctx)
}

// runStage runs a stage's cells in order and stops at the first failure;
// its result has the profile a cell displayed, if one did.
func (r *runner) runStage(ctx context.Context, st eda.Stage) (StageResult, error) {
	sr := &StageRunner{Kernel: r.k, Notebook: r.nb, Data: r.ds.StagePath(st), CellTimeout: r.stageCellTimeout(), Progress: r.opts.Progress}
	res, err := sr.Run(ctx, st)
	if err == nil {
		// A file rewritten while the stage read it stops the run here; Run
		// compares its bytes once the kernel is gone.
		if err = r.in.unchanged(false); err != nil {
			res.Info.Status = report.StatusError
		}
	}
	r.stages = append(r.stages, res.Info)
	var rate string
	if ReadsData(st) && res.Info.Status == report.StatusOK {
		rate = fmt.Sprintf("%.1f MB/s", mbPerS(r.ds.StageBytes(st), res.Info.Duration))
	}
	r.emit(Event{Type: EventStageEnd, Stage: st.Name, Status: string(res.Info.Status), Duration: res.Info.Duration, Message: rate})
	return res, err
}

// pythonPermissionError is the exception Python raises when the file
// system refuses an open (EACCES, EPERM).
const pythonPermissionError = "PermissionError"

// cellError classifies a failed cell of a run of the dataset data.
func cellError(stage, data string, ex *kernel.Execution) error {
	switch {
	case ex.OutOfMemory:
		return &SandboxError{Err: fmt.Errorf("stage %s: %s; or analyse the data out of core with --out-of-core", stage, ex.Cause)}
	case ex.Status == kernel.StatusDied || ex.StateLost:
		return &SandboxError{Err: fmt.Errorf("stage %s: %s", stage, ex.Cause)}
	case ex.Error != nil && ex.Error.Name == eda.DataErrorName:
		return &DataError{Path: data, Msg: ex.Error.Value}
	case ex.Error != nil && ex.Error.Name == pythonPermissionError:
		// The generated cells open nothing but the data: it was made
		// unreadable after the preflight read it.
		return &DataError{Path: data, Msg: fmt.Sprintf("the kernel was refused reading it (%s): was it made unreadable during the run? "+
			"Check its permissions (chmod a+r) and run again", ex.Error.Value)}
	case ex.Error != nil:
		return &StageError{Stage: stage, Err: ex.Error}
	default:
		return &StageError{Stage: stage, Err: &kernel.ExecError{Name: string(ex.Status), Value: ex.Cause}}
	}
}

// finish writes what the run has, whatever happened, and commits it.
func (r *runner) finish(runErr error) (*Result, error) {
	if runErr != nil {
		r.failure = agent.FailureText(runErr)
		r.emit(Event{Type: EventRunEnd, Status: string(report.StatusFailed), Message: r.failure, Duration: time.Since(r.started)})
	} else {
		r.emit(Event{Type: EventRunEnd, Status: string(report.StatusOK), Duration: time.Since(r.started)})
	}
	if r.nb == nil {
		return nil, nil
	}
	res := &Result{Name: r.name, Notebook: r.nb, Profile: r.profile, Stages: r.stages, Failure: r.failure, Answers: r.answers,
		Exploration: r.exploration, Changes: r.changes}
	if err := r.write(res); err != nil {
		return res, fmt.Errorf("writing the run's outputs: %w", err)
	}
	return res, nil
}

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
	Inputs []InputFile `json:"inputs"`
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
	// Replies is every model reply in full, when the model client records
	// them (analyst replay plays them back).
	Replies any `json:"replies,omitempty"`
	// Model and Questions are there when questions were asked: Asked
	// every question given, Questions the answer to each asked so far.
	Model     *ManifestModel  `json:"model,omitempty"`
	Asked     []string        `json:"asked,omitempty"`
	Questions []*agent.Answer `json:"questions,omitempty"`
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
	m.Asked, m.Questions = r.opts.Questions, r.answers
	m.Occasion.ModelCalls = modelCallTimes(r.answers)
	if r.opts.Rerun != nil {
		m.Rerun = r.opts.Rerun.Record()
	}
	m.Exploration = r.exploration
	m.Sketch, m.Baseline, m.KeyChanges = r.sketch, r.baselineRecord(), r.keyChanges
	m.Replies = recordedReplies(r.opts.Model)
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
	return files
}

// mbPerS is bytes read in d, in MB (10^6 bytes) per second.
func mbPerS(bytes int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(bytes) / 1e6 / d.Seconds()
}

func (r *runner) write(res *Result) error {
	if err := r.keepSketches(); err != nil {
		return err
	}
	nbPath := r.out.path(r.name + ".ipynb")
	if err := nbformat.WriteFile(nbPath, r.nb); err != nil {
		return err
	}
	// The charts and the report are rendered from the notebook as written
	// and the facts run.json records, as analyst verify renders them again
	// (Render).
	nb, err := nbformat.ReadFile(nbPath)
	if err != nil {
		return err
	}
	charts, err := r.out.writeCharts(nb, r.name)
	if err != nil {
		return err
	}
	m := r.manifest(charts)
	if err := writeReport(r.out.path(r.name+".html"), renderInput(m, nb, r.opts.KaTeXDir)); err != nil {
		return err
	}
	m.Model = r.manifestModel() // it counts the numbers the report traced
	if m.Files, err = r.out.written(r.name); err != nil {
		return err
	}
	m.Cells = cellDigests(nb)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(r.out.path(r.name+".run.json"), append(b, '\n')); err != nil {
		return err
	}
	files, err := r.out.commit(r.name)
	if err != nil {
		return err
	}
	res.Files = files
	res.Manifest = m
	return nil
}
