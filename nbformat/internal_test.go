package nbformat

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The expected values are what Python's str.splitlines(True) returns.
func TestSplitLinesIsPythons(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", []string{}},
		{"a", []string{"a"}},
		{"a\n", []string{"a\n"}},
		{"a\nb", []string{"a\n", "b"}},
		{"\n\n", []string{"\n", "\n"}},
		{"a\r\nb\rc", []string{"a\r\n", "b\r", "c"}},
		{"a\r", []string{"a\r"}},
		{"a\vb\fc\x1cd\x1de\x1ef", []string{"a\v", "b\f", "c\x1c", "d\x1d", "e\x1e", "f"}},
		{"a\u0085b\u2028c\u2029d", []string{"a\u0085", "b\u2028", "c\u2029", "d"}},
		{"café\nü", []string{"café\n", "ü"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, splitLines(tt.in)); diff != "" {
			t.Errorf("splitLines(%q): %s", tt.in, diff)
		}
	}
}

// The expected values are what Python's json.dumps(s, ensure_ascii=False) writes.
func TestWriteStringIsPythons(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", `"plain"`},
		{`q"b\`, `"q\"b\\"`},
		{"\n\r\t\b\f", `"\n\r\t\b\f"`},
		{"\x00\x1b\x1f\x7f", `"\u0000\u001b\u001f` + "\x7f" + `"`},
		{"<a&b>", `"<a&b>"`},
		{"é\u2028😀", "\"é\u2028😀\""},
		{"bad\xffutf8", "\"bad\uFFFDutf8\""},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		writeString(&b, tt.in)
		if b.String() != tt.want {
			t.Errorf("writeString(%q) = %s, want %s", tt.in, b.String(), tt.want)
		}
	}
}
