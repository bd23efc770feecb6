package audit

import (
	"errors"
	"testing"

	"github.com/analyst-cli/analyst/internal/runfile"
	"github.com/analyst-cli/analyst/internal/runfile/runfiletest"
)

// Open reads the run's record through runfile: one past its bound is
// refused before it is read.
func TestOpenBoundsSize(t *testing.T) {
	path := runfiletest.Oversized(t)
	var tooLarge *runfile.TooLargeError
	if _, err := Open(path); !errors.As(err, &tooLarge) {
		t.Errorf("Open of a %d-byte file: %v, want runfile's TooLargeError", runfile.MaxBytes+1, err)
	}
}
