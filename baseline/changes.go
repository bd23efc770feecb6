package baseline

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/eda"
)

// Changes are what the comparison found (the output of the cell tagged
// eda.ChangesTag), most severe first.
type Changes struct {
	Worst   string         `json:"worst"`
	Counts  map[string]int `json:"counts"`
	Alpha   float64        `json:"alpha"`
	Tests   int            `json:"tests"`
	Changes []Change       `json:"changes"`
}

// Change is one change and its level.
type Change struct {
	Check  string   `json:"check"`
	Column *string  `json:"column"`
	Level  string   `json:"level"`
	Text   string   `json:"text"`
	Value  *float64 `json:"value"`
	PValue *float64 `json:"p_value"`
	Warn   *float64 `json:"warn"`
	Fail   *float64 `json:"fail"`
	// Numbers are the figures the text states, by name.
	Numbers map[string]any `json:"numbers,omitempty"`
}

// ParseChanges reads the changes cell's output.
func ParseChanges(raw []byte) (*Changes, error) {
	var c Changes
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("reading the changes: %w", err)
	}
	if Rank(c.Worst) < 0 {
		return nil, fmt.Errorf("reading the changes: unknown level %q", c.Worst)
	}
	for _, ch := range c.Changes {
		if Rank(ch.Level) < 0 {
			return nil, fmt.Errorf("reading the changes: %s has an unknown level %q", ch.Check, ch.Level)
		}
	}
	return &c, nil
}

// Rank orders levels: info 0, warn 1, fail 2; -1 for another word.
func Rank(level string) int { return slices.Index(eda.Levels, level) }

// AtLeast says whether any change is at level or above.
func (c *Changes) AtLeast(level string) bool { return c != nil && Rank(c.Worst) >= Rank(level) }

// Record is run.json's "baseline": the run compared with, its sketch as
// compared (kept in the run's folder, for replay), and what changed.
type Record struct {
	Manifest string `json:"manifest"`
	Data     Data   `json:"data"`
	// File is the baseline's sketch in this run's folder.
	File string `json:"file"`
	// Rules judged the changes (a replay judges by the same).
	Rules   *eda.ChangeRules `json:"rules,omitempty"`
	Changes *Changes         `json:"changes,omitempty"`
	// Explained: a model wrote the key changes (a replay asks it again, in
	// the same place of the recorded replies).
	Explained bool `json:"explained,omitempty"`
}

// FromRecord is the baseline a recorded run compared with, from the copy
// of its sketch in the run's folder dir.
func FromRecord(dir string, r *Record) (*Baseline, error) {
	path := filepath.Join(dir, filepath.FromSlash(r.File))
	b, err := readBounded(path, MaxSketchBytes)
	if err != nil {
		return nil, &Error{Manifest: r.Manifest, Msg: fmt.Sprintf("the run's copy of its baseline's sketch: %v", err)}
	}
	s, err := ParseSketch(b)
	if err != nil {
		return nil, &Error{Manifest: r.Manifest, Msg: fmt.Sprintf("the run's copy of its baseline's sketch, %s: %v; %s", r.File, err, rerunHint)}
	}
	return &Baseline{Manifest: r.Manifest, Data: r.Data, Sketch: s}, nil
}

// SummaryMarkdown is a short Markdown summary of the changes for a CI step
// summary or a pull-request comment: the verdict, then a table of the
// changes at warn and fail (the info ones counted).
func SummaryMarkdown(data string, b *Baseline, c *Changes, failure string) string {
	var s strings.Builder
	fmt.Fprintf(&s, "### What changed: `%s` against `%s`", mdCell(data), mdCell(filepath.Base(b.Manifest)))
	if c == nil {
		fmt.Fprintf(&s, "\n\nThe comparison did not run: %s\n", mdCell(orNone(failure)))
		return s.String()
	}
	fmt.Fprintf(&s, ": **%s**\n\n%d at fail, %d at warn, %d at info (baseline data `%s`, %s rows).\n",
		c.Worst, c.Counts[eda.LevelFail], c.Counts[eda.LevelWarn], c.Counts[eda.LevelInfo], mdCell(b.Data.Name), grouped(b.Data.Rows))
	var rows []Change
	for _, ch := range c.Changes {
		if ch.Level != eda.LevelInfo {
			rows = append(rows, ch)
		}
	}
	if len(rows) == 0 {
		s.WriteString("\nNo change at warn or fail.\n")
	} else {
		s.WriteString("\n| level | check | column | measure (warn / fail at) | what changed |\n| --- | --- | --- | --- | --- |\n")
		for _, ch := range rows {
			col := ""
			if ch.Column != nil {
				col = "`" + mdCell(*ch.Column) + "`"
			}
			fmt.Fprintf(&s, "| %s | %s | %s | %s | %s |\n", ch.Level, ch.Check, col, ch.measure(), mdCell(ch.Text))
		}
	}
	if failure != "" {
		fmt.Fprintf(&s, "\nThe run then stopped: %s\n", mdCell(failure))
	}
	return s.String()
}

// measure is the change's measure and thresholds, "" for a schema change.
func (ch Change) measure() string {
	if ch.Value == nil || (ch.Warn == nil && ch.Fail == nil) {
		return ""
	}
	bound := func(x *float64) string {
		if x == nil {
			return "never"
		}
		return strconv.FormatFloat(*x, 'g', 3, 64)
	}
	return fmt.Sprintf("%s (%s / %s)", strconv.FormatFloat(*ch.Value, 'g', 3, 64), bound(ch.Warn), bound(ch.Fail))
}

// grouped is n with thousands separated by commas.
func grouped(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "no reason given"
	}
	return s
}

// mdCell is text safe in a Markdown table cell and a code span: one line,
// pipes and backticks escaped.
func mdCell(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "|", `\|`, "`", "'").Replace(s)
	return s
}
