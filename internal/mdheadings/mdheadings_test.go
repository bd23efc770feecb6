package mdheadings

import (
	"reflect"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	doc := strings.Join([]string{
		"# Handbook",    // 1
		"",              // 2
		"## 1. Fees ##", // 3: closing #s dropped
		"#hashtag is no heading",
		"   ### Indented three", // 5
		"    #### Four spaces is code",
		"```python",
		"# a comment in code",
		"```",
		"~~~~", // 10
		"## inside tildes",
		"~~~", // too short to close
		"~~~~~",
		"###### Six", // 14
		"####### Seven is text",
		"## C# and F# ", // 16: '#' inside the text stays
		"#",             // 17: an empty heading
		"Setext\n===",   // not listed
	}, "\n")
	got, err := Read(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []Heading{{1, 1, "Handbook"}, {2, 3, "1. Fees"}, {3, 5, "Indented three"}, {6, 14, "Six"}, {2, 16, "C# and F#"}, {1, 17, ""}}
	if !reflect.DeepEqual(got.Headings, want) || got.Truncated {
		t.Errorf("Read:\n got %+v (truncated %v)\nwant %+v", got.Headings, got.Truncated, want)
	}
}

// However long the document, Read reads at most MaxBytes and keeps at most
// MaxHeadings, and says so.
func TestReadBounded(t *testing.T) {
	many := strings.Repeat("## h\n", MaxHeadings+5)
	got, err := Read(strings.NewReader(many))
	if err != nil || len(got.Headings) != MaxHeadings || !got.Truncated {
		t.Errorf("%d headings, truncated %v, %v; want %d, true", len(got.Headings), got.Truncated, err, MaxHeadings)
	}
	long := "# first\n" + strings.Repeat("x\n", MaxBytes) + "# past the cap\n"
	got, err = Read(strings.NewReader(long))
	if err != nil || len(got.Headings) != 1 || !got.Truncated {
		t.Errorf("%+v, %v: want only the first heading, truncated", got.Headings, err)
	}
	line := "# a\n" + strings.Repeat("y", maxLine+1) + "\n# b\n"
	got, err = Read(strings.NewReader(line))
	if err != nil || len(got.Headings) != 1 || !got.Truncated {
		t.Errorf("a line past %d bytes: %+v, %v; want the headings before it, truncated", maxLine, got.Headings, err)
	}
}
