package runrecord

import (
	"encoding/json"
	"fmt"

	"github.com/analyst-cli/analyst/internal/runfile"
)

// Read decodes the NAME.run.json at path, refused unread when it is over
// runfile.MaxBytes (a *runfile.TooLargeError) or no regular file. Fields a
// run of another analyst version did not write are zero; fields this one
// does not know are ignored, so a record of any version reads.
func Read(path string) (*Record, error) {
	b, err := runfile.Read(path)
	if err != nil {
		return nil, fmt.Errorf("reading the run's manifest: %w", err)
	}
	var rec Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("%s: not a run manifest: %w", path, err)
	}
	return &rec, nil
}
