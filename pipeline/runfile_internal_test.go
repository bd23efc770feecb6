package pipeline

import (
	"errors"
	"testing"

	"github.com/analyst-cli/analyst/internal/runfile"
	"github.com/analyst-cli/analyst/internal/runfile/runfiletest"
)

// Render and the check of a previous run read run.json through runfile:
// one past its bound is refused before it is read.
func TestManifestReadersBoundSize(t *testing.T) {
	path := runfiletest.Oversized(t)
	var tooLarge *runfile.TooLargeError
	if _, err := readManifest(path); !errors.As(err, &tooLarge) {
		t.Errorf("readManifest of a %d-byte file: %v, want runfile's TooLargeError", runfile.MaxBytes+1, err)
	}
	if _, ok := readWritten(path); ok {
		t.Error("readWritten took a file past the bound for a run's record")
	}
}
