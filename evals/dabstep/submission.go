package dabstep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/analyst-cli/analyst/internal/atomicfile"
	"github.com/analyst-cli/analyst/internal/clip"
	"github.com/analyst-cli/analyst/internal/units"
)

// SubmissionsDir is the folder of an eval's output that holds one
// submission file per model, OUT/submissions/MODEL.jsonl.
const SubmissionsDir = "submissions"

// SubmissionFile is the submission file of a model (slug: its name made
// safe as a file name) in an eval's output folder.
func SubmissionFile(out, slug string) string {
	return filepath.Join(out, SubmissionsDir, slug+".jsonl")
}

// MaxTraceBytes bounds a line's reasoning trace: a longer one is cut and
// says how much was cut.
const MaxTraceBytes = 32 << 10

// Bounds on a submission file read for scoring (traces included).
const (
	maxSubmissionBytes     = 256 << 20
	maxSubmissionLineBytes = 16 << 20
)

// Line is a line of a submission file, as the leaderboard takes it.
type Line struct {
	TaskID         string `json:"task_id"`
	AgentAnswer    string `json:"agent_answer"`
	ReasoningTrace string `json:"reasoning_trace"`
}

// NewLine is a submission line with its trace bounded to MaxTraceBytes.
func NewLine(taskID, answer, trace string) Line {
	return Line{TaskID: taskID, AgentAnswer: answer, ReasoningTrace: clip.Bytes(trace, MaxTraceBytes)}
}

func (l Line) encode() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(l) // three strings: cannot fail; ends in '\n'
	return b.Bytes()
}

// SubmissionWriter keeps a run's submission file as cases end: a line is
// appended (in one write) when a task is answered, and the file is
// rewritten whole, atomically, when a task is answered again (the
// leaderboard scores a task's first line, so there must be one) and at
// Close, in the tasks' order. Safe for concurrent use.
type SubmissionWriter struct {
	path  string
	order []string
	mu    sync.Mutex
	f     *os.File
	lines map[string]Line
	ids   []string // in the order they came, for ids not in order
}

// OpenSubmission opens path for a run over the tasks in order. Lines
// already there (a resumed run) are kept, a torn last line (a run killed
// mid-write) dropped.
func OpenSubmission(path string, order []string) (*SubmissionWriter, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("creating the submissions folder: %w", err)
	}
	w := &SubmissionWriter{path: path, order: order, lines: map[string]Line{}}
	if err := w.readExisting(); err != nil {
		return nil, err
	}
	if err := w.rewrite(); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *SubmissionWriter) readExisting() error {
	fi, err := os.Stat(w.path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Size() > maxSubmissionBytes {
		return fmt.Errorf("%s is %s, more than a submission may be; move it away to start afresh", w.path, units.Bytes(fi.Size()))
	}
	data, err := os.ReadFile(w.path)
	if err != nil {
		return err
	}
	rows := bytes.SplitAfter(data, []byte("\n"))
	for i, row := range rows {
		if len(bytes.TrimSpace(row)) == 0 {
			continue
		}
		var l Line
		if err := json.Unmarshal(row, &l); err != nil || l.TaskID == "" {
			if i == len(rows)-1 && !bytes.HasSuffix(row, []byte("\n")) {
				break // torn by a crash: that task is redone
			}
			return fmt.Errorf("%s:%d: not a submission line; move the file away to start afresh", w.path, i+1)
		}
		w.keep(l)
	}
	return nil
}

func (w *SubmissionWriter) keep(l Line) (again bool) {
	_, again = w.lines[l.TaskID]
	if !again {
		w.ids = append(w.ids, l.TaskID)
	}
	w.lines[l.TaskID] = l
	return again
}

// Add records a task's line: appended, or the file rewritten when the
// task had one.
func (w *SubmissionWriter) Add(l Line) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.keep(l) {
		return w.rewrite()
	}
	if _, err := w.f.Write(l.encode()); err != nil {
		return fmt.Errorf("appending to %s: %w", w.path, err)
	}
	return nil
}

// Close writes the file in the tasks' order (ids not among them after,
// as they came) and closes it.
func (w *SubmissionWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.rewrite()
	if cerr := w.f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return err
}

// rewrite replaces the file atomically and reopens it for appending.
func (w *SubmissionWriter) rewrite() error {
	if w.f != nil {
		_ = w.f.Close()
	}
	err := atomicfile.Write(w.path, func(out io.Writer) error {
		for _, id := range w.sortedIDs() {
			if _, err := out.Write(w.lines[id].encode()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	w.f, err = os.OpenFile(w.path, os.O_APPEND|os.O_WRONLY, 0o644)
	return err
}

func (w *SubmissionWriter) sortedIDs() []string {
	rank := make(map[string]int, len(w.order))
	for i, id := range w.order {
		rank[id] = i
	}
	pos := func(id string) int {
		if r, ok := rank[id]; ok {
			return r
		}
		return len(w.order)
	}
	ids := append([]string(nil), w.ids...)
	sort.SliceStable(ids, func(i, j int) bool { return pos(ids[i]) < pos(ids[j]) })
	return ids
}

// WriteSubmission writes a submission file of lines, in their order, at
// once (atomically): what a run's results hold, after it or a merge.
func WriteSubmission(path string, lines []Line) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating the submissions folder: %w", err)
	}
	return atomicfile.Write(path, func(out io.Writer) error {
		for _, l := range lines {
			if _, err := out.Write(l.encode()); err != nil {
				return err
			}
		}
		return nil
	})
}
