package audit

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/analyst-cli/analyst/internal/runfile"
)

// Open reads the run's record through runfile: one past its bound is
// refused before it is read.
func TestOpenBoundsSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.run.json")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, runfile.MaxBytes+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	var tooLarge *runfile.TooLargeError
	if _, err := Open(path); !errors.As(err, &tooLarge) {
		t.Errorf("Open of a %d-byte file: %v, want runfile's TooLargeError", runfile.MaxBytes+1, err)
	}
}
