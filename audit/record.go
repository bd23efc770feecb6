// Package audit checks that a run's outputs come from its code on its data:
// the files are the ones the run wrote (sha256), the notebook re-executed in
// a fresh sandbox of the recorded kernel image on the recorded data gives the
// same outputs, the report and the charts are what the notebook and the
// run's record render, and every named answer appears in the cells' outputs.
package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/internal/runfile"
	"github.com/analyst-cli/analyst/numtrace"
)

// Record is the part of NAME.run.json that verify reads. It is decoded here,
// not shared with package pipeline, so verify reads run.json files of any
// analyst version that recorded these fields.
type Record struct {
	AnalystVersion string     `json:"analyst_version"`
	Image          string     `json:"image"`
	Data           RecordData `json:"data"`
	// Inputs are the dataset's files (a folder's: each with its kind).
	Inputs    []RecordInput    `json:"inputs"`
	Outputs   RecordOutputs    `json:"outputs"`
	Files     []RecordFile     `json:"files"`
	Cells     []RecordCell     `json:"cells"`
	Questions []RecordQuestion `json:"questions"`
	// Independent: the questions were answered each in a forked session.
	Independent bool         `json:"independent"`
	Model       *RecordModel `json:"model"`
	Replies     *Recording   `json:"replies"`
	// Rerun is there when the run replayed another run on new data.
	Rerun *RerunRecord `json:"rerun"`
	// Exploration is there when the model explored the data.
	Exploration *RecordExploration `json:"exploration"`
	// Limits are the sandbox's limits as the run stated them
	// (kernel.Enforced), kept as written: verify compares every one.
	Limits map[string]any `json:"limits"`

	shape recordShape // the data's, from "data"
}

// recordShape is what run.json states of the data that its profile gives.
type recordShape struct {
	Rows    int    `json:"rows"`
	Columns int    `json:"columns"`
	Format  string `json:"format"`
	// MainTable is a folder's table whose rows and columns these are.
	MainTable string `json:"main_table"`
}

// RecordExploration is the model's exploration of the data: the goals it
// proposed (as screened) and explored, and the model calls and cells of
// each.
type RecordExploration struct {
	Proposal *agent.GoalSet `json:"proposal"`
	Goals    []RecordGoal   `json:"goals"`
	Ranking  *agent.Ranking `json:"ranking"`
}

// RecordGoal is a goal explored: the answer the model gave it.
type RecordGoal struct {
	Answer *RecordQuestion `json:"answer"`
}

// RecordModel is the model and the agent's settings of a run with questions.
type RecordModel struct {
	Spec          string `json:"spec"`
	MaxTurns      int    `json:"max_turns"`
	MaxRepairs    int    `json:"max_repairs"`
	ReflectRounds int    `json:"reflect_rounds"`
	Seed          int    `json:"seed"`
	// Explore is true when the model explored the data, asked for Goals
	// goals.
	Explore bool `json:"explore"`
	Goals   int  `json:"goals"`
}

// RecordFile is one file or folder the run wrote (a folder's path ends in
// "/" and has no sha256).
type RecordFile = runfile.File

// fileSums is the recorded sha256 of each file the run wrote, by path
// relative to the run's folder.
func (r *Record) fileSums() map[string]string {
	sums := map[string]string{}
	for _, f := range r.Files {
		if !strings.HasSuffix(f.Path, "/") {
			sums[f.Path] = f.SHA256
		}
	}
	return sums
}

// RecordData is the run's dataset.
type RecordData struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
	// Format is eda.FormatFolder for a folder (its files are the record's
	// Inputs); Paths the files and folders of a set given one by one.
	Format string   `json:"format,omitempty"`
	Paths  []string `json:"paths,omitempty"`
	// MainTable is a folder's main table, bound to df.
	MainTable string `json:"main_table,omitempty"`
}

// RecordInput is a file of the dataset: its path in the folder, its kind
// (eda.InputTable, ...) and sha256.
type RecordInput struct {
	Path   string `json:"path"`
	Kind   string `json:"kind"`
	SHA256 string `json:"sha256"`
	Table  string `json:"table"`
}

// RecordOutputs names the run's notebook, report and charts.
type RecordOutputs struct {
	Notebook string   `json:"notebook"`
	Report   string   `json:"report"`
	Charts   []string `json:"charts"`
}

// RecordCell is a notebook cell's id and digest (nbformat.CellDigest).
type RecordCell struct {
	ID     string `json:"id"`
	SHA256 string `json:"sha256"`
}

// RecordQuestion is a question (or an exploration goal's question), its
// named answers and, when the run traced them, the cells its numbers were
// traced to; the model calls and cells made for it.
type RecordQuestion struct {
	Question string           `json:"question"`
	Values   []RecordValue    `json:"values"`
	Numbers  *numtrace.Record `json:"numbers"`
	Steps    []RecordStep     `json:"steps"`
	Calls    []RecordCall     `json:"calls"`
}

// RecordCall is a model call (agent.ModelCall): the phase and turn it was
// made in.
type RecordCall struct {
	Phase string `json:"phase"`
	Turn  int    `json:"turn"`
}

// RecordStep is a cell the model wrote (agent.Step): its code and how it
// ended.
type RecordStep struct {
	Phase  string `json:"phase"`
	Turn   int    `json:"turn"`
	Code   string `json:"code"`
	Status string `json:"status"`
}

// answered are the named values the run's outputs must show: the answers,
// or, for a replay on new data, the new values found (the recorded answers
// were given for the recorded data).
func (r *Record) answered() []RecordQuestion {
	if r.Rerun == nil {
		return r.Questions
	}
	var out []RecordQuestion
	for _, a := range r.Rerun.Answers {
		q := RecordQuestion{}
		if recorded := r.answerOf(a); recorded != nil {
			q.Question = recorded.Question
		}
		for _, v := range a.Values {
			if v.Located {
				q.Values = append(q.Values, RecordValue{Name: v.Name, Value: v.New})
			}
		}
		out = append(out, q)
	}
	return out
}

// answerOf is the recorded question or goal a rerun answer is of, or nil.
func (r *Record) answerOf(a RerunAnswer) *RecordQuestion {
	switch {
	case a.Goal > 0 && r.Exploration != nil && a.Goal <= len(r.Exploration.Goals):
		return r.Exploration.Goals[a.Goal-1].Answer
	case a.Goal == 0 && a.Question > 0 && a.Question <= len(r.Questions):
		return &r.Questions[a.Question-1]
	}
	return nil
}

// RecordValue is one named value of an answer (@name[value]).
type RecordValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Name is the run's base name: NAME of NAME.run.json.
func (r *Run) Name() string { return strings.TrimSuffix(filepath.Base(r.Manifest), ".run.json") }

// Run is a run on disk: its run.json, folder and record.
type Run struct {
	Manifest string // NAME.run.json
	Dir      string // the output folder
	Record   *Record
}

// ErrNotARun is a path that names no run (verify's usage error).
var ErrNotARun = errors.New("not a run")

// Open finds the run named by path: its output folder (holding one
// NAME.run.json), the NAME.run.json or the NAME.ipynb.
func Open(path string) (*Run, error) {
	manifest, err := manifestPath(path)
	if err != nil {
		return nil, err
	}
	raw, err := runfile.Read(manifest)
	if err != nil {
		return nil, fmt.Errorf("reading the run's manifest: %w", err)
	}
	var rec Record
	var shape struct {
		Data recordShape `json:"data"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, fmt.Errorf("%s: not a run manifest: %w", manifest, err)
	}
	if err := json.Unmarshal(raw, &shape); err != nil {
		return nil, fmt.Errorf("%s: not a run manifest: %w", manifest, err)
	}
	rec.shape = shape.Data
	if len(rec.Files) == 0 || rec.Outputs.Notebook == "" {
		return nil, fmt.Errorf("%s records no file hashes: it was written by analyst %q, before verify; re-run it with this analyst", manifest, rec.AnalystVersion)
	}
	return &Run{Manifest: manifest, Dir: filepath.Dir(manifest), Record: &rec}, nil
}

func manifestPath(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotARun, err)
	}
	switch {
	case fi.IsDir():
		m, _ := filepath.Glob(filepath.Join(path, "*.run.json"))
		switch len(m) {
		case 0:
			return "", fmt.Errorf("%w: %s holds no NAME.run.json", ErrNotARun, path)
		case 1:
			return m[0], nil
		}
		return "", fmt.Errorf("%w: %s holds %d runs (%s); name one NAME.run.json", ErrNotARun, path, len(m), strings.Join(m, ", "))
	case strings.HasSuffix(path, ".run.json"):
		return path, nil
	case strings.HasSuffix(path, ".ipynb"):
		m := strings.TrimSuffix(path, ".ipynb") + ".run.json"
		if _, err := os.Stat(m); err != nil {
			return "", fmt.Errorf("%w: %s has no %s next to it", ErrNotARun, path, filepath.Base(m))
		}
		return m, nil
	}
	return "", fmt.Errorf("%w: %s is neither a run's folder, its NAME.run.json nor its NAME.ipynb", ErrNotARun, path)
}
