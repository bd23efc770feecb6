package dabstep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A line longer than the bound is refused before it is read whole, with
// its line number; lines at the bound and a last line without a newline
// are read.
func TestReadLinesBoundsALine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.jsonl")
	content := strings.Repeat("a", 100) + "\n" + strings.Repeat("b", 100) + "\n" + strings.Repeat("c", 101) + "\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []int
	err := readLines(path, 1<<20, 100, func(n int, raw []byte) error { got = append(got, len(raw)); return nil })
	if err == nil || !strings.Contains(err.Error(), "f.jsonl:3: a line over 100 B") || len(got) != 2 {
		t.Errorf("lines %v, err %v", got, err)
	}
	if err := os.WriteFile(path, []byte("x\n\ny"), 0o644); err != nil {
		t.Fatal(err)
	}
	got = nil
	if err := readLines(path, 1<<20, 100, func(n int, raw []byte) error { got = append(got, len(raw)); return nil }); err != nil || len(got) != 3 || got[2] != 1 {
		t.Errorf("lines %v, err %v", got, err)
	}
}
