package agent

import (
	"strings"
	"testing"
)

func TestParseAnswers(t *testing.T) {
	tests := []struct{ in, want string }{
		{"@peak[March] and @total[12.5]", "@peak[March] @total[12.5]"},
		{"@a[1] @a[2]", "@a[2]"},
		{"no answer here", ""},
		{"@mean_fare[34.65], @std[ 1.2 ]", "@mean_fare[34.65] @std[1.2]"},
		// A list in brackets stays whole; brackets that do not balance end
		// at the first "]", as DABench's pattern; a value stays on its line.
		{"@answer[[a, b]]", "@answer[[a, b]]"},
		{"@answer[[]] and @n[3]", "@answer[[]] @n[3]"},
		{"@m[df['a'][0]] @k[x[1]", "@m[df['a'][0]] @k[x[1]"},
		{"@a[x\n] @b[2]", "@b[2]"},
		{"@a[]", "@a[]"},
	}
	for _, tt := range tests {
		if got := FormatAnswers(ParseAnswers(tt.in)); got != tt.want {
			t.Errorf("ParseAnswers(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// The narrative of an answer in text mode drops its list of values whole:
// no stray "]" of a bracketed list.
func TestNarrativeKeepsBracketedValuesWhole(t *testing.T) {
	plain, md := narrative("@answer[[a, b]]\n@none[[]]\nThe ids are @ids[[1, 2]].")
	if plain != "The ids are [1, 2]." || md != "The ids are **[1, 2]**." {
		t.Errorf("narrative = %q, %q", plain, md)
	}
}

func TestParseFinalAnswer(t *testing.T) {
	tests := []struct {
		args, want, summary, err string
	}{
		{`{"answers":{"peak_month":"2024-03","total":1234.5},"summary":"ok"}`, "@peak_month[2024-03] @total[1234.5]", "ok", ""},
		{`{"answers":{"b":1,"a":[1,2]},"summary":""}`, "@b[1] @a[1, 2]", "", ""},
		{`{"answers":"@x[1] @y[2]","summary":"s"}`, "@x[1] @y[2]", "s", ""},
		{`{"answers":{"x":1}`, "", "", "not a JSON object"},
		{`{"summary":"s"}`, "", "", `"answers" is missing`},
		{`{"answers":{}}`, "", "", "is empty"},
		{`{"answers":{"bad name":1}}`, "", "", "letters, digits and underscores"},
		{`{"answers":42}`, "", "", "must be an object"},
	}
	for _, tt := range tests {
		vs, summary, err := parseFinalAnswer(tt.args)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.args, err, tt.err)
			}
			continue
		}
		if err != nil || FormatAnswers(vs) != tt.want || summary != tt.summary {
			t.Errorf("%s: %q %q %v", tt.args, FormatAnswers(vs), summary, err)
		}
	}
}

func TestCodeBlocks(t *testing.T) {
	got := codeBlocks("a\n```python\nx = 1\n```\ntext\n```py\nprint(x)\n```\n```\nnot python\n```")
	if len(got) != 2 || got[0] != "x = 1" || got[1] != "print(x)" {
		t.Errorf("codeBlocks = %q", got)
	}
}

func TestHeadTailAndTraceback(t *testing.T) {
	s := headTail(strings.Repeat("a", 5000)+"END", 300)
	if len(s) > 400 || !strings.HasSuffix(s, "END") || !strings.Contains(s, "characters left out") {
		t.Errorf("headTail: %q", s)
	}
	var tb []string
	for i := 0; i < 40; i++ {
		tb = append(tb, "\x1b[0;31mline\x1b[0m")
	}
	if got := trimTraceback(tb); strings.Contains(got, "\x1b") || strings.Count(got, "\n") != feedbackTrace {
		t.Errorf("trimTraceback: %q", got)
	}
}
