package agent_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/analyst-cli/analyst/examples"
)

// salesCSV writes the example sales data with rows rows into dir.
func salesCSV(t testing.TB, dir string, rows int) string {
	t.Helper()
	p := filepath.Join(dir, "sales.csv")
	var b bytes.Buffer
	if err := examples.WriteSales(&b, rows, 3); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
