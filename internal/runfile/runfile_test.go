package runfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/analyst-cli/analyst/internal/runfile"
	"github.com/analyst-cli/analyst/internal/runfile/runfiletest"
)

// A run.json over MaxBytes is refused from its size, before it is read,
// with an error that names it and says what to give instead.
func TestReadRefusesTooLarge(t *testing.T) {
	path := runfiletest.Oversized(t)
	_, err := runfile.Read(path)
	var tooLarge *runfile.TooLargeError
	if !errors.As(err, &tooLarge) || tooLarge.Size != runfile.MaxBytes+1 {
		t.Fatalf("Read of a %d-byte file: %v, want a runfile.TooLargeError", runfile.MaxBytes+1, err)
	}
	for _, want := range []string{path, "256 MiB", "give the NAME.run.json a run wrote"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// A pipe named like a run.json is refused at once: opening it does not
// wait for a writer, and it is not read.
func TestReadRefusesAPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pipe.run.json")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runfile.Read(path); !errors.Is(err, runfile.ErrNotRegular) {
		t.Errorf("Read of a pipe: %v, want runfile.ErrNotRegular", err)
	}
}

// A missing run.json is the file system's error, as it is.
func TestReadMissing(t *testing.T) {
	if _, err := runfile.Read(filepath.Join(t.TempDir(), "none.run.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Read of a missing file: %v, want ErrNotExist", err)
	}
}
