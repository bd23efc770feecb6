// Package audit checks that a run's outputs come from its code on its data:
// the files are the ones the run wrote (sha256), the notebook re-executed in
// a fresh sandbox of the recorded kernel image on the recorded data gives the
// same outputs, the report and the charts are what the notebook and the
// run's record render, and every named answer appears in the cells' outputs.
package audit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/runrecord"
)

// fileSums is the recorded sha256 of each file the run wrote, by path
// relative to the run's folder.
func fileSums(r *runrecord.Record) map[string]string {
	sums := map[string]string{}
	for _, f := range r.Files {
		if !strings.HasSuffix(f.Path, "/") {
			sums[f.Path] = f.SHA256
		}
	}
	return sums
}

// answered are the named values the run's outputs must show: the answers,
// or, for a replay on new data, the new values found (the recorded answers
// were given for the recorded data).
func answered(r *runrecord.Record) []*agent.Answer {
	if r.Rerun == nil {
		return r.Questions
	}
	var out []*agent.Answer
	for _, a := range r.Rerun.Answers {
		q := &agent.Answer{}
		if recorded := answerOf(r, a); recorded != nil {
			q.Question = recorded.Question
		}
		for _, v := range a.Values {
			if v.Located {
				q.Values = append(q.Values, agent.NamedValue{Name: v.Name, Value: v.New})
			}
		}
		out = append(out, q)
	}
	return out
}

// answerOf is the recorded question or goal a rerun answer is of, or nil.
func answerOf(r *runrecord.Record, a runrecord.RerunAnswer) *agent.Answer {
	switch {
	case a.Goal > 0 && r.Exploration != nil && a.Goal <= len(r.Exploration.Goals):
		return r.Exploration.Goals[a.Goal-1].Answer
	case a.Goal == 0 && a.Question > 0 && a.Question <= len(r.Questions):
		return r.Questions[a.Question-1]
	}
	return nil
}

// Name is the run's base name: NAME of NAME.run.json.
func (r *Run) Name() string { return strings.TrimSuffix(filepath.Base(r.Manifest), ".run.json") }

// Run is a run on disk: its run.json, folder and record.
type Run struct {
	Manifest string // NAME.run.json
	Dir      string // the output folder
	Record   *runrecord.Record
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
	rec, err := runrecord.Read(manifest)
	if err != nil {
		return nil, err
	}
	if len(rec.Files) == 0 || rec.Outputs.Notebook == "" {
		return nil, fmt.Errorf("%s records no file hashes: it was written by analyst %q, before verify; re-run it with this analyst", manifest, rec.AnalystVersion)
	}
	return &Run{Manifest: manifest, Dir: filepath.Dir(manifest), Record: rec}, nil
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
