package runrecord_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/internal/runfile"
	"github.com/analyst-cli/analyst/internal/runfile/runfiletest"
	"github.com/analyst-cli/analyst/runrecord"
)

// The one reader of run.json refuses one past its bound before it is read.
func TestReadBoundsSize(t *testing.T) {
	path := runfiletest.Oversized(t)
	var tooLarge *runfile.TooLargeError
	if _, err := runrecord.Read(path); !errors.As(err, &tooLarge) {
		t.Errorf("Read of a %d-byte file: %v, want runfile's TooLargeError", runfile.MaxBytes+1, err)
	}
}

// Read decodes a record, and names a file that is no JSON record as not a
// run manifest; a missing one is the file system's error.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "a.run.json"), filepath.Join(dir, "b.run.json")
	if err := os.WriteFile(good, []byte(`{"analyst_version": "1.2", "files": [{"path": "a.ipynb"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(`{"analyst_version": `), 0o644); err != nil {
		t.Fatal(err)
	}
	if rec, err := runrecord.Read(good); err != nil || rec.AnalystVersion != "1.2" || len(rec.Files) != 1 || rec.Files[0].Path != "a.ipynb" {
		t.Errorf("Read = %+v, %v", rec, err)
	}
	if _, err := runrecord.Read(bad); err == nil || !strings.Contains(err.Error(), bad+": not a run manifest") {
		t.Errorf("Read of cut JSON: %v, want it named as not a run manifest", err)
	}
	if _, err := runrecord.Read(filepath.Join(dir, "none.run.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Read of a missing file: %v, want ErrNotExist", err)
	}
}
