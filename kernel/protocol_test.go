package kernel

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/analyst-cli/analyst/nbformat"
)

func driverSource(t *testing.T) string {
	t.Helper()
	b, err := driverFS.ReadFile("driver/analyst_driver.py")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The driver cannot import Go: its MIME_* names must equal nbformat's Mime*
// constants, and it must write no mime type other than through them.
func TestDriverMimeTypesAreNbformats(t *testing.T) {
	src := driverSource(t)
	got := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^(MIME_[A-Z]+) = "([^"]+)"$`).FindAllStringSubmatch(src, -1) {
		got[m[1]] = m[2]
	}
	want := map[string]string{
		"MIME_PLAIN":    nbformat.MimePlain,
		"MIME_HTML":     nbformat.MimeHTML,
		"MIME_MARKDOWN": nbformat.MimeMarkdown,
		"MIME_LATEX":    nbformat.MimeLaTeX,
		"MIME_PNG":      nbformat.MimePNG,
		"MIME_SVG":      nbformat.MimeSVG,
		"MIME_JSON":     nbformat.MimeJSON,
		"MIME_PLOTLY":   nbformat.MimePlotly,
		"MIME_CHART":    nbformat.MimeChart,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the driver's MIME_* constants differ from nbformat's (-Go +driver):\n%s", diff)
	}
	literals := regexp.MustCompile(`"(text|image|application)/[a-z0-9.+-]+"`).FindAllString(src, -1)
	if len(literals) != len(got) {
		t.Errorf("the driver writes mime types outside its MIME_* constants: %q", literals)
	}
}
