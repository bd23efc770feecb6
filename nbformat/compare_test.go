package nbformat_test

import (
	"testing"

	"github.com/analyst-cli/analyst/nbformat"
)

// Jupyter may deliver one print as several stream messages ("…periods",
// then "\n"), as the kernel's flushes fall; a reader sees one text. A
// stream that says something else still differs.
func TestCompareOutputsJoinsStreamChunks(t *testing.T) {
	whole := []nbformat.Output{nbformat.Stream("stdout", "Second pass: 2 histogram(s), 52 periods\n")}
	tests := []struct {
		name   string
		theirs []nbformat.Output
		same   bool
	}{
		{"one message", whole, true},
		{"split before the line end", []nbformat.Output{nbformat.Stream("stdout", "Second pass: 2 histogram(s), 52 periods"),
			nbformat.Stream("stdout", "\n")}, true},
		{"split mid-line", []nbformat.Output{nbformat.Stream("stdout", "Second pass: 2 hist"),
			nbformat.Stream("stdout", "ogram(s), 52 periods\n")}, true},
		{"other text", []nbformat.Output{nbformat.Stream("stdout", "Second pass: 3 histogram(s), 52 periods"),
			nbformat.Stream("stdout", "\n")}, false},
		{"other stream", []nbformat.Output{nbformat.Stream("stdout", "Second pass: 2 histogram(s), 52 periods"),
			nbformat.Stream("stderr", "\n")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			diffs := nbformat.CompareOutputs(whole, tt.theirs)
			if (len(diffs) == 0) != tt.same {
				t.Errorf("CompareOutputs = %q, want same=%v", diffs, tt.same)
			}
		})
	}
}

// An SVG drawn differently differs, as a PNG does; the same SVG does not.
func TestCompareOutputsComparesSVG(t *testing.T) {
	svg := func(s string) []nbformat.Output {
		return []nbformat.Output{nbformat.DisplayData(nbformat.MimeBundle{
			nbformat.MimeSVG: nbformat.Text(`<svg xmlns="http://www.w3.org/2000/svg"><text>` + s + `</text></svg>`)}, nil)}
	}
	if diffs := nbformat.CompareOutputs(svg("orders"), svg("orders")); len(diffs) != 0 {
		t.Errorf("the same SVG: %q", diffs)
	}
	if diffs := nbformat.CompareOutputs(svg("orders"), svg("order")); len(diffs) != 1 {
		t.Errorf("another SVG: %q, want one difference", diffs)
	}
}
