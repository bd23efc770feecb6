package report

import (
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/eda"
)

// Out of core: the notice comes first, under the header; the overview says
// how the data was read and marks estimates with ≈.
func TestOutOfCoreNotice(t *testing.T) {
	in := goldenInput()
	in.Notice = "**Out of core:** this data did not fit in memory (estimate 5.0 GiB, limit 2.0 GiB)."
	in.Profile.OutOfCore = &eda.OutOfCoreInfo{Rows: in.Profile.Rows, Chunks: 80, ChunkRows: 200_000, SampleRows: 1_000_000,
		ApproximateDistinct: []string{in.Profile.ColumnInfo[0].Name}}
	doc := render(t, in)
	notice := strings.Index(doc, `<div class="banner banner-notice" role="note">`)
	if notice < 0 || !strings.Contains(doc[notice:], "<strong>Out of core:</strong> this data did not fit in memory (estimate 5.0 GiB, limit 2.0 GiB).") {
		t.Fatalf("no notice banner")
	}
	if toc := strings.Index(doc, `<nav class="toc"`); toc < notice {
		t.Errorf("the notice is not before the contents")
	}
	for _, want := range []string{"Read out of core</dt> <dd>80 chunks of 200,000 rows; df: a sample of 1,000,000 rows",
		"In memory if loaded whole</dt> <dd>≈", ">≈"} {
		if !strings.Contains(doc, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if doc := render(t, goldenInput()); strings.Contains(doc, "banner-notice\"") || strings.Contains(doc, "out of core") {
		t.Errorf("an in-memory report speaks of out of core")
	}
}
