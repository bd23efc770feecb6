package pipeline

import (
	"testing"

	"github.com/analyst-cli/analyst/internal/runfile/runfiletest"
)

// The check of a previous run reads run.json through runrecord: one past
// its bound is no run's record.
func TestManifestReadersBoundSize(t *testing.T) {
	if _, ok := readWritten(runfiletest.Oversized(t)); ok {
		t.Error("readWritten took a file past the bound for a run's record")
	}
}
