package namedvalue

import "testing"

func TestFind(t *testing.T) {
	cases := []struct {
		text  string
		names []string
		vals  []string
	}{
		{"@a[1] and @b[x y]", []string{"a", "b"}, []string{"1", "x y"}},
		{"@ids[[1, 2], [3]] done", []string{"ids"}, []string{"[1, 2], [3]"}},
		{"@odd[[1, 2] tail", []string{"odd"}, []string{"[1, 2"}}, // unbalanced: the first "]"
		{"@open[no close\n@b[2]", []string{"b"}, []string{"2"}},  // a value stays on its line
		{"email@example.com [1]", nil, nil},
	}
	for _, c := range cases {
		got := Find(c.text)
		if len(got) != len(c.names) {
			t.Errorf("Find(%q) = %+v, want names %q", c.text, got, c.names)
			continue
		}
		for i, s := range got {
			if s.Name != c.names[i] || s.Value != c.vals[i] || c.text[s.ValueStart:s.ValueEnd] != s.Value ||
				c.text[s.Start:s.End] != "@"+s.Name+"["+s.Value+"]" {
				t.Errorf("Find(%q)[%d] = %+v, want %s[%s]", c.text, i, s, c.names[i], c.vals[i])
			}
		}
	}
}
