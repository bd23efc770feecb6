package pipeline

import (
	"errors"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/dataset"
)

// readsOutOfCore is the one rule Preflight and the run's stages share: each
// mode against data that fits and data that does not, CSV and another
// format, with the error each refusal must be.
func TestReadsOutOfCore(t *testing.T) {
	const limit = 1 << 30
	small, big := &dataset.FrameEstimate{Bytes: 100 << 20}, &dataset.FrameEstimate{Bytes: 2 << 30}
	for _, c := range []struct {
		format, mode string
		frame        *dataset.FrameEstimate
		want         bool
		err          string // "", "usage", "memory" or "memory-delimited"
	}{
		{"csv", OutOfCoreAuto, small, false, ""},
		{"csv", OutOfCoreAuto, big, true, ""},
		{"csv", OutOfCoreOff, small, false, ""},
		{"csv", OutOfCoreOff, big, false, "memory-delimited"},
		{"csv", OutOfCoreOn, small, true, ""},
		{"csv", OutOfCoreOn, big, true, ""},
		{"parquet", OutOfCoreAuto, small, false, ""},
		{"parquet", OutOfCoreAuto, big, false, "memory"},
		{"parquet", OutOfCoreOff, big, false, "memory"},
		{"json", OutOfCoreOn, small, false, "usage"},
	} {
		in := &dataset.Input{Path: "/d/data." + c.format, Name: "data." + c.format, Format: c.format, Frame: c.frame}
		got, err := readsOutOfCore(in, c.mode, limit)
		name := c.format + " " + c.mode
		if got != c.want {
			t.Errorf("%s, frame %d MiB: out of core %v, want %v", name, c.frame.Bytes>>20, got, c.want)
		}
		var memErr *dataset.MemoryError
		var usageErr *dataset.UsageError
		switch c.err {
		case "":
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
		case "usage":
			if !errors.As(err, &usageErr) || !strings.Contains(err.Error(), "--out-of-core reads CSV and TSV files only") || !strings.Contains(err.Error(), "this file is json") {
				t.Errorf("%s: %v, want a *dataset.UsageError naming the format", name, err)
			}
		default:
			if !errors.As(err, &memErr) {
				t.Fatalf("%s: %v, want a *MemoryError", name, err)
			}
			// Only a CSV or TSV can be read out of core: a message that
			// offered --out-of-core for a Parquet file would send the user
			// into a second refusal.
			offers := strings.Contains(err.Error(), "analyse it out of core with --out-of-core")
			if want := c.err == "memory-delimited"; offers != want || (!want && !strings.Contains(err.Error(), "export it as CSV")) {
				t.Errorf("%s: message offers --out-of-core: %v, want %v:\n%v", name, offers, want, err)
			}
		}
	}
}

func TestParseOutOfCore(t *testing.T) {
	for in, want := range map[string]string{"": OutOfCoreAuto, "auto": OutOfCoreAuto, "TRUE": OutOfCoreOn, "on": OutOfCoreOn, "false": OutOfCoreOff, "no": OutOfCoreOff} {
		if got, err := ParseOutOfCore(in); err != nil || got != want {
			t.Errorf("ParseOutOfCore(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseOutOfCore("sometimes"); err == nil {
		t.Error("ParseOutOfCore(sometimes): no error")
	}
}
