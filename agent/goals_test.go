package agent

import (
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/eda"
)

func TestParseGoals(t *testing.T) {
	one := `{"question": "Which region sells most?", "chart": "bar chart", "columns": ["region", "revenue"], "visualization": "sum of revenue per region", "rationale": "where to invest"}`
	for _, tt := range []struct {
		name, text string
		want       int    // goals read
		err        string // else: the error says this
	}{
		{"bare object", `{"goals": [` + one + `]}`, 1, ""},
		{"fenced with prose", "Here are my goals:\n```json\n{\"goals\": [" + one + "," + one + "]}\n```\nHope this helps!", 2, ""},
		{"trailing prose", `{"goals": [` + one + `]} These goals cover the main relationships.`, 1, ""},
		{"bare list", `[` + one + `]`, 1, ""},
		{"leading braces in prose", `I think {this} matters: {"goals": [` + one + `]}`, 1, ""},
		{"column as text", `{"goals": [{"question": "q", "chart": "hist", "columns": "revenue"}]}`, 1, ""},
		{"no JSON", "I would look at revenue by region.", 0, "no JSON found"},
		{"cut JSON", `{"goals": [{"question": "q", "chart"`, 0, "no JSON found"},
		{"wrong shape", `{"ideas": []}`, 0, `no "goals" list`},
		{"empty list", `{"goals": []}`, 0, "empty"},
		{"no question", `{"goals": [{"chart": "bar"}]}`, 0, "goal 1 has no question"},
		{"empty reply", "  ", 0, "the reply is empty"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			goals, err := parseGoals(tt.text)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want it to say %q", err, tt.err)
				}
				return
			}
			if err != nil || len(goals) != tt.want {
				t.Fatalf("%d goals, err %v; want %d", len(goals), err, tt.want)
			}
			if len(goals[0].Columns) == 0 {
				t.Errorf("columns not read: %+v", goals[0])
			}
		})
	}
}

func TestScreenGoals(t *testing.T) {
	p := &eda.Profile{ColumnInfo: []eda.Column{{Name: "region"}, {Name: "revenue"}, {Name: "units"}, {Name: "date"}}}
	charts := []ChartRef{{Kind: "hist", Columns: []string{"revenue"}, Title: "Distributions"},
		{Kind: "heatmap", Columns: []string{"revenue", "units"}}, {Kind: "scatter", Columns: []string{"units", "revenue"}}}
	goals := []Goal{
		{Question: "a", Chart: "histogram", Columns: []string{"revenue"}},             // dup of the hist
		{Question: "b", Chart: "bar", Columns: []string{"region", "revenue"}},         // kept
		{Question: "c", Chart: "scatter plot", Columns: []string{"revenue", "units"}}, // dup, other order
		{Question: "d", Chart: "line", Columns: []string{"date", "profit"}},           // unknown column
		{Question: "e", Chart: "heatmap", Columns: []string{"units", "revenue"}},      // in the heatmap
		{Question: "f", Chart: "bar", Columns: []string{"revenue", "region"}},         // dup of goal b
		{Question: "g", Chart: "box", Columns: []string{"region", "units"}},           // kept
		{Question: "h", Chart: "pie", Columns: nil},                                   // no column
		{Question: "i", Chart: "line", Columns: []string{"date", "units"}},            // beyond n
	}
	kept, dropped := screenGoals(goals, 2, GoalRequest{Profile: p, Charts: charts})
	if len(kept) != 2 || kept[0].Question != "b" || kept[1].Question != "g" || kept[1].Chart != "box" {
		t.Fatalf("kept %+v", kept)
	}
	want := map[string]string{"a": `hist of "revenue" ("Distributions")`, "c": `scatter of "units", "revenue"`,
		"d": `not in the data: "profit"`, "e": "heatmap", "f": `("goal 1")`, "h": "names no column", "i": "more goals than the 2 asked for"}
	if len(dropped) != len(want) {
		t.Fatalf("dropped %+v", dropped)
	}
	for _, d := range dropped {
		if !strings.Contains(d.Reason, want[d.Goal.Question]) {
			t.Errorf("goal %s dropped because %q, want %q", d.Goal.Question, d.Reason, want[d.Goal.Question])
		}
	}
}

func TestParseRanking(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []int
		err  string
	}{
		{`{"key_findings": [3, 1, 2]}`, []int{2, 0, 1}, ""},
		{"```json\n[2, 2, 4]\n```", []int{1, 3}, ""},
		{`{"key_findings": [1,2,3,4,5,6,7,8,9]}`, []int{0, 1, 2, 3, 4, 5, 6}, ""},
		{`{"key_findings": [12]}`, nil, "not a number from 1 to 9"},
		{`{"key_findings": ["two"]}`, nil, "list of numbers"},
		{`the first three`, nil, "no JSON"},
	} {
		got, err := parseRanking(tt.text, 9)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err %v, want %q", tt.text, err, tt.err)
			}
			continue
		}
		if err != nil || len(got) != len(tt.want) {
			t.Errorf("%s: %v, %v; want %v", tt.text, got, err, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s: %v, want %v", tt.text, got, tt.want)
				break
			}
		}
	}
}

// The goal prompt carries the profile summary, the distribution figures
// and the charts already drawn, and no data row beyond the samples.
func TestGoalSystemPrompt(t *testing.T) {
	std, skew, r := 12.5, 1.75, 0.93
	p := &eda.Profile{Rows: 3, Columns: 2, ColumnInfo: []eda.Column{
		{Name: "revenue", Kind: eda.KindNumeric, Dtype: "float64", Distinct: 3, Std: &std, Skew: &skew, MaxCorrelation: &r, Sample: []string{"1.5", "2.5", "3.5"}},
		{Name: "region", Kind: eda.KindCategorical, Dtype: "object", Distinct: 2, Top: []eda.TopValue{{Value: "North", Count: 2}, {Value: "South", Count: 1}}},
	}, Alerts: []eda.Alert{{Type: eda.AlertSkewed, Column: "revenue", Message: "revenue is skewed"}}}
	s := GoalSystemPrompt(GoalRequest{DataName: "sales.csv", Profile: p, Charts: []ChartRef{{Kind: "hist", Columns: []string{"revenue"}}}})
	for _, want := range []string{"/data/sales.csv", `- "revenue": numeric (float64)`, `all values "North"×2, "South"×1`,
		"skewed: revenue is skewed", `"revenue": std 12.5, skew 1.75, strongest |r| with another column 0.93`, `- hist of "revenue"`} {
		if !strings.Contains(s, want) {
			t.Errorf("goal prompt lacks %q:\n%s", want, s)
		}
	}
}
