package agent

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/eda"
)

func promptProfile() *eda.Profile {
	long := "customer_lifetime_value_estimate_in_euros_after_returns_and_discounts_q4"
	p := &eda.Profile{Rows: 100, Columns: 3, Load: eda.LoadInfo{Format: "csv", Delimiter: ",", Encoding: "utf-8"}}
	p.ColumnInfo = []eda.Column{
		{Name: "region", Kind: eda.KindCategorical, Dtype: "object", Distinct: 4, Top: []eda.TopValue{
			{Value: "East", Count: 40}, {Value: "West", Count: 30}, {Value: "North", Count: 20}, {Value: "South", Count: 10}}},
		{Name: "product", Kind: eda.KindCategorical, Dtype: "object", Distinct: 50, Top: []eda.TopValue{
			{Value: "a", Count: 9}, {Value: "b", Count: 8}, {Value: "c", Count: 7}, {Value: "d", Count: 6}}},
		{Name: long, Kind: eda.KindNumeric, Dtype: "float64", Distinct: 100},
	}
	for i := 0; i < 30; i++ {
		p.Alerts = append(p.Alerts, eda.Alert{Type: eda.AlertSkewed, Column: fmt.Sprintf("m%02d", i), Message: fmt.Sprintf("m%02d is highly skewed (γ1 = 3.1)", i)})
	}
	p.Alerts = append(p.Alerts, eda.Alert{Type: eda.AlertUniqueID, Column: "id", Message: "id has unique values"})
	return p
}

// Few categories are listed in full; a long name is never clipped inside
// its quotes without saying so; alerts of one type are grouped; the model
// is told its budgets.
func TestSystemPromptDetails(t *testing.T) {
	s := SystemPrompt(PromptInput{DataName: "x.csv", Profile: promptProfile(), Tools: true, MaxTurns: 7, MaxRepairs: 2, CellTimeout: 45 * time.Second})
	for _, want := range []string{
		`all values "East"×40, "West"×30, "North"×20, "South"×10`,
		`; top "a"×9, "b"×8, "c"×7` + "\n",
		`"customer_lifetime_value_estimate_in_euros_after_returns_and_" (clipped: the first 60 of 72 characters)`,
		`- skewed, 30 alerts (e.g. m00 is highly skewed (γ1 = 3.1)): "m00", "m01", "m02", "m03", "m04", "m05", "m06", "m07" and 22 more`,
		"- unique_id: id has unique values",
		"Budget: 7 model turns per question (each reply is one turn); 2 failed cells in a row before the question is given up; 45s per cell",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, s)
		}
	}
	if strings.Count(s, "- skewed") != 1 {
		t.Errorf("skewed alerts not grouped:\n%s", s)
	}
}

func TestNarrative(t *testing.T) {
	tests := []struct{ in, plain, md string }{
		{"The peak month is @peak_month[2024-07].", "The peak month is 2024-07.", "The peak month is **2024-07**."},
		{"@regions[4] There are four regions.", "There are four regions.", "There are four regions."},
		{"@a[1] @b[2]\nA is one, and b is @b[2].", "A is one, and b is 2.", "A is one, and b is **2**."},
		{"- @a[1]\n- @b[2]\n\nDone.", "Done.", "Done."},
		{"No values here.", "No values here.", "No values here."},
	}
	for _, tt := range tests {
		plain, md := narrative(tt.in)
		if plain != tt.plain || md != tt.md {
			t.Errorf("narrative(%q) = %q, %q; want %q, %q", tt.in, plain, md, tt.plain, tt.md)
		}
	}
}

func TestTextVerdict(t *testing.T) {
	tests := []struct{ in, want string }{
		{"VERDICT: ACCEPT\nfine", "accept"},
		{"**Verdict: revise** labels overlap", "revise"},
		{"I cannot accept this chart yet: the labels overlap", ""},
		{"ACCEPT", ""},
		{"The chart is fine.\nVERDICT: ACCEPT", ""},
	}
	for _, tt := range tests {
		if got := textVerdict(tt.in); got != tt.want {
			t.Errorf("textVerdict(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// The reason of a code-block REVISE verdict: the rest of its line, else
// the words before the code; on one line.
func TestReviseReason(t *testing.T) {
	tests := []struct{ in, want string }{
		{"VERDICT: REVISE — the labels overlap\n```python\nx\n```", "the labels overlap"},
		{"**VERDICT: REVISE** - bars unsorted.", "bars unsorted."},
		{"VERDICT: REVISE\nThe month labels\noverlap.\n```python\nx\n```\nmore", "The month labels overlap."},
		{"VERDICT: REVISE\n```python\nx\n```", ""},
		{"VERDICT: ACCEPT fine", "fine"},
		{"no verdict here", ""},
	}
	for _, tt := range tests {
		if got := reviseReason(tt.in); got != tt.want {
			t.Errorf("reviseReason(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// The model hears of the libraries it can use, the format readers too, and
// not of the notebook machinery.
func TestSystemPromptVersions(t *testing.T) {
	s := SystemPrompt(PromptInput{DataName: "x.csv", Profile: promptProfile(), Tools: true, Versions: map[string]string{
		"python": "3.13.5", "pandas": "2.2.3", "numpy": "2.2.4", "matplotlib": "3.10.1", "seaborn": "0.13.2",
		"scipy": "1.15.3", "statsmodels": "0.14.4", "scikit-learn": "1.4.2", "plotly": "5.20.0", "ipykernel": "6.29.5",
		"ipython": "8.35.0", "nbconvert": "7.16.6", "nbformat": "5.9.1", "openpyxl": "3.1.5", "dask": "2024.12.1",
		"odf": "1.4.2", "pyreadstat": "1.2.8", "tabulate": "0.9.0", "xlrd": "2.0.1"}})
	want := "python 3.13.5, pandas 2.2.3, numpy 2.2.4, matplotlib 3.10.1, seaborn 0.13.2, scipy 1.15.3, statsmodels 0.14.4, " +
		"scikit-learn 1.4.2, plotly 5.20.0, dask 2024.12.1, odf 1.4.2, openpyxl 3.1.5, pyreadstat 1.2.8, tabulate 0.9.0, xlrd 2.0.1"
	if !strings.Contains(s, want) {
		t.Errorf("system prompt lacks the version line %q:\n%s", want, s)
	}
	if strings.Contains(s, "nbconvert") {
		t.Errorf("system prompt names the notebook machinery:\n%s", s)
	}
}
