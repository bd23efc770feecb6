package dabstep_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/analyst-cli/analyst/evals/dabstep"
)

func TestNewLineBoundsTheTrace(t *testing.T) {
	long := strings.Repeat("step ", dabstep.MaxTraceBytes)
	l := dabstep.NewLine("5", "NL", long)
	if len(l.ReasoningTrace) > dabstep.MaxTraceBytes+64 || !strings.HasSuffix(l.ReasoningTrace, fmt.Sprintf("… [%d more characters]", len(long)-dabstep.MaxTraceBytes)) {
		t.Errorf("trace of %d bytes kept as %d bytes ending %q", len(long), len(l.ReasoningTrace), l.ReasoningTrace[len(l.ReasoningTrace)-40:])
	}
	if short := dabstep.NewLine("5", "NL", "read the manual"); short.ReasoningTrace != "read the manual" {
		t.Errorf("short trace changed: %q", short.ReasoningTrace)
	}
}

// lines reads a file's lines as JSON objects, failing on a torn one.
func lines(t *testing.T, path string) []dabstep.Line {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []dabstep.Line
	for _, row := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var l dabstep.Line
		if err := json.Unmarshal(row, &l); err != nil {
			t.Fatalf("%s: line %q: %v", path, row, err)
		}
		out = append(out, l)
	}
	return out
}

// Cases end in any order, in parallel: each is a whole line on disk when
// Add returns; Close puts them in the tasks' order.
func TestSubmissionWriter(t *testing.T) {
	path := dabstep.SubmissionFile(t.TempDir(), "ollama_qwen2.5-coder_7b")
	order := []string{"1", "2", "3", "4", "5", "6", "7", "8"}
	w, err := dabstep.OpenSubmission(path, order)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := len(order) - 1; i >= 0; i-- {
		wg.Add(1)
		go func(id string) {
			defer wg.Done()
			if err := w.Add(dabstep.NewLine(id, "answer "+id, `trace with "quotes" and <tags>`)); err != nil {
				t.Error(err)
			}
		}(order[i])
	}
	wg.Wait()
	if got := lines(t, path); len(got) != len(order) {
		t.Fatalf("%d lines before Close, want %d", len(got), len(order))
	}
	if err := w.Add(dabstep.NewLine("3", "answer 3, again", "")); err != nil { // a task redone: one line, the new one
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := lines(t, path)
	for i, l := range got {
		want := "answer " + order[i]
		if order[i] == "3" {
			want += ", again"
		}
		if l.TaskID != order[i] || l.AgentAnswer != want {
			t.Errorf("line %d: %+v, want task %s answered %q", i+1, l, order[i], want)
		}
	}
	raw, _ := os.ReadFile(path)
	if !bytes.Contains(raw, []byte(`<tags>`)) || !bytes.HasPrefix(raw, []byte(`{"task_id":"1","agent_answer":"answer 1","reasoning_trace":`)) {
		t.Errorf("file starts %q", raw[:80])
	}
	sub, err := dabstep.ReadSubmission(path)
	if err != nil || len(sub.Answers) != len(order) || len(sub.Duplicates) != 0 {
		t.Errorf("the leaderboard's reading: %+v, %v", sub, err)
	}
}

// A resumed run keeps the lines of a killed one, less a torn last line;
// a file that is not a submission is left alone.
func TestSubmissionWriterResumes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "submissions", "m.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, path, `{"task_id":"2","agent_answer":"b","reasoning_trace":""}`+"\n"+`{"task_id":"1","agent_answer":"a","reasoning_trace":""}`+"\n"+`{"task_id":"3","agent_ans`)
	w, err := dabstep.OpenSubmission(path, []string{"1", "2", "3"})
	if err != nil {
		t.Fatal(err)
	}
	if got := lines(t, path); len(got) != 2 || got[0].TaskID != "1" || got[1].TaskID != "2" {
		t.Errorf("after open: %+v, want tasks 1 and 2", got)
	}
	if err := w.Add(dabstep.NewLine("3", "c", "")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := lines(t, path); len(got) != 3 || got[2].AgentAnswer != "c" {
		t.Errorf("after the resumed run: %+v", got)
	}
	bad := filepath.Join(filepath.Dir(path), "bad.jsonl")
	write(t, bad, "not json\n"+`{"task_id":"1","agent_answer":"a","reasoning_trace":""}`+"\n")
	if _, err := dabstep.OpenSubmission(bad, nil); err == nil || !strings.Contains(err.Error(), "bad.jsonl:1: not a submission line; move the file away") {
		t.Errorf("a broken file: %v", err)
	}
	if data, _ := os.ReadFile(bad); !strings.HasPrefix(string(data), "not json\n") {
		t.Error("the broken file was changed")
	}
}

// ReadSubmission refuses what the leaderboard refuses, naming the line.
func TestReadSubmissionRefuses(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		{`{"task_id": "1", "agent_answer": "a", "num_steps": "3"}`, `:2: field "num_steps": the leaderboard takes only task_id, agent_answer and reasoning_trace`},
		{`{"task_id": "1", "agent_answer": null}`, ":2: task 1: agent_answer is null, not a string (the leaderboard refuses nulls"},
		{`{"task_id": "1", "agent_answer": 42}`, ":2: task 1: agent_answer is 42, not a string"},
		{`{"task_id": "1"}`, ":2: task 1 has no agent_answer"},
		{`{"agent_answer": "a"}`, ":2: no task_id"},
		{`{"task_id": "1", "agent_answer": "a", "reasoning_trace": ["x"]}`, `:2: task 1: reasoning_trace is ["x"], not a string`},
		{`["1", "a"]`, ":2: not a JSON object"},
		{`{"task_id": "1", "agent_answer": "a"} {"task_id": "2"}`, ":2: more than one JSON value on the line"},
	} {
		path := filepath.Join(t.TempDir(), "sub.jsonl")
		write(t, path, `{"task_id": "9", "agent_answer": "x"}`+"\n"+tt.line+"\n")
		if _, err := dabstep.ReadSubmission(path); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.line, err, tt.want)
		}
	}
}

func TestReadSubmissionBounds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(300 << 20); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	if _, err := dabstep.ReadSubmission(path); err == nil || !strings.Contains(err.Error(), "is 300 MiB, more than the 256 MiB a file of this kind may be") {
		t.Errorf("a 300 MiB file: %v", err)
	}
}
