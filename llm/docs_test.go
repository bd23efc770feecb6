package llm

import (
	"fmt"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/internal/docscheck"
)

// The user guide states these constants: each sentence is formatted from
// the constant, so a changed constant fails here until the page says so.
func TestDocsStateTheModelLimits(t *testing.T) {
	docscheck.Says(t, "docs/models.md",
		fmt.Sprintf("`max-reply-tokens` (default %d;", DefaultMaxReplyTokens),
		fmt.Sprintf("past twice the limit in chunks (plus %d), or %d KiB per token of the limit in bytes", replyChunkSlack, replyBytesPerToken>>10),
	)
	docscheck.Says(t, "docs/configuration.md",
		fmt.Sprintf("max-reply-tokens: %d ", DefaultMaxReplyTokens),
		fmt.Sprintf("model-first-token-timeout: %dm ", DefaultFirstTokenTimeout/time.Minute),
		fmt.Sprintf("model-idle-timeout: %dm ", DefaultIdleTimeout/time.Minute),
	)
}
