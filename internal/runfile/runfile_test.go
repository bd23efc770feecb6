package runfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A run.json over MaxBytes is refused from its size, before it is read,
// with an error that names it and says what to give instead.
func TestReadRefusesTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.run.json")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, MaxBytes+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	_, err := Read(path)
	var tooLarge *TooLargeError
	if !errors.As(err, &tooLarge) || tooLarge.Size != MaxBytes+1 {
		t.Fatalf("Read of a %d-byte file: %v, want a TooLargeError", MaxBytes+1, err)
	}
	for _, want := range []string{path, "256 MiB", "give the NAME.run.json a run wrote"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	var m map[string]any
	if err := Decode(path, &m); !errors.As(err, &tooLarge) {
		t.Errorf("Decode of a %d-byte file: %v, want a TooLargeError", MaxBytes+1, err)
	}
}

// A pipe named like a run.json is refused at once: opening it does not
// wait for a writer, and it is not read.
func TestReadRefusesAPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pipe.run.json")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Read of a pipe: %v, want ErrNotRegular", err)
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
	if err := Decode(good, &m); err != nil || m.AnalystVersion != "1.2" || len(m.Files) != 1 || m.Files[0].Path != "a.ipynb" {
		t.Errorf("Decode = %+v, %v", m, err)
	}
	if err := Decode(bad, &m); err == nil || !strings.Contains(err.Error(), bad+": not a run manifest") {
		t.Errorf("Decode of cut JSON: %v, want it named as not a run manifest", err)
	}
	if _, err := Read(filepath.Join(dir, "none.run.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Read of a missing file: %v, want ErrNotExist", err)
	}
}
