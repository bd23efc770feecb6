package dataset

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/internal/docscheck"
	"github.com/analyst-cli/analyst/internal/units"
)

// The user guide states these constants: each sentence is formatted from
// the constant, so a changed constant fails here until the page says so.
func TestDocsStateTheFolderCaps(t *testing.T) {
	docscheck.Says(t, "docs/folders.md",
		fmt.Sprintf("At most %s files and %s of tables and documents", thousands(MaxFolderFiles), units.Bytes(MaxFolderBytes)),
		fmt.Sprintf("Past the first %d tables, the others", eda.FolderSections))
	page := docscheck.Read(t, "docs/folders.md")
	for ext := range documentFormats {
		if !strings.Contains(page, "`"+ext+"`") {
			t.Errorf("docs/folders.md does not name `%s` among the documents", ext)
		}
	}
}

func TestDocsStateTheMemoryEstimate(t *testing.T) {
	room := fmt.Sprintf("about %s (Python and its libraries) plus %s times the frame",
		units.Bytes(kernelBaseBytes), strconv.FormatFloat(workFactor, 'g', -1, 64))
	docscheck.Says(t, "docs/big-files.md",
		fmt.Sprintf("from its first %s", units.Bytes(estimateSample)),
		room,
		fmt.Sprintf("about %s plus %s times the frame", units.Bytes(kernelBaseBytes), strconv.FormatFloat(workFactor, 'g', -1, 64)),
		fmt.Sprintf("a sample of the file's first %s", units.Bytes(estimateSample)),
		fmt.Sprintf("(%d× for `.xlsx` and `.ods`, %d× for Parquet, 3-4× for the rest)", binaryFactors["xlsx"], binaryFactors["parquet"]),
		fmt.Sprintf("(%d × its size, %d × more for gzip)", inMemoryFactor, gzipFactor),
	)
	if binaryFactors["ods"] != binaryFactors["xlsx"] {
		t.Errorf("docs/big-files.md gives .xlsx and .ods one factor; binaryFactors has %d and %d", binaryFactors["xlsx"], binaryFactors["ods"])
	}
	for format, f := range binaryFactors {
		if format != "xlsx" && format != "ods" && format != "parquet" && (f < 3 || f > 4) {
			t.Errorf("docs/big-files.md says 3-4× for the formats but xlsx, ods and parquet; binaryFactors has %d for %s", f, format)
		}
	}
}
