package eda

import (
	"fmt"
	"strings"
	"testing"
)

func TestPyString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", `"plain"`},
		{`say "hi"`, `"say \"hi\""`},
		{`it's`, `"it's"`},
		{`back\slash`, `"back\\slash"`},
		{"two\nlines\r\t", `"two\nlines\r\t"`},
		{"naïve 日本", `"naïve 日本"`},
		{"<script>alert(1)</script>", `"<script>alert(1)</script>"`},
		{"nul\x00bell\a", `"nul\x00bell\x07"`},
		{"rtl\u202eoverride", `"rtl\u202eoverride"`},
		{"zero\u200bwidth", `"zero\u200bwidth"`},
		{"nbsp\u00a0x", `"nbsp\u00a0x"`},
		{"{{DATE}}", `"{{DATE}}"`},
		{"emoji 😀", `"emoji 😀"`},
		{"\U000e0001tag", `"\U000e0001tag"`},
	}
	for _, tt := range tests {
		if got := pyString(tt.in); got != tt.want {
			t.Errorf("pyString(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestPyList(t *testing.T) {
	if got := pyList(nil); got != "[]" {
		t.Errorf("pyList(nil) = %s", got)
	}
	if got := pyList([]string{"a", `b"`}); got != `["a", "b\""]` {
		t.Errorf("short list = %s", got)
	}
	var names []string
	for i := range 40 {
		names = append(names, fmt.Sprintf("column_%02d", i))
	}
	got := pyList(names)
	lines := strings.Split(got, "\n")
	if lines[0] != "[" || lines[len(lines)-1] != "]" {
		t.Fatalf("long list not wrapped in brackets on their own lines:\n%s", got)
	}
	for _, l := range lines[1 : len(lines)-1] {
		if len(l) > 88 || !strings.HasPrefix(l, "    \"") || !strings.HasSuffix(l, ",") {
			t.Errorf("badly wrapped line %q", l)
		}
	}
	if strings.Count(got, `"column_`) != 40 {
		t.Errorf("lost names:\n%s", got)
	}
}

func TestMdCode(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a", "`a`"},
		{"<b>html</b>", "`<b>html</b>`"},
		{"a`b", "``a`b``"},
		{"``x", "``` ``x ```"},
		{"two\nlines", "`two lines`"},
		{" padded ", "`  padded  `"},
		{"", "(a blank name)"},
		{"$x$ *y* _z_ [l](u) #h |p|", "`$x$ *y* _z_ [l](u) #h |p|`"},
	}
	for _, tt := range tests {
		if got := mdCode(tt.in); got != tt.want {
			t.Errorf("mdCode(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
