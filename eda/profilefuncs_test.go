package eda

import (
	"strings"
	"testing"
)

// The names a function declares global: identifiers outside strings and
// comments, not keywords, attributes, calls or keyword arguments (a def's
// or class's name is kept), numbers skipped.
func TestPyNames(t *testing.T) {
	src := "import numpy as np  # a comment with words\n" +
		"x = f\"{hidden} text\" + rb'also hidden' + s.attr\n" +
		"doc = \"\"\"line one\nstill 'inside' # not a comment\n\"\"\"\n" +
		"for k, v in d.items():\n    total += 1e5 + 0x1f + v\n" +
		"def g(p=None):\n    return p.q\n" +
		"print(len(total), sep=' ')\nclass K(Base):\n    pass\ny == (z := 2)\n"
	got := strings.Join(pyNames(src), " ")
	want := "Base K d doc g k np numpy p s total v x y z"
	if got != want {
		t.Errorf("pyNames = %q, want %q", got, want)
	}
	lines := pyStringLines(src)
	wantLines := []bool{false, false, false, true, true, false, false, false, false, false, false, false, false, false}
	if len(lines) != len(wantLines) {
		t.Fatalf("pyStringLines: %d lines, want %d", len(lines), len(wantLines))
	}
	for i := range lines {
		if lines[i] != wantLines[i] {
			t.Errorf("line %d starts inside a string: %v, want %v", i+1, lines[i], wantLines[i])
		}
	}
}

// A cell as a function: its lines indented but those inside a multi-line
// string, the names global, a last bare name returned.
func TestProfileAsFunction(t *testing.T) {
	c := Code("t = \"\"\"a\n  b\n\"\"\"\nif t:\n    n = 1\nt", "tag-x")
	got := profileAsFunction("run_tag_x", c)
	want := "def run_tag_x():\n" +
		"    \"\"\"The profile cell tagged tag-x, as it runs at top level.\"\"\"\n" +
		"    global n, t\n" +
		"    t = \"\"\"a\n  b\n\"\"\"\n    if t:\n        n = 1\n    return t"
	if got != want {
		t.Errorf("profileAsFunction =\n%s\nwant\n%s", got, want)
	}
}
