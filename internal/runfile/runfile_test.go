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
	var m map[string]any
	if err := runfile.Decode(path, &m); !errors.As(err, &tooLarge) {
		t.Errorf("Decode of a %d-byte file: %v, want a runfile.TooLargeError", runfile.MaxBytes+1, err)
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

func TestDecode(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "a.run.json"), filepath.Join(dir, "b.run.json")
	if err := os.WriteFile(good, []byte(`{"analyst_version": "1.2", "files": [{"path": "a.ipynb"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(`{"analyst_version": `), 0o644); err != nil {
		t.Fatal(err)
	}
	var m struct {
		AnalystVersion string `json:"analyst_version"`
		Files          []struct {
			Path string `json:"path"`
		} `json:"files"`
	}
	if err := runfile.Decode(good, &m); err != nil || m.AnalystVersion != "1.2" || len(m.Files) != 1 || m.Files[0].Path != "a.ipynb" {
		t.Errorf("Decode = %+v, %v", m, err)
	}
	if err := runfile.Decode(bad, &m); err == nil || !strings.Contains(err.Error(), bad+": not a run manifest") {
		t.Errorf("Decode of cut JSON: %v, want it named as not a run manifest", err)
	}
	if _, err := runfile.Read(filepath.Join(dir, "none.run.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Read of a missing file: %v, want ErrNotExist", err)
	}
}
