package eda

import (
	"slices"
	"strings"
	"testing"
)

// Without the sketch, a profile stage (a file's, a folder's first table's
// with the functions it defines, another table's) has every cell it had
// but the sketch's cell, its Markdown and its function, in the same order.
func TestWithoutSketch(t *testing.T) {
	for _, st := range []Stage{ProfileStage(), ProfileTable("payments", true), ProfileTable("fees", false)} {
		got := WithoutSketch(st)
		var kept []Cell
		for _, c := range got.Cells {
			code := c.Code()
			if slices.Contains(c.Tags, SketchTag) || strings.Contains(code, SketchTag) || strings.Contains(code, "sketch_parts") ||
				strings.Contains(code, "--baseline") {
				t.Errorf("%s: a cell of the sketch is left:\n%.300s", st.Name, code)
			}
			kept = append(kept, c)
		}
		var want []Cell
		for i, c := range st.Cells {
			next := i + 1
			switch {
			case slices.Contains(c.Tags, SketchTag):
			case c.Markdown && next < len(st.Cells) && slices.Contains(st.Cells[next].Tags, SketchTag):
			case c.Summary == summaryProfileFunctions:
				c.Source = ""
				want = append(want, c)
			default:
				want = append(want, c)
			}
		}
		if len(kept) != len(want) || len(kept) >= len(st.Cells) {
			t.Fatalf("%s: %d cells of %d kept, want %d", st.Name, len(kept), len(st.Cells), len(want))
		}
		for i := range want {
			if want[i].Summary == summaryProfileFunctions {
				if !strings.Contains(kept[i].Source, "def "+profileFunction(ProfileTag)+"():") {
					t.Errorf("%s: the functions lack the profile's JSON", st.Name)
				}
				continue
			}
			if kept[i].Code() != want[i].Code() || !slices.Equal(kept[i].Tags, want[i].Tags) {
				t.Errorf("%s: cell %d changed:\n%.200s\nwant:\n%.200s", st.Name, i, kept[i].Code(), want[i].Code())
			}
		}
	}
}
