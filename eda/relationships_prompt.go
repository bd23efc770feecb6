package eda

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Bounds of RelationshipsPrompt: its size stays a few thousand characters
// however many tables, keys and relationships there are.
const (
	promptKeyTables     = 30   // tables whose keys are listed
	promptKeysPerTable  = 5    // keys listed per table
	promptRelationships = 30   // relationships listed
	promptListColumns   = 30   // columns of lists listed
	promptMismatches    = 5    // type mismatches listed
	promptNameBytes     = 60   // a table's or column's name is cut past this
	promptMaxBytes      = 8000 // hard cap of the whole text
)

// RelationshipsPrompt is the part of the model's system prompt about the
// tables together: each table's keys, the joins (which column refers to
// which key, the share of rows that match, the orphans), the columns that
// hold lists and how to use their elements, and type mismatches. Names are
// quoted as Python strings; the text is bounded (see the prompt* bounds).
// "" for nil.
func RelationshipsPrompt(p *RelationshipProfile) string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("TABLES TOGETHER: `tables` holds each table as a DataFrame by name. A key is a column whose " +
		"values are all different and never missing; a column refers to a key when its values are keys of the other " +
		fmt.Sprintf("table (at least %s of its distinct values).\n", percent(p.Rule.MatchShare)))
	b.WriteString(promptKeys(p.Tables))
	b.WriteString(promptJoins(p.Relationships))
	b.WriteString(promptLists(p.Tables))
	b.WriteString(promptMismatchLines(p.Alerts))
	return cutLines(b.String(), promptMaxBytes)
}

func promptKeys(tables []TableKeys) string {
	var b strings.Builder
	b.WriteString("Keys:")
	var keyless []string
	listed := 0
	for _, t := range tables {
		if len(t.Keys) == 0 {
			keyless = append(keyless, promptName(t.Name))
			continue
		}
		if listed == promptKeyTables {
			continue
		}
		listed++
		keys := make([]string, 0, len(t.Keys))
		for i, k := range t.Keys {
			if i == promptKeysPerTable {
				keys = append(keys, fmt.Sprintf("and %d more", len(t.Keys)-i))
				break
			}
			keys = append(keys, promptName(k))
		}
		fmt.Fprintf(&b, " %s (%d rows): %s;", promptName(t.Name), t.Rows, strings.Join(keys, ", "))
	}
	if more := len(tables) - len(keyless) - listed; more > 0 {
		fmt.Fprintf(&b, " and %d more tables with keys;", more)
	}
	if len(keyless) > 0 {
		b.WriteString(" no single-column key: " + strings.Join(clipList(keyless, promptKeyTables), ", ") + ";")
	}
	return strings.TrimSuffix(b.String(), ";") + ".\n"
}

func promptJoins(rs []Relationship) string {
	if len(rs) == 0 {
		return "Joins: none found (no column's values are another table's keys).\n"
	}
	var b strings.Builder
	b.WriteString("Joins (column → the key it refers to; pd.merge(left, right, left_on=..., right_on=...)):\n")
	for i, r := range rs {
		if i == promptRelationships {
			fmt.Fprintf(&b, "- and %d more (print relationships[\"relationships\"] in the kernel)\n", len(rs)-i)
			break
		}
		fmt.Fprintf(&b, "- tables[%s][%s]", promptName(r.From), promptName(r.FromColumn))
		rows := "rows"
		if r.List {
			b.WriteString(" (the elements of its lists)")
			rows = "rows with elements"
		}
		fmt.Fprintf(&b, " → tables[%s][%s]: %s of %d %s match", promptName(r.To), promptName(r.ToColumn),
			sharePercent(r.ShareRows), r.Rows, rows)
		if r.Broken() {
			var sample []string
			for _, o := range r.OrphanSample {
				sample = append(sample, fmt.Sprintf("%s ×%d", promptName(o.Value), o.Count))
			}
			fmt.Fprintf(&b, "; %d orphan rows (not found in the key: an inner join drops them), e.g. %s",
				r.OrphanRows, strings.Join(sample, ", "))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func promptLists(tables []TableKeys) string {
	var lines []string
	n := 0
	for _, t := range tables {
		var cols []string
		for _, c := range t.ListColumns {
			n++
			if n <= promptListColumns {
				cols = append(cols, promptName(c.Column)+" ("+c.Elements+")")
			}
		}
		if len(cols) > 0 {
			lines = append(lines, "- "+promptName(t.Name)+": "+strings.Join(cols, ", "))
		}
	}
	if n == 0 {
		return ""
	}
	if n > promptListColumns {
		lines = append(lines, fmt.Sprintf("- and %d more columns of lists", n-promptListColumns))
	}
	return "Columns of lists, kept as JSON text: read the lists with json.loads, e.g. " +
		"df[col].map(json.loads), and match elements with df.assign(item=df[col].map(json.loads)).explode(\"item\") " +
		"(an empty list has no elements; what it means is for the documentation to say):\n" +
		strings.Join(lines, "\n") + "\n"
}

func promptMismatchLines(alerts []Alert) string {
	var b strings.Builder
	n := 0
	for _, a := range alerts {
		if a.Type != AlertTypeMismatch {
			continue
		}
		if n++; n <= promptMismatches {
			b.WriteString("- " + a.Message + "\n")
		}
	}
	if n == 0 {
		return ""
	}
	if n > promptMismatches {
		fmt.Fprintf(&b, "- and %d more type mismatches\n", n-promptMismatches)
	}
	return "Type mismatches:\n" + b.String()
}

// promptName quotes a name; a long one is cut, and the cut said outside
// the quotes, so the model never takes a cut name for a real one.
func promptName(s string) string {
	if len(s) <= promptNameBytes {
		return strconv.Quote(s)
	}
	cut := promptNameBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf(" (cut: the first %d of %d bytes)", cut, len(s))
}

// sharePercent is a share as the prompt says it: 100% only when whole.
func sharePercent(share float64) string {
	if share == 1 {
		return "100%"
	}
	return strconv.FormatFloat(100*share, 'f', 1, 64) + "%"
}

func clipList(items []string, n int) []string {
	if len(items) <= n {
		return items
	}
	return append(items[:n:n], fmt.Sprintf("and %d more", len(items)-n))
}

// cutLines cuts s after its last whole line within max bytes, saying so.
func cutLines(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := strings.LastIndex(s[:max], "\n") + 1
	return s[:cut] + fmt.Sprintf("(cut: %d more bytes; print(relationships) in the kernel)\n", len(s)-cut)
}
