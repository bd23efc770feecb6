package audit

import (
	"encoding/json"
	"testing"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/nbformat"
)

// TestNotebookTablesPastTheSections: a folder's tables past
// eda.FolderSections, profiled a cell each in the other tables' stage, are
// among the tables a replay compares, in order, by their names.
func TestNotebookTablesPastTheSections(t *testing.T) {
	profile := func(rows int) []nbformat.Output {
		return []nbformat.Output{nbformat.DisplayData(nbformat.MimeBundle{
			nbformat.MimeProfile: json.RawMessage(`{"rows": ` + string(rune('0'+rows)) + `, "columns": 0, "column_info": [], "alerts": []}`),
		}, nil)}
	}
	nb := nbformat.New()
	nb.AddCode("profile()", profile(1), 1, nbformat.StageTag(eda.TableStage(eda.StageProfile, "a")), eda.ProfileTag)
	other := eda.OtherTables([]eda.FolderTable{{Name: `b "x"`, Path: "b.csv"}, {Name: "c", Path: "c.csv"}}, 52)
	n := 2
	for _, c := range other.Cells {
		if c.Table != "" {
			nb.AddCode(c.Source, profile(n), n, append([]string{nbformat.StageTag(eda.StageOtherTables)}, c.Tags...)...)
			n++
		}
	}
	got, err := notebookTables(nb)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tp := range got {
		names = append(names, tp.Name)
	}
	if len(got) != 3 || names[0] != "a" || names[1] != `b "x"` || names[2] != "c" || got[2].Profile.Rows != 3 {
		t.Errorf("tables %q, want a, b \"x\", c with their profiles", names)
	}
}
