package dabstep_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/evals/dabstep"
	"github.com/analyst-cli/analyst/evals/dabstep/dabsteptest"
)

func fixture(t *testing.T) *dabsteptest.Fixture {
	t.Helper()
	f, err := dabsteptest.Write(t.TempDir(), dabsteptest.Options{Seed: 1, Payments: 500})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestOpenReadsTheSplits(t *testing.T) {
	f := fixture(t)
	b, err := dabstep.Open(f.Dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if b.Split != dabstep.SplitDev || !b.Answered || len(b.Tasks) != len(f.Tasks) {
		t.Fatalf("default split %s, answered %v, %d tasks; want dev with answers, %d tasks", b.Split, b.Answered, len(b.Tasks), len(f.Tasks))
	}
	for i, task := range b.Tasks {
		if task != f.Tasks[i].Task {
			t.Errorf("task %d read as %+v, written as %+v", i, task, f.Tasks[i].Task)
		}
	}
	if b.Context() != filepath.Join(f.Dir, "data", "context") {
		t.Errorf("context %s", b.Context())
	}
	all, err := dabstep.Open(f.Dir, dabstep.SplitAll)
	if err != nil {
		t.Fatal(err)
	}
	if all.Answered || all.Tasks[0].Answer != "" || all.Tasks[0].Question != f.Tasks[0].Question {
		t.Errorf("all split: answered %v, first task %+v", all.Answered, all.Tasks[0])
	}
}

// The default is dev when it has answers; otherwise all.
func TestDefaultSplit(t *testing.T) {
	f := fixture(t)
	dev := dabstep.TasksFile(f.Dir, dabstep.SplitDev)
	write(t, dev, `{"task_id": "1", "question": "Q?", "guidelines": "G", "level": "easy", "answer": ""}`+"\n")
	b, err := dabstep.Open(f.Dir, "")
	if err != nil || b.Split != dabstep.SplitAll {
		t.Errorf("dev without answers: split %v (%v), want all", b, err)
	}
	if err := os.Remove(dev); err != nil {
		t.Fatal(err)
	}
	if b, err := dabstep.Open(f.Dir, ""); err != nil || b.Split != dabstep.SplitAll {
		t.Errorf("no dev: %v (%v), want all", b, err)
	}
	if _, err := dabstep.Open(f.Dir, dabstep.SplitDev); err == nil || !strings.Contains(err.Error(), "has no data/tasks/dev.jsonl") {
		t.Errorf("--split dev without dev.jsonl: %v", err)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A folder that is not the layout, or a broken snapshot, is refused with
// what is wrong and what to do.
func TestOpenRefuses(t *testing.T) {
	for _, tt := range []struct {
		name  string
		spoil func(t *testing.T, dir string) string // returns the folder to open
		split string
		want  string
	}{
		{"no folder", func(t *testing.T, dir string) string { return filepath.Join(dir, "nope") }, "", "no such file or directory"},
		{"a file", func(t *testing.T, dir string) string { return filepath.Join(dir, "data", "context", "manual.md") }, "", "is not a folder"},
		{"not the layout", func(t *testing.T, dir string) string { return filepath.Join(dir, "data") }, "", "is not a DABstep snapshot: it has no data/tasks/dev.jsonl or data/tasks/all.jsonl; get a snapshot with: git clone https://huggingface.co/datasets/adyen/DABstep"},
		{"bad split", nil, "test", `no split "test": DABstep's are dev (the tasks with answers) and all`},
		{"missing context", func(t *testing.T, dir string) string {
			os.Remove(filepath.Join(dir, "data", "context", "fees.json"))
			os.Remove(filepath.Join(dir, "data", "context", "manual.md"))
			return dir
		}, "", "data/context lacks fees.json, manual.md; get a snapshot"},
		{"LFS pointer", func(t *testing.T, dir string) string {
			write(t, filepath.Join(dir, "data", "context", "payments.csv"), "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\nsize 23581339\n")
			return dir
		}, "", "payments.csv is a Git LFS pointer, not the data: run `git lfs install && git lfs pull`"},
		{"LFS pointer tasks", func(t *testing.T, dir string) string {
			write(t, dabstep.TasksFile(dir, "dev"), "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\nsize 2358\n")
			return dir
		}, "", "dev.jsonl is a Git LFS pointer"},
		{"not JSON", func(t *testing.T, dir string) string {
			write(t, dabstep.TasksFile(dir, "dev"), `{"task_id": "1", "question": "Q", "level": "easy", "answer": "1"}`+"\n{\"task_id\": 2\n")
			return dir
		}, "", "dev.jsonl:2: not a JSON object: want a DABstep task (task_id, question, guidelines, level, answer)"},
		{"no question", func(t *testing.T, dir string) string {
			write(t, dabstep.TasksFile(dir, "dev"), `{"task_id": "7", "level": "easy", "answer": "1"}`+"\n")
			return dir
		}, "", "dev.jsonl:1: task 7 has no question"},
		{"twice", func(t *testing.T, dir string) string {
			line := `{"task_id": "5", "question": "Q", "level": "easy", "answer": "1"}` + "\n"
			write(t, dabstep.TasksFile(dir, "dev"), line+"\n"+line)
			return dir
		}, "", "dev.jsonl:3: task 5 again (first on line 1)"},
		{"fractional id", func(t *testing.T, dir string) string {
			write(t, dabstep.TasksFile(dir, "dev"), `{"task_id": 5.5, "question": "Q", "level": "easy", "answer": "1"}`+"\n")
			return dir
		}, "", "task_id is 5.5, not a string or an integer"},
		{"null answer", func(t *testing.T, dir string) string {
			write(t, dabstep.TasksFile(dir, "dev"), `{"task_id": "5", "question": "Q", "level": "easy", "answer": null}`+"\n")
			return dir
		}, "", "task 5: answer is null, not a string"},
		{"empty", func(t *testing.T, dir string) string {
			write(t, dabstep.TasksFile(dir, "dev"), "\n")
			return dir
		}, "dev", "dev.jsonl has no tasks"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := fixture(t).Dir
			if tt.spoil != nil {
				dir = tt.spoil(t, dir)
			}
			_, err := dabstep.Open(dir, tt.split)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open: %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

// Task ids may be integers (the leaderboard compares str(task_id)), fields
// come in any order, and unknown fields are left alone.
func TestTaskLines(t *testing.T) {
	dir := fixture(t).Dir
	write(t, dabstep.TasksFile(dir, "dev"), `{"task_id": 1273, "question": "Q?", "answer": "0.12", "guidelines": "G", "level": "hard", "extra": [1]}`+"\n")
	b, err := dabstep.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	want := dabstep.Task{ID: "1273", Question: "Q?", Guidelines: "G", Level: "hard", Answer: "0.12"}
	if len(b.Tasks) != 1 || b.Tasks[0] != want {
		t.Errorf("tasks %+v, want %+v", b.Tasks, want)
	}
}
