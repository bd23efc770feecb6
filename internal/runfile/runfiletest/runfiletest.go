// Package runfiletest helps the tests of run.json's readers.
package runfiletest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/analyst-cli/analyst/internal/runfile"
)

// Oversized is a NAME.run.json one byte past runfile.MaxBytes, sparse (it
// takes no disk), in a folder the test removes.
func Oversized(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "big.run.json")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, runfile.MaxBytes+1); err != nil {
		t.Fatal(err)
	}
	return path
}
