package pipeline

import (
	"fmt"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/internal/docscheck"
)

// The user guide states the out-of-core cell time: the sentence is
// formatted from the constant, so a changed constant fails here until the
// page says so.
func TestDocsStateTheOutOfCoreTime(t *testing.T) {
	docscheck.Says(t, "docs/big-files.md", fmt.Sprintf("%d minutes per 100 MB on top of the cell timeout", oocTimePerByte*100e6/time.Minute))
}
