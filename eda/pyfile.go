package eda

import (
	"embed"
	"fmt"
	"strings"
)

// pyFS holds the Python of the stages: every template is a .py file that
// linters, editors and unit tests read as it is, its run's values set by
// constants.
//
//go:embed py/*.py
var pyFS embed.FS

// pyLoads counts how often each file was read, so a test can check that
// every file is used, once.
var pyLoads = map[string]int{}

// pyFile is the template in eda/py/name, without its final newline: a
// file ends with one, a cell ends at its last line. A file without a final
// newline is a mistake in analyst and panics, as constants does.
func pyFile(name string) string {
	return withoutFinalNewline(name, pyFileWhole(name))
}

// withoutFinalNewline is s without its last "\n" (only one).
func withoutFinalNewline(name, s string) string {
	s, ok := strings.CutSuffix(s, "\n")
	if !ok {
		panic(fmt.Sprintf("eda: py/%s does not end with a newline", name))
	}
	return s
}

// pyFileWhole is the template in eda/py/name as it is, final newline
// kept: the cells of the first templates (load.py, profile_*.py, viz_*.py,
// ooc_*.py) have always ended with one, and notebooks are compared byte
// for byte across versions.
func pyFileWhole(name string) string {
	b, err := pyFS.ReadFile("py/" + name)
	if err != nil {
		panic(fmt.Sprintf("eda: %v", err))
	}
	pyLoads[name]++
	return string(b)
}
