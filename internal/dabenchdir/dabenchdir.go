// Package dabenchdir finds the DABench dev data for tests and benchmarks:
// $ANALYST_DABENCH, else shared/dabench in a folder above the working
// directory (the data is licensed for non-commercial use and never copied
// into the repository).
package dabenchdir

import (
	"errors"
	"os"
	"path/filepath"
)

// Find returns the folder holding da-dev-questions.jsonl, da-dev-labels.jsonl
// and tables/.
func Find() (string, error) {
	if d := os.Getenv("ANALYST_DABENCH"); d != "" {
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		cand := filepath.Join(d, "shared", "dabench")
		if _, err := os.Stat(filepath.Join(cand, "da-dev-labels.jsonl")); err == nil {
			return cand, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("no shared/dabench above " + wd + " (set ANALYST_DABENCH)")
		}
	}
}
