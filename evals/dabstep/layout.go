package dabstep

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The dataset repository's layout (huggingface.co/datasets/adyen/DABstep).
const (
	TasksDir   = "data/tasks"
	ContextDir = "data/context"
	// SplitDev is the tasks published with their answers; SplitAll is
	// every task, its answers kept by the leaderboard.
	SplitDev = "dev"
	SplitAll = "all"
	// FetchHint says how to get a snapshot; errors about the layout end
	// with it.
	FetchHint = "get a snapshot with: git clone https://huggingface.co/datasets/adyen/DABstep (with git-lfs installed)"
)

// ContextFiles are the files of data/context the tasks are about.
var ContextFiles = []string{
	"payments.csv", "fees.json", "merchant_data.json", "merchant_category_codes.csv",
	"acquirer_countries.csv", "manual.md", "payments-readme.md",
}

// Bounds on what is read from a snapshot: the real tasks files are under
// 1 MiB, their longest line (a list of fee IDs) a few KiB.
const (
	maxTasksBytes    = 64 << 20
	maxTaskLineBytes = 4 << 20
)

// Task is a line of a tasks file.
type Task struct {
	ID         string `json:"task_id"`
	Question   string `json:"question"`
	Guidelines string `json:"guidelines"`
	Level      string `json:"level"`
	// Answer is the gold answer; "" in a split without answers. In a split
	// with answers, "" is a real answer (an empty list).
	Answer string `json:"answer"`
}

// Benchmark is one split of a snapshot.
type Benchmark struct {
	Dir   string
	Split string
	Tasks []Task
	// Answered says the split has answers: some task's is not "" (all.jsonl
	// has "" for every one).
	Answered bool
}

// Context is the folder of the data the tasks are about.
func (b *Benchmark) Context() string { return filepath.Join(b.Dir, ContextDir) }

// TasksFile is the path of a split's tasks.
func TasksFile(dir, split string) string { return filepath.Join(dir, TasksDir, split+".jsonl") }

// IsDABstep reports whether dir looks like a DABstep snapshot: it has
// data/tasks/dev.jsonl or data/tasks/all.jsonl.
func IsDABstep(dir string) bool {
	for _, s := range []string{SplitDev, SplitAll} {
		if fi, err := os.Stat(TasksFile(dir, s)); err == nil && !fi.IsDir() {
			return true
		}
	}
	return false
}

// Open reads a split of the snapshot in dir ("" for the default: dev when
// it has answers, else all) and checks that data/context has every file
// the tasks are about, with content rather than Git LFS pointers.
func Open(dir, split string) (*Benchmark, error) {
	b, err := LoadTasks(dir, split)
	if err != nil {
		return nil, err
	}
	if err := checkContext(dir); err != nil {
		return nil, err
	}
	return b, nil
}

// LoadTasks reads a split's tasks only (scoring needs no data).
func LoadTasks(dir, split string) (*Benchmark, error) {
	if fi, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a folder: a DABstep snapshot is the dataset repository's folder; %s", dir, FetchHint)
	}
	if !IsDABstep(dir) {
		return nil, fmt.Errorf("%s is not a DABstep snapshot: it has no %s/%s.jsonl or %s/%s.jsonl; %s",
			dir, TasksDir, SplitDev, TasksDir, SplitAll, FetchHint)
	}
	if split == "" {
		return defaultSplit(dir)
	}
	if split != SplitDev && split != SplitAll {
		return nil, fmt.Errorf("no split %q: DABstep's are %s (the tasks with answers) and %s", split, SplitDev, SplitAll)
	}
	return loadSplit(dir, split)
}

// defaultSplit is dev when it has answers, else all (else dev as it is).
func defaultSplit(dir string) (*Benchmark, error) {
	var dev *Benchmark
	if _, err := os.Stat(TasksFile(dir, SplitDev)); err == nil {
		b, err := loadSplit(dir, SplitDev)
		if err != nil || b.Answered {
			return b, err
		}
		dev = b
	}
	if _, err := os.Stat(TasksFile(dir, SplitAll)); err != nil && dev != nil {
		return dev, nil
	}
	return loadSplit(dir, SplitAll)
}

func loadSplit(dir, split string) (*Benchmark, error) {
	path := TasksFile(dir, split)
	if err := notLFSPointer(path); err != nil {
		return nil, err
	}
	b := &Benchmark{Dir: dir, Split: split}
	seen := map[string]int{}
	err := readLines(path, maxTasksBytes, maxTaskLineBytes, func(n int, raw []byte) error {
		if len(bytes.TrimSpace(raw)) == 0 {
			return nil
		}
		t, err := parseTask(raw)
		if err != nil {
			return err
		}
		if first, dup := seen[t.ID]; dup {
			return fmt.Errorf("task %s again (first on line %d)", t.ID, first)
		}
		seen[t.ID] = n
		b.Answered = b.Answered || t.Answer != ""
		b.Tasks = append(b.Tasks, t)
		return nil
	})
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s has no %s/%s.jsonl; %s", dir, TasksDir, split, FetchHint)
	}
	if err != nil {
		return nil, err
	}
	if len(b.Tasks) == 0 {
		return nil, fmt.Errorf("%s has no tasks", path)
	}
	return b, nil
}

// parseTask reads a task: task_id, question and level are required,
// guidelines and answer may be absent; other fields are ignored.
func parseTask(raw []byte) (Task, error) {
	const want = "a DABstep task (task_id, question, guidelines, level, answer)"
	m, err := object(raw)
	if err != nil {
		return Task{}, fmt.Errorf("%w: want %s", err, want)
	}
	var t Task
	if t.ID, err = taskID(m); err != nil {
		return Task{}, fmt.Errorf("%w: want %s", err, want)
	}
	fields := []struct {
		key      string
		dst      *string
		required bool
	}{{"question", &t.Question, true}, {"level", &t.Level, true}, {"guidelines", &t.Guidelines, false}, {"answer", &t.Answer, false}}
	for _, f := range fields {
		s, ok, err := text(m, f.key)
		if err != nil {
			return Task{}, fmt.Errorf("task %s: %w", t.ID, err)
		}
		if f.required && (!ok || s == "") {
			return Task{}, fmt.Errorf("task %s has no %s: want %s", t.ID, f.key, want)
		}
		*f.dst = s
	}
	return t, nil
}

// checkContext: every context file is there, a regular file with content.
func checkContext(dir string) error {
	ctx := filepath.Join(dir, ContextDir)
	var missing []string
	var errs []error
	for _, name := range ContextFiles {
		path := filepath.Join(ctx, name)
		fi, err := os.Stat(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			missing = append(missing, name)
		case err != nil:
			errs = append(errs, err)
		case !fi.Mode().IsRegular():
			errs = append(errs, fmt.Errorf("%s is not a regular file", path))
		default:
			errs = append(errs, notLFSPointer(path))
		}
	}
	if len(missing) > 0 {
		errs = append([]error{fmt.Errorf("%s lacks %s; %s", ctx, strings.Join(missing, ", "), FetchHint)}, errs...)
	}
	return errors.Join(errs...)
}

// lfsPointer starts a file that Git LFS has not fetched.
var lfsPointer = []byte("version https://git-lfs.github.com/spec/")

// notLFSPointer refuses a file that is a Git LFS pointer: a clone made
// without git-lfs has those in place of the data.
func notLFSPointer(path string) error {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil // said by the caller, with the file's place in the layout
		}
		return err
	}
	defer f.Close()
	head := make([]byte, len(lfsPointer))
	n, _ := io.ReadFull(f, head)
	if bytes.Equal(head[:n], lfsPointer) {
		return fmt.Errorf("%s is a Git LFS pointer, not the data: run `git lfs install && git lfs pull` in the snapshot, or fetch it with huggingface-cli download", path)
	}
	return nil
}
