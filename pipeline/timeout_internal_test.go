package pipeline

import (
	"testing"
	"time"

	"github.com/analyst-cli/analyst/dataset"
)

// The generated cells of a big file get the cell timeout once per started
// 100 MB: loading a 1 GB CSV takes more than the minute a model's cell gets.
func TestGeneratedCellTimeoutGrowsWithTheData(t *testing.T) {
	for bytes, want := range map[int64]time.Duration{5 << 20: time.Minute, 99_999_999: time.Minute, 100_000_000: 2 * time.Minute, 1_060_000_000: 11 * time.Minute} {
		r := &runner{opts: Options{CellTimeout: time.Minute}, in: &dataset.Input{Bytes: bytes}}
		if got := r.generatedCellTimeout(); got != want {
			t.Errorf("%d bytes: %s, want %s", bytes, got, want)
		}
	}
}
