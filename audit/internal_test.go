package audit

import (
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/nbformat"
)

func TestShows(t *testing.T) {
	tests := []struct {
		text, value string
		want        bool
	}{
		{"top region: East", "East", true},
		{"mean    12.3456\n", "12.35", true},
		{"mean    12.3456\n", "12.34", false},
		{"total 1,234,567.8", "1234567.8", true},
		{"total 1234567", "1,234,567", true},
		{"count 7", "8", false},
		{"anything", "", false},
	}
	for _, tt := range tests {
		if got := shows(tt.text, tt.value); got != tt.want {
			t.Errorf("shows(%q, %q) = %v, want %v", tt.text, tt.value, got, tt.want)
		}
	}
}

func TestCompareOutputs(t *testing.T) {
	text := func(s string) nbformat.Output {
		return nbformat.ExecuteResult(1, nbformat.MimeBundle{"text/plain": nbformat.Text(s)}, nil)
	}
	tests := []struct {
		name      string
		want, got []nbformat.Output
		diff      string // "" means no difference
	}{
		{"same", []nbformat.Output{text("a\nb")}, []nbformat.Output{text("a\nb")}, ""},
		{"one character", []nbformat.Output{text("a\nb")}, []nbformat.Output{text("a\nc")},
			"output 1 (text/plain): line 2 differs\n      - recorded: \"b\"\n      + re-run:   \"c\""},
		{"stream", []nbformat.Output{nbformat.Stream("stdout", "x=1\n")}, []nbformat.Output{nbformat.Stream("stdout", "x=2\n")}, `line 1 differs`},
		{"error instead", []nbformat.Output{text("1")}, []nbformat.Output{nbformat.Error("KeyError", "'revenue'", nil)},
			"output 1: recorded execute_result, re-run error KeyError: \"'revenue'\""},
		{"output gone", []nbformat.Output{text("1"), text("2")}, []nbformat.Output{text("1")}, "2 outputs recorded, re-run has 1"},
		{"mime gone", []nbformat.Output{nbformat.DisplayData(nbformat.MimeBundle{"text/plain": nbformat.Text("t"), "image/png": nbformat.Text("iVBO")}, nil)},
			[]nbformat.Output{nbformat.DisplayData(nbformat.MimeBundle{"text/plain": nbformat.Text("t")}, nil)}, "image/png recorded, re-run lacks it"},
	}
	for _, tt := range tests {
		d := strings.Join(compareOutputs(tt.want, tt.got), "\n")
		if (tt.diff == "") != (d == "") || !strings.Contains(d, tt.diff) {
			t.Errorf("%s: diff %q, want %q", tt.name, d, tt.diff)
		}
	}
}
