package eda

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pyflakes is Debian's python3-pyflakes (scripts/install-deps.sh installs it).
const pyflakes = "pyflakes3"

// runPyflakes runs pyflakes over paths and returns its messages, one a line.
func runPyflakes(t *testing.T, paths ...string) []string {
	t.Helper()
	bin, err := exec.LookPath(pyflakes)
	if err != nil {
		t.Fatalf("%s is not installed (Debian's python3-pyflakes; scripts/install-deps.sh installs it): %v", pyflakes, err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bin, paths...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if _, failed := err.(*exec.ExitError); err != nil && !failed {
		t.Fatalf("%s: %v", pyflakes, err)
	}
	text := strings.TrimSpace(string(out) + stderr.String())
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// Every Python file the kernel runs, and the tests of it, are pyflakes
// clean on their own, but for the names earlier cells define (which
// TestCellsUseNamesEarlierCellsDefine checks) and setup.py's imports, which
// are for the cells after it (checked over whole notebooks below).
func TestPythonFilesPyflakesClean(t *testing.T) {
	var paths []string
	for _, pattern := range []string{"py/*.py", "py/tests/*.py", "testdata/*.py", "../kernel/driver/*.py"} {
		found, err := filepath.Glob(pattern)
		if err != nil || len(found) == 0 {
			t.Fatalf("no %s: %v", pattern, err)
		}
		paths = append(paths, found...)
	}
	for _, msg := range runPyflakes(t, paths...) {
		if strings.Contains(msg, ": undefined name '") ||
			strings.HasPrefix(msg, "py/setup.py:") && strings.HasSuffix(msg, "imported but unused") {
			continue
		}
		t.Error(msg)
	}
}

// setup.py's imports are each used by a later cell of some run's notebook:
// pyflakes over each notebook's stage cells, joined in order as one module,
// finds no import unused in all of them. (Its other messages there are by
// design: a folder run profiles each table with the same functions, and
// its names' order is TestCellsUseNamesEarlierCellsDefine's.)
func TestSetupImportsUsed(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for name, stages := range notebooksForNames() {
		var b strings.Builder
		for _, st := range stages {
			for _, c := range st.Cells {
				if !c.Markdown {
					b.WriteString(c.Source + "\n\n")
				}
			}
		}
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".py")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	unused := map[string]int{}
	for _, msg := range runPyflakes(t, paths...) {
		if _, what, ok := strings.Cut(msg, ": "); ok && strings.HasSuffix(what, " imported but unused") {
			unused[strings.TrimSpace(what)]++
		}
	}
	for what, n := range unused {
		if n == len(paths) {
			t.Errorf("setup.py: %s by every run's cells: remove it", what)
		}
	}
}
