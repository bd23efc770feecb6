package dabench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"
)

// Question is a line of da-dev-questions.jsonl.
type Question struct {
	ID          int64    `json:"id"`
	Question    string   `json:"question"`
	Concepts    []string `json:"concepts"`
	Constraints string   `json:"constraints"`
	Format      string   `json:"format"`
	FileName    string   `json:"file_name"`
	Level       string   `json:"level"`
}

// Label is a line of da-dev-labels.jsonl: the gold sub-answers, in file
// order, duplicate names collapsed (the last value wins, as in the official
// dict comprehension).
type Label struct {
	ID      int64
	Answers []Pair
}

// Pair is a named value.
type Pair struct{ Name, Value string }

// Response is a line of a responses file: {"id": ..., "response": "..."}.
// ID keeps the JSON value as decoded (json.Number, string, bool, nil, ...),
// because the official scorer compares it with Python's ==.
type Response struct {
	Line        int
	HasID       bool
	ID          any
	HasResponse bool
	Response    any
}

// lines calls fn with each line of a JSON Lines file, decoded as the
// official read_jsonl does: every line, blank ones included, must be JSON.
func lines(path string, fn func(n int, raw []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if len(line) == 0 && err == io.EOF {
			return nil
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		if ferr := fn(n, line); ferr != nil {
			return fmt.Errorf("%s:%d: %w", path, n, ferr)
		}
		if err == io.EOF {
			return nil
		}
	}
}

func decode(raw []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	if d.More() {
		return fmt.Errorf("more than one JSON value on the line")
	}
	return nil
}

// LoadQuestions reads a questions file.
func LoadQuestions(path string) ([]Question, error) {
	var qs []Question
	err := lines(path, func(n int, raw []byte) error {
		var q Question
		if err := json.Unmarshal(raw, &q); err != nil {
			return fmt.Errorf("not a DABench question (id, question, concepts, constraints, format, file_name, level): %w", err)
		}
		qs = append(qs, q)
		return nil
	})
	return qs, err
}

// LoadLabels reads a labels file.
func LoadLabels(path string) ([]Label, error) {
	var ls []Label
	err := lines(path, func(n int, raw []byte) error {
		var l struct {
			ID      *int64     `json:"id"`
			Answers [][]string `json:"common_answers"`
		}
		if err := json.Unmarshal(raw, &l); err != nil {
			return fmt.Errorf(`not a DABench label {"id": N, "common_answers": [["name", "value"], ...]}: %w`, err)
		}
		if l.ID == nil {
			return fmt.Errorf(`label has no "id"`)
		}
		lab := Label{ID: *l.ID}
		index := map[string]int{}
		for _, a := range l.Answers {
			if len(a) < 2 {
				return fmt.Errorf("label %d: common_answers entry %q is not a [name, value] pair", *l.ID, a)
			}
			if i, ok := index[a[0]]; ok {
				lab.Answers[i].Value = a[1]
				continue
			}
			index[a[0]] = len(lab.Answers)
			lab.Answers = append(lab.Answers, Pair{a[0], a[1]})
		}
		ls = append(ls, lab)
		return nil
	})
	return ls, err
}

// LoadResponses reads a responses file.
func LoadResponses(path string) ([]Response, error) {
	var rs []Response
	err := lines(path, func(n int, raw []byte) error {
		var m map[string]any
		if err := decode(raw, &m); err != nil {
			return err
		}
		if m == nil {
			return fmt.Errorf("not a JSON object")
		}
		r := Response{Line: n}
		r.ID, r.HasID = m["id"]
		r.Response, r.HasResponse = m["response"]
		rs = append(rs, r)
		return nil
	})
	return rs, err
}

// pyEqualsInt is Python's `value == id` for a JSON value and an int id:
// numbers compare exactly by value (5 == 5.0), true is 1 and false is 0,
// and nothing else equals an int.
func pyEqualsInt(v any, id int64) bool {
	switch x := v.(type) {
	case json.Number:
		r, ok := pyNumber(x)
		return ok && r.Cmp(new(big.Rat).SetInt64(id)) == 0
	case bool:
		return (x && id == 1) || (!x && id == 0)
	}
	return false
}

// pyTruthy is Python's truth value of a JSON value.
func pyTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		r, ok := pyNumber(x)
		return !ok || r.Sign() != 0
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// pyNumber is the exact value Python's json gives a number: an int as
// written, a float literal rounded to float64 (so 5.0000000000000001 is
// 5.0, and 1e-400 is 0.0). ok is false for the infinities.
func pyNumber(n json.Number) (*big.Rat, bool) {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		return new(big.Rat).SetString(s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && math.IsInf(f, 0) {
		return nil, false
	}
	return new(big.Rat).SetFloat64(f), true
}
