// Package shareddata finds, for tests and benchmarks, data the repository
// cannot ship (DABench, whose licence is non-commercial; other projects'
// test corpora): in an environment variable's folder, else in shared/NAME
// in a folder above the working directory, as CI and the project's machines
// lay it out. A person who clones the repository has none of it, so a test
// that needs it is skipped with a message that starts with SkipPrefix and
// says how to get the data; `make test` counts those skips.
package shareddata

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// SkipPrefix starts the message of every test skipped for missing data.
const SkipPrefix = "missing data: "

// Data is one collection of outside data: its folder under shared/, the
// environment variable that points at it elsewhere, a file that proves a
// folder holds it, and how a person gets it.
type Data struct {
	Name     string // e.g. "dabench": shared/dabench
	Env      string // e.g. "ANALYST_DABENCH"
	Witness  string // a file inside, e.g. "da-dev-labels.jsonl"
	HowToGet string
}

// Find returns the data's folder: $Env, else shared/Name above the working
// directory.
func (d Data) Find() (string, error) {
	if dir := os.Getenv(d.Env); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, d.Witness)); err != nil {
			return "", fmt.Errorf("%s=%s does not hold %s: %w", d.Env, dir, d.Witness, err)
		}
		return dir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		cand := filepath.Join(dir, "shared", d.Name)
		if _, err := os.Stat(filepath.Join(cand, d.Witness)); err == nil {
			return cand, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("no shared/%s above %s and %s is not set", d.Name, wd, d.Env)
		}
	}
}

// Require returns the data's folder, or skips the test saying what is
// missing and how to get it.
func (d Data) Require(t testing.TB) string {
	t.Helper()
	dir, err := d.Find()
	if err != nil {
		t.Skipf("%s%s (%v): %s", SkipPrefix, d.Name, err, d.HowToGet)
	}
	return dir
}
