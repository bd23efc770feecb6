// Package evals runs dataset × question cases through a solver (the same
// agent `analyst run` uses, each case in a fresh kernel), scores them, and
// writes results that resume, shard and merge: results.jsonl, summary.json,
// report.md, junit.xml and DABench responses files.
package evals

//go:generate go run ../examples/gensales -rows 2000 -seed 7 -o data/sales.csv

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sort"
)

// Suite is a set of cases, from our YAML format or DABench's layout.
type Suite struct {
	Name string `json:"name"`
	Path string `json:"path"`
	Kind string `json:"kind"` // "dabench", "yaml" or KindDABstep
	// Hash covers the suite's files and every dataset's bytes: results
	// made with another hash are stale.
	Hash  string `json:"hash"`
	Cases []Case `json:"-"`
}

// Case is one dataset and question with the answers expected.
type Case struct {
	ID      string `json:"id"`
	Index   int    `json:"index"` // position in the suite, for a stable order
	Dataset string `json:"dataset"`
	// Prompt is what the model is asked (for DABench: question,
	// constraints and format, as DABench's harness gives them).
	Prompt    string   `json:"prompt"`
	FollowUps []string `json:"follow_ups,omitempty"`
	Expect    []Expect `json:"expect"`
	Concepts  []string `json:"concepts,omitempty"`
	Level     string   `json:"level,omitempty"`
	Tags      []string `json:"tags,omitempty"`
	// DABenchID is the question's id in a DABench suite (the "id" of its
	// responses file line).
	DABenchID *int64 `json:"dabench_id,omitempty"`
	// DABstepID is the task's id in a DABstep suite: its answer is the named
	// value answer, scored by DABstep's scorer, and written to the
	// submission file.
	DABstepID string        `json:"dabstep_id,omitempty"`
	Reference string        `json:"reference,omitempty"`
	Charts    []ChartExpect `json:"charts,omitempty"`
	// Repeat is which repeat of the case a solver is asked (0-based); a
	// solver that samples uses it to vary its seed.
	Repeat int `json:"-"`
}

// Expect is one named answer and how a prediction is matched against it.
type Expect struct {
	Name  string  `json:"name"`
	Value string  `json:"value"`
	Match Matcher `json:"match"`
}

// HasTag reports whether the case carries tag (tags, concepts or level).
func (c *Case) HasTag(tag string) bool {
	if c.Level == tag {
		return true
	}
	for _, t := range append(append([]string{}, c.Tags...), c.Concepts...) {
		if t == tag {
			return true
		}
	}
	return false
}

// suiteHash hashes the parts, then the files' bytes in name order.
func suiteHash(parts []string, files []string) (string, error) {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s", len(p), p)
	}
	files = append([]string{}, files...)
	sort.Strings(files)
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f] {
			continue
		}
		seen[f] = true
		fh, err := os.Open(f)
		if err != nil {
			return "", err
		}
		_, err = io.Copy(h, fh)
		fh.Close()
		if err != nil {
			return "", fmt.Errorf("hashing %s: %w", f, err)
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
