// Package docscheck holds the user guide (README.md and docs/*.md) to the
// code: tests of the packages that own a documented constant call Says
// with the sentence the page states, formatted from the constant, so the
// page and the constant cannot drift apart. The links between the pages
// are checked by this package's own test.
package docscheck

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Root is the module's root folder: the nearest parent holding go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("docscheck: no go.mod above the test's folder")
		}
		dir = parent
	}
}

// Read is a page of the guide (a path from the module's root, such as
// "docs/sandbox.md") with every run of white space made one space, so a
// sentence matches however the page wraps it.
func Read(t testing.TB, page string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Root(t), filepath.FromSlash(page)))
	if err != nil {
		t.Fatalf("docscheck: %v", err)
	}
	return Flatten(string(b))
}

// Flatten makes every run of white space one space.
func Flatten(s string) string { return strings.Join(strings.Fields(s), " ") }

// Says fails the test for each sentence the page does not contain (white
// space compared as Read flattens it). Each sentence is formatted from a
// constant by the caller: a failure means the constant changed and the
// page still states the old value, or the page was reworded.
func Says(t testing.TB, page string, sentences ...string) {
	t.Helper()
	text := Read(t, page)
	for _, s := range sentences {
		if !strings.Contains(text, Flatten(s)) {
			t.Errorf("%s does not say %q: state the constant's value there (or, if the page was reworded, this test's sentence)", page, Flatten(s))
		}
	}
}

// Thousands writes n as the pages do, with a comma every three digits:
// 10,000.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
