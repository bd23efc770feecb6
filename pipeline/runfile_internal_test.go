package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/analyst-cli/analyst/internal/runfile"
)

// Render and the check of a previous run read run.json through runfile:
// one past its bound is refused before it is read.
func TestManifestReadersBoundSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.run.json")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, runfile.MaxBytes+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	var tooLarge *runfile.TooLargeError
	if _, err := readManifest(path); !errors.As(err, &tooLarge) {
		t.Errorf("readManifest of a %d-byte file: %v, want runfile's TooLargeError", runfile.MaxBytes+1, err)
	}
	if _, ok := readWritten(path); ok {
		t.Error("readWritten took a file past the bound for a run's record")
	}
}
