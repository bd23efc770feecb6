package dabstep

import (
	"fmt"
	"testing"

	"github.com/analyst-cli/analyst/internal/docscheck"
)

// docs/eval.md states the submission's trace cap, formatted from it.
func TestDocsStateTheTraceCap(t *testing.T) {
	docscheck.Says(t, "docs/eval.md", fmt.Sprintf("then the answer, cut at %d KiB;", MaxTraceBytes>>10))
}
