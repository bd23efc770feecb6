package eda

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/nbformat"
)

// StageRelationships is the stage that profiles the tables together.
const StageRelationships = "relationships"

// Tags of the relationships stage's cells other layers look for.
const (
	// RelationshipsTag tags the cell whose output holds the relationships
	// (mime nbformat.MimeRelationships).
	RelationshipsTag = "relationships-json"
	// RelationshipsChartTag tags the cell that draws the diagram of the
	// tables and their relationships.
	RelationshipsChartTag = "relationships-chart"
)

// Alert types of the relationships.
const (
	// AlertBrokenRelationship: some rows of a column that refers to a key
	// hold values that are not keys (orphans).
	AlertBrokenRelationship = "broken_relationship"
	// AlertTypeMismatch: whole numbers written as text on one side and
	// numbers on the other would be keys once read alike.
	AlertTypeMismatch = "type_mismatch"
)

// Evidence of a relationship.
const (
	EvidenceValues         = "values"
	EvidenceNames          = "names"
	EvidenceValuesAndNames = "values and names"
)

var (
	relationshipsPy      = pyFile("relationships.py")
	relationshipsJSONPy  = pyFile("relationships_json.py")
	relationshipsChartPy = pyFile("relationships_chart.py")
)

// RelationshipProfile is the profile of the tables together: each table's
// keys and columns of lists, the relationships between them with their
// orphan rows, and the alerts.
type RelationshipProfile struct {
	Tables        []TableKeys    `json:"tables"`
	Relationships []Relationship `json:"relationships"`
	// NotCounted are containments not counted as relationships, with why:
	// implied through another key (Reason "implied: ..."), or numbers that
	// could be keys by chance, under names that do not say so ("chance: ...").
	NotCounted []Link           `json:"not_counted"`
	Alerts     []Alert          `json:"alerts"`
	Rule       RelationshipRule `json:"rule"`
}

// TableKeys is what the relationships say of one table.
type TableKeys struct {
	Name    string `json:"name"`
	Rows    int    `json:"rows"`
	Columns int    `json:"columns"`
	// Keys are the columns whose values are all different and never
	// missing (single columns only), in the table's order.
	Keys []string `json:"keys"`
	// ListColumns hold lists (JSON text, as the loader keeps them).
	ListColumns []ListColumn `json:"list_columns"`
	// NotCompared are the columns whose values no key is made of
	// (booleans, fractional numbers, mixed types), with why.
	NotCompared []NotCompared `json:"not_compared"`
}

// ListColumn is a column of lists and what its elements are: "integer",
// "text", "datetime", or why they are not compared.
type ListColumn struct {
	Column   string `json:"column"`
	Elements string `json:"elements"`
}

// NotCompared is a column left out of the comparison, and why.
type NotCompared struct {
	Column string `json:"column"`
	Reason string `json:"reason"`
}

// Link is a column whose distinct values (the elements of its lists, when
// List) are, at least in share ShareDistinct, keys of another column.
type Link struct {
	From            string  `json:"from"`
	FromColumn      string  `json:"from_column"`
	To              string  `json:"to"`
	ToColumn        string  `json:"to_column"`
	List            bool    `json:"list"`
	Distinct        int     `json:"distinct"`
	MatchedDistinct int     `json:"matched_distinct"`
	ShareDistinct   float64 `json:"share_distinct"`
	// Chance bounds how likely so many numbers would be keys by chance;
	// nil for text.
	Chance *float64 `json:"chance"`
	// Reason says why a containment is not counted (NotCounted only).
	Reason string `json:"reason,omitempty"`
}

// Relationship is a Link counted as a relationship: From.FromColumn refers
// to To.ToColumn, a key.
type Relationship struct {
	Link
	Rows        int     `json:"rows"` // rows with a value (with elements, for lists)
	MatchedRows int     `json:"matched_rows"`
	ShareRows   float64 `json:"share_rows"`
	// OrphanRows hold a value (an element) that is not a key; OrphanValues
	// is how many distinct values are not; OrphanSample lists those with
	// the most rows.
	OrphanRows   int        `json:"orphan_rows"`
	OrphanValues int        `json:"orphan_values"`
	OrphanSample []TopValue `json:"orphan_sample"`
	Evidence     string     `json:"evidence"` // EvidenceValues, EvidenceNames or EvidenceValuesAndNames
}

// Broken reports whether some rows are orphans.
func (r Relationship) Broken() bool { return r.OrphanRows > 0 }

// RelationshipRule are the thresholds the relationships were found with.
type RelationshipRule struct {
	MatchShare  float64 `json:"match_share"`
	MinDistinct int     `json:"min_distinct"`
	Chance      float64 `json:"chance"`
}

// Relationships profiles the tables together: tables names the DataFrames
// of the kernel's dict `tables` (each loaded and profiled on its own
// before), in the order they are shown. It finds each table's keys, the
// columns whose values are keys of another table (the elements of columns
// of lists too), their orphan rows, and alerts; prints them, shows them as
// JSON (mime nbformat.MimeRelationships, in the cell tagged RelationshipsTag) and
// draws the diagram (RelationshipsChartTag). Names given twice count once.
func Relationships(tables []string) Stage {
	var names []string
	seen := map[string]bool{}
	for _, t := range tables {
		if !seen[t] {
			seen[t] = true
			names = append(names, t)
		}
	}
	code := constants(relationshipsPy, relationshipsConstants(names)...)
	return Stage{Name: StageRelationships, Title: "Relationships between tables", Cells: []Cell{
		Markdown(relationshipsMd),
		Code(code, "relationships-find"),
		Markdown("The relationships as JSON, which analyst reads to write the report and to brief the model."),
		Code(constants(relationshipsJSONPy, relationshipsJSONConstants...), RelationshipsTag),
		Markdown(relationshipsChartMd),
		Code(constants(relationshipsChartPy, relationshipsChartConstants...), RelationshipsChartTag),
	}}
}

// relationshipsConstants are the relationships cell's tables and
// thresholds, as name-value pairs for constants.
func relationshipsConstants(tables []string) []string {
	return []string{"RELATIONSHIP_TABLES", pyList(tables), "MATCH_SHARE", pyFloat(matchShare),
		"MIN_DISTINCT", strconv.Itoa(minDistinct), "CHANCE", pyFloat(chanceBound), "ORPHAN_SAMPLE", strconv.Itoa(orphanSample)}
}

var (
	relationshipsJSONConstants  = []string{"RELATIONSHIPS_MIME", pyString(nbformat.MimeRelationships)}
	relationshipsChartConstants = []string{"DIAGRAM_TABLES", strconv.Itoa(diagramTables),
		"SVG_MIME", pyString(nbformat.MimeSVG), "PLAIN_MIME", pyString(nbformat.MimePlain)}
)

var relationshipsMd = fmt.Sprintf(strings.TrimSpace(`
The tables together. Each table's **keys** are its columns whose values are all different and never missing (single columns: a key made of two columns is not looked for). A column A.x **refers to** a key B.y when, of A.x's distinct values,

- at least %[1]s are values of B.y, and A.x has at least %[2]d distinct values (a constant proves nothing); values compare as a join compares them: numbers with numbers (whole floats, as a column of integers with missing values holds them, count as integers), text with text, times with times (those with a time zone only with those with one); booleans and fractional numbers are never keys;
- and the match is not chance. Text rarely lands on another table's keys by chance; numbers do: the hours 0 to 23 are all ids of any table numbered from 0. So for numbers the chance is bounded: if A.x's distinct values were spread at random over their range (from their 5th to their 95th percentile), how likely would so many be keys of B.y? (Chernoff's bound on the binomial tail, with p the share of the whole numbers in that range that are keys.) At most %[3]s counts; dates of one period are always assumed to coincide. Otherwise A.x must name B: its words, without generic ones such as id, key, code or number, end with those of y or of B's name (customer_id → customers.id, merchant → merchant_data.merchant).

A column of **lists** (the loader keeps lists as JSON text, such as ["R", "D"] or [5411, 5412]) refers to a key by the elements of its lists. The **orphans** of a relationship are the rows whose value (or one of whose elements) is not a key; a relationship with orphans is **broken**, and gets an alert with the orphan values that have the most rows (up to %[4]d). Whole numbers written as text on one side and as numbers on the other ("007" and 7) are not joined as they are: that gets a type_mismatch alert.

When A.x refers to both B.y and C.z, and C.z refers to B.y but not back (C.z's values are some of B.y's: merchants.mcc → mccs.mcc), C.z is a column about B's things and only A.x → B.y counts; A.x → C.z is listed as implied. Containments that pass the share but not the chance test are listed as not counted too. Text is compared by 64-bit hashes of its distinct values (two different values share a hash with a chance of about one in 10^19 per pair). Most columns are ruled out on a sample of their rows (a repeated value is no key; more distinct values than a key has refer to none) and the rest read whole, so the result is that of reading every column whole.
`), percent(matchShare), minDistinct, strconv.FormatFloat(chanceBound, 'g', -1, 64), orphanSample)

var relationshipsChartMd = fmt.Sprintf(strings.TrimSpace(`
The tables and their relationships: a box per table (rows, columns, keys, columns of lists), an arrow from the table that refers to the one it refers to, labelled with the two columns and the share of rows that match; a broken relationship is dashed and red. Tables referred to stand to the right of those that refer to them. At most %d tables are drawn, those in a relationship first.
`), diagramTables)

// ParseRelationships reads the relationships cell's JSON output.
func ParseRelationships(raw []byte) (*RelationshipProfile, error) {
	var p RelationshipProfile
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("reading the relationships between tables: %w", err)
	}
	known := map[string]bool{}
	for _, t := range p.Tables {
		known[t.Name] = true
	}
	for _, r := range p.Relationships {
		if !known[r.From] || !known[r.To] {
			return nil, fmt.Errorf("reading the relationships between tables: %s.%s → %s.%s names a table not profiled",
				r.From, r.FromColumn, r.To, r.ToColumn)
		}
	}
	return &p, nil
}

// RelationshipsFromData reads the relationships from one cell output's
// mime bundle (nbformat "data"): ok is false when the bundle holds none.
func RelationshipsFromData(data map[string]json.RawMessage) (p *RelationshipProfile, ok bool, err error) {
	return fromData(data, nbformat.MimeRelationships, ParseRelationships)
}
