package evals

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/analyst-cli/analyst/internal/boundedfile"
)

// A results.jsonl or summary.json from a shard's folder is read with a
// bound: a file past it is refused by its size, before any byte is read
// (a sparse file of 300 MiB here), and a FIFO in its place is refused,
// not waited on.
func TestResultsAreReadWithABound(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, ResultsFile)
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(300 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var tooLarge *boundedfile.TooLargeError
	if _, err := ReadResults(big); !errors.As(err, &tooLarge) || tooLarge.Size != 300<<20 {
		t.Errorf("a 300 MiB results.jsonl: %v, want it refused by its size", err)
	}
	fifo := filepath.Join(dir, SummaryFile)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readSummary(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a FIFO as summary.json: %v, want it refused", err)
	}
}
