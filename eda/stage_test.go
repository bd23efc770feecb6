package eda

import "testing"

// TestGenerated: every stage eda makes, a folder table's own included, is
// generated (the report folds its markdown); the model's are not.
func TestGenerated(t *testing.T) {
	for _, st := range []Stage{Setup(), ProfileStage(), LoadTable(FolderTable{Name: "a:b", Path: "a:b.csv"}),
		ProfileTable("orders", true), MainTable("orders", 3, 2, false), Relationships([]string{"a", "b"}), IndependentQuestions(),
		{Name: StageDistributions}, {Name: StageVisualization}, {Name: StageChanges}} {
		if !Generated(st.Name) {
			t.Errorf("stage %q is not Generated", st.Name)
		}
	}
	for _, name := range []string{"question-1", "reflection-2", "exploration", "", "loader"} {
		if Generated(name) {
			t.Errorf("%q is Generated", name)
		}
	}
}
