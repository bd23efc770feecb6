package eda

import (
	"fmt"
	"strings"
	"testing"
)

// The relationships' thresholds are {{KEY}}s filled from thresholds.go and
// stated by the notes above the cells.
func TestRelationshipsThresholdsFromGo(t *testing.T) {
	st := Relationships([]string{"payments", "fees", "payments"})
	code := st.Cells[1].Source + "\n" + st.Cells[5].Source
	for _, line := range []string{`RELATIONSHIP_TABLES = ["payments", "fees"]`, "MATCH_SHARE = 0.9  #", "MIN_DISTINCT = 2  #",
		"CHANCE = 0.000001  #", "ORPHAN_SAMPLE = 5  #", "DIAGRAM_TABLES = 12  #"} {
		if !strings.Contains(code, "\n"+line) && !strings.HasPrefix(code, line) {
			t.Errorf("rendered code has no line %q", line)
		}
	}
	notes := st.Cells[0].Source + st.Cells[4].Source
	for _, text := range []string{"at least 90% are values of B.y", "at least 2 distinct values", "At most 1e-06 counts",
		"(up to 5)", "At most 12 tables are drawn"} {
		if !strings.Contains(notes, text) {
			t.Errorf("the notes do not say %q", text)
		}
	}
}

func TestParseRelationships(t *testing.T) {
	ok := `{"tables": [{"name": "a", "rows": 3, "columns": 1, "keys": ["id"], "list_columns": [], "not_compared": []},
		{"name": "b", "rows": 2, "columns": 1, "keys": [], "list_columns": [{"column": "ids", "elements": "integer"}], "not_compared": []}],
		"relationships": [{"from": "b", "from_column": "ids", "to": "a", "to_column": "id", "list": true, "distinct": 3,
		"matched_distinct": 3, "share_distinct": 1.0, "chance": 1e-9, "rows": 2, "matched_rows": 1, "share_rows": 0.5,
		"orphan_rows": 1, "orphan_values": 0, "orphan_sample": [{"value": "7", "count": 1, "share": 0.5}], "evidence": "values"}],
		"not_counted": [], "alerts": [{"type": "broken_relationship", "tables": ["b", "a"], "columns": ["ids", "id"], "message": "m"}],
		"rule": {"match_share": 0.9, "min_distinct": 2, "chance": 1e-6}}`
	p, err := ParseRelationships([]byte(ok))
	if err != nil {
		t.Fatal(err)
	}
	r := p.Relationships[0]
	if !r.Broken() || !r.List || *r.Chance != 1e-9 || r.OrphanSample[0].Value != "7" || p.Alerts[0].Tables[1] != "a" ||
		p.Tables[1].ListColumns[0].Elements != "integer" || p.Rule.MinDistinct != 2 {
		t.Errorf("parsed %+v", p)
	}
	bad := strings.Replace(ok, `"to": "a"`, `"to": "c"`, 1)
	if _, err := ParseRelationships([]byte(bad)); err == nil || !strings.Contains(err.Error(), "b.ids → c.id names a table not profiled") {
		t.Errorf("a relationship to an unknown table: %v", err)
	}
	if _, err := ParseRelationships([]byte(`{"tables": 3}`)); err == nil || !strings.Contains(err.Error(), "reading the relationships") {
		t.Errorf("bad JSON: %v", err)
	}
}

// The prompt's part stays bounded however many tables, keys, joins and
// columns of lists there are, and says what it left out.
func TestRelationshipsPromptBounded(t *testing.T) {
	p := &RelationshipProfile{Rule: RelationshipRule{MatchShare: 0.9}}
	long := strings.Repeat("very_long_column_name_", 10)
	for i := range 400 {
		tk := TableKeys{Name: fmt.Sprintf("table_%03d", i), Rows: 1000 + i}
		for j := range 12 {
			tk.Keys = append(tk.Keys, fmt.Sprintf("key_%d", j))
			tk.ListColumns = append(tk.ListColumns, ListColumn{Column: fmt.Sprintf("list_%d", j), Elements: "text"})
		}
		if i%7 == 0 {
			tk.Keys = nil
		}
		p.Tables = append(p.Tables, tk)
		p.Relationships = append(p.Relationships, Relationship{Link: Link{From: tk.Name, FromColumn: long, To: "table_000",
			ToColumn: "key_0", List: i%2 == 0}, Rows: 10, MatchedRows: 9, ShareRows: 0.9, OrphanRows: 1,
			OrphanSample: []TopValue{{Value: "x", Count: 1}}})
		p.Alerts = append(p.Alerts, Alert{Type: AlertTypeMismatch, Message: "mismatch " + tk.Name})
	}
	s := RelationshipsPrompt(p)
	if len(s) > promptMaxBytes+100 {
		t.Errorf("prompt part is %d bytes, over the %d cap", len(s), promptMaxBytes)
	}
	for _, want := range []string{`"table_001" (1001 rows): "key_0", "key_1", "key_2", "key_3", "key_4", and 7 more;`,
		"and 312 more tables with keys", `no single-column key: "table_000", "table_007"`,
		`tables["table_000"]["very_long_column_name_very_long_column_name_very_long_column" (cut: the first 60 of 220 bytes)] (the elements of its lists)`,
		`90.0% of 10 rows with elements match; 1 orphan rows`, "(cut: "} {
		if !strings.Contains(s, want) {
			t.Errorf("prompt part lacks %q:\n%s", want, s[:min(len(s), 3000)])
		}
	}
	small := &RelationshipProfile{Rule: RelationshipRule{MatchShare: 0.9}, Tables: []TableKeys{{Name: "a", Rows: 2, Keys: []string{"id"}},
		{Name: "b", Rows: 5, ListColumns: []ListColumn{{Column: "ids", Elements: "integer"}}}},
		Relationships: []Relationship{{Link: Link{From: "b", FromColumn: "ids", To: "a", ToColumn: "id", List: true}, Rows: 5, MatchedRows: 5, ShareRows: 1}},
		Alerts:        []Alert{{Type: AlertTypeMismatch, Message: "c.x holds whole numbers written as text"}}}
	want := "TABLES TOGETHER: `tables` holds each table as a DataFrame by name. A key is a column whose values are all " +
		"different and never missing; a column refers to a key when its values are keys of the other table (at least 90% " +
		"of its distinct values).\n" +
		`Keys: "a" (2 rows): "id"; no single-column key: "b".` + "\n" +
		"Joins (column → the key it refers to; pd.merge(left, right, left_on=..., right_on=...)):\n" +
		`- tables["b"]["ids"] (the elements of its lists) → tables["a"]["id"]: 100% of 5 rows with elements match` + "\n" +
		"Columns of lists, kept as JSON text: read the lists with json.loads, e.g. df[col].map(json.loads), and match " +
		`elements with df.assign(item=df[col].map(json.loads)).explode("item") (an empty list has no elements; what it ` +
		"means is for the documentation to say):\n" +
		`- "b": "ids" (integer)` + "\n" +
		"Type mismatches:\n- c.x holds whole numbers written as text\n"
	if got := RelationshipsPrompt(small); got != want {
		t.Errorf("prompt part:\n%s\nwant:\n%s", got, want)
	}
	if RelationshipsPrompt(nil) != "" {
		t.Error("a nil profile has a prompt part")
	}
}
