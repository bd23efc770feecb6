package evals

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/analyst-cli/analyst/evals/dabench"
)

// DABench's file names in a suite folder.
const (
	DABenchQuestions = "da-dev-questions.jsonl"
	DABenchLabels    = "da-dev-labels.jsonl"
	DABenchTables    = "tables"
	// DABenchRepoTables is the tables' folder in InfiAgent's repository
	// (examples/DA-Agent/data/da-dev-tables), read when there is no tables/.
	DABenchRepoTables = "da-dev-tables"
)

// dabenchTables is the folder of dir that holds the tables.
func dabenchTables(dir string) string {
	if fi, err := os.Stat(filepath.Join(dir, DABenchRepoTables)); err == nil && fi.IsDir() {
		if _, err := os.Stat(filepath.Join(dir, DABenchTables)); err != nil {
			return DABenchRepoTables
		}
	}
	return DABenchTables
}

// IsDABench reports whether dir has DABench's layout.
func IsDABench(dir string) bool {
	_, err1 := os.Stat(filepath.Join(dir, DABenchQuestions))
	_, err2 := os.Stat(filepath.Join(dir, DABenchLabels))
	return err1 == nil && err2 == nil
}

// DABenchPrompt is a question as DABench's harness gives it to a model:
// the question, its constraints and the output format (\Format{...} is the
// form DABench's own reformatting prompt uses).
func DABenchPrompt(q dabench.Question) string {
	return "\\Question{" + q.Question + "}\n\\Constraints{" + q.Constraints + "}\n\\Format{" + q.Format + "}"
}

// LoadDABench reads a folder laid out like DABench's data: questions,
// labels and tables/ (or da-dev-tables/, as in InfiAgent's repository). Cases are in the labels' order (the scorer's); each
// expected value is matched as the official scorer does.
func LoadDABench(dir string) (*Suite, error) {
	qpath, lpath := filepath.Join(dir, DABenchQuestions), filepath.Join(dir, DABenchLabels)
	qs, err := dabench.LoadQuestions(qpath)
	if err != nil {
		return nil, err
	}
	ls, err := dabench.LoadLabels(lpath)
	if err != nil {
		return nil, err
	}
	byID := map[int64]dabench.Question{}
	for _, q := range qs {
		byID[q.ID] = q
	}
	s := &Suite{Name: filepath.Base(filepath.Clean(dir)), Path: dir, Kind: "dabench"}
	files := []string{qpath, lpath}
	var errs []error
	tables := dabenchTables(dir)
	for i, l := range ls {
		q, ok := byID[l.ID]
		if !ok {
			errs = append(errs, fmt.Errorf("%s: label %d has no question in %s", lpath, l.ID, qpath))
			continue
		}
		table := filepath.Join(dir, tables, q.FileName)
		if _, err := os.Stat(table); err != nil {
			errs = append(errs, fmt.Errorf("%s: question %d: table %s: %w", qpath, q.ID, q.FileName, err))
			continue
		}
		files = append(files, table)
		id := l.ID
		c := Case{ID: strconv.FormatInt(l.ID, 10), Index: i, Dataset: table, Prompt: DABenchPrompt(q),
			Concepts: q.Concepts, Level: q.Level, DABenchID: &id}
		for _, a := range l.Answers {
			c.Expect = append(c.Expect, Expect{Name: a.Name, Value: a.Value, Match: Matcher{Kind: MatchDABench}})
		}
		s.Cases = append(s.Cases, c)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if s.Hash, err = suiteHash([]string{"dabench"}, files); err != nil {
		return nil, err
	}
	return s, nil
}
