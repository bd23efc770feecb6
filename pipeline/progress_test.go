package pipeline_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/pipeline"
)

// The load stage reports progress from the first bytes to the end of the
// cleaning (issue 15): after the CSV's bytes are read, pandas converts the
// columns and the loader cleans them, seconds on millions of rows that used
// to show nothing new. The bytes read are never shown as 0 MiB of a file
// already a few percent read.
func TestLoadProgressUntilTheColumnsAreReady(t *testing.T) {
	dir := t.TempDir()
	data := salesCSV(t, dir, 20000) // 1.2 MiB: the first 256 KiB chunk is 20%
	var progress []pipeline.Event
	o := options(t, data, filepath.Join(dir, "out"))
	o.Progress = func(e pipeline.Event) {
		if e.Type == pipeline.EventProgress && e.Stage == eda.StageLoad {
			progress = append(progress, e)
		}
	}
	if _, err := pipeline.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	var messages []string
	for _, e := range progress {
		messages = append(messages, e.Message)
	}
	all := strings.Join(messages, "\n")
	zero := regexp.MustCompile(`read 0 of [\d.,]+ MiB \([1-9]`)
	if zero.MatchString(all) {
		t.Errorf("a progress line reads 0 MiB of a file partly read:\n%s", all)
	}
	read := regexp.MustCompile(`^read \d\.\d of \d\.\d MiB \(100%\), about [\d,]+ rows$`)
	converting := regexp.MustCompile(`^read all \d\.\d MiB, about [\d,]+ rows; converting the text into columns$`)
	want := []struct {
		re   *regexp.Regexp
		unit string
	}{
		{read, "bytes"},
		{converting, "bytes"},
		{regexp.MustCompile(`^looked for missing-value markers: 5 of 5 text columns$`), "columns"},
		{regexp.MustCompile(`^looked for numbers written as text: 5 of 5 text columns$`), "columns"},
		{regexp.MustCompile(`^looked for dates: 5 of 5 text columns$`), "columns"},
	}
	next := 0 // in this order
	for _, e := range progress {
		if next < len(want) && want[next].re.MatchString(e.Message) {
			if e.Unit != want[next].unit || e.Done != e.Total || e.Total <= 0 {
				t.Errorf("%q: done %d of %d %s, want the end of the step in %s", e.Message, e.Done, e.Total, e.Unit, want[next].unit)
			}
			next++
		}
	}
	if next < len(want) {
		t.Errorf("load progress lacks %q (in this order); got:\n%s", want[next].re, all)
	}
}
