package evals

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/analyst-cli/analyst/internal/boundedfile"
)

// Result statuses.
const (
	StatusPass  = "pass"  // every expected answer matched
	StatusFail  = "fail"  // answered, not all right
	StatusError = "error" // not attempted to the end: model, sandbox, timeout
	// StatusUnscored: answered or not, a case without a gold answer (a
	// DABstep split whose answers the leaderboard keeps): its answer goes
	// to the submission file, and it counts neither passed nor failed.
	StatusUnscored = "unscored"
)

// Right says whether a result counts right, by one rule everywhere (the
// score, the DABstep figures, levels, repeats, compare, progress): passed;
// or, for a DABstep task that errored, its submitted answer (the empty
// one) is right by DABstep's question_scorer, as the leaderboard scores the
// submission line every task gets (right where the gold is "" or the empty
// list).
func (r Result) Right() bool {
	if r.Status == StatusPass {
		return true
	}
	return r.Status == StatusError && r.DABstepID != "" && r.Total > 0 && r.Correct == r.Total
}

// Result is one line of results.jsonl: a case × model × repeat.
type Result struct {
	Case     string   `json:"case"`
	Index    int      `json:"index"`
	Model    string   `json:"model"`
	Repeat   int      `json:"repeat"`
	Concepts []string `json:"concepts,omitempty"`
	Level    string   `json:"level,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	// DABenchID is the question id for the DABench responses file.
	DABenchID *int64 `json:"dabench_id,omitempty"`
	// DABstepID is the task id of a DABstep case; AgentAnswer its answer
	// and Trace its steps in words, as the submission file has them.
	DABstepID   string `json:"dabstep_id,omitempty"`
	AgentAnswer string `json:"agent_answer,omitempty"`
	Trace       string `json:"trace,omitempty"`

	// Provenance: results that differ in any of these are not mixed.
	Suite       string `json:"suite"`
	SuiteHash   string `json:"suite_hash"`
	ModelDigest string `json:"model_digest"`
	ImageID     string `json:"image_id"`
	Seed        int    `json:"seed"`

	Status   string       `json:"status"`
	Class    string       `json:"class,omitempty"`
	Error    string       `json:"error,omitempty"`
	Response string       `json:"response"`
	Answers  []SubAnswer  `json:"answers"`
	Correct  int          `json:"correct"`
	Total    int          `json:"total"`
	Charts   []ChartCheck `json:"charts,omitempty"`
	// Notebook and Report are the case's files under CasesDir, relative to
	// the output folder ("" when the solver kept no record).
	Notebook string `json:"notebook,omitempty"`
	Report   string `json:"report,omitempty"`

	// ForkOf is the digest of the setup, load and profile cells of the
	// kernel the case's session was forked from (their sources and outputs,
	// as its notebook shows them); "" when the case had a kernel of its own
	// (--no-fork).
	ForkOf string `json:"fork_of,omitempty"`

	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	Timing           `json:"timing"`
}

// Timing is the part of a result that differs from run to run.
type Timing struct {
	WallMS   float64 `json:"wall_ms"`
	ModelMS  float64 `json:"model_ms"`
	KernelMS float64 `json:"kernel_ms"`
	// WaitMS is the part of WallMS the case waited while another case
	// started the parent it forks from: --timeout does not count it.
	WaitMS float64 `json:"wait_ms,omitempty"`
}

// SubAnswer is one expected answer and what the model said.
type SubAnswer struct {
	Name string `json:"name"`
	Want string `json:"want"`
	Got  string `json:"got"`
	Has  bool   `json:"has"`
	OK   bool   `json:"ok"`
}

// maxResultsBytes bounds a results.jsonl read back (a shard's folder is
// an artifact from elsewhere): a result is a few kilobytes, so this is
// tens of thousands of cases.
const maxResultsBytes = 256 << 20

// key identifies a result across runs, shards and merges.
type key struct {
	Case   string
	Model  string
	Repeat int
}

func (r *Result) key() key { return key{r.Case, r.Model, r.Repeat} }

// ReadResults reads a results.jsonl; a missing file is no results. A torn
// last line (a run killed mid-write) is ignored; any other bad line is an
// error naming it.
func ReadResults(path string) ([]Result, error) {
	data, err := boundedfile.Read(path, maxResultsBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Result
	lines := bytes.Split(data, []byte("\n"))
	for i, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r Result
		if err := json.Unmarshal(line, &r); err != nil {
			if i == len(lines)-1 {
				break // no newline yet: the write was cut off
			}
			return nil, fmt.Errorf("%s:%d: not a result line: %w", path, i+1, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// SortResults puts results in the suite's order: case, model, repeat.
func SortResults(rs []Result) {
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.Index != b.Index {
			return a.Index < b.Index
		}
		if a.Model != b.Model {
			return a.Model < b.Model
		}
		return a.Repeat < b.Repeat
	})
}

// writeResults writes rs as JSON lines.
func writeResults(w io.Writer, rs []Result) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range rs {
		if err := enc.Encode(&rs[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}
