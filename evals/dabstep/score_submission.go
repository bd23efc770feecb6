package dabstep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Submission is a submission file as the leaderboard reads it.
type Submission struct {
	Path string
	// Answers holds each task id's first line: the one the leaderboard
	// scores (agent_answers.loc[task_id == id].values[0]).
	Answers    map[string]Answer
	Duplicates []IDLines
}

// Answer is a task's answer and the line it is on.
type Answer struct {
	Line int
	Text string
}

// IDLines is a task id and the lines of a submission it is on.
type IDLines struct {
	TaskID string `json:"task_id"`
	Lines  []int  `json:"lines"`
}

// submissionFields are the fields the leaderboard takes; it refuses a
// file with any other ("Unexpected columns") or with a null.
var submissionFields = map[string]bool{"task_id": true, "agent_answer": true, "reasoning_trace": true}

// ReadSubmission reads a submission file, refusing what the leaderboard
// refuses: a line that is not a JSON object, a missing task_id or
// agent_answer, a null, a field it does not take, an answer or trace that
// is not a string. Blank lines are skipped.
func ReadSubmission(path string) (*Submission, error) {
	s := &Submission{Path: path, Answers: map[string]Answer{}}
	dups := map[string][]int{}
	err := readLines(path, maxSubmissionBytes, maxSubmissionLineBytes, func(n int, raw []byte) error {
		if len(bytes.TrimSpace(raw)) == 0 {
			return nil
		}
		id, answer, err := parseSubmissionLine(raw)
		if err != nil {
			return err
		}
		if first, ok := s.Answers[id]; ok {
			if dups[id] == nil {
				dups[id] = []int{first.Line}
			}
			dups[id] = append(dups[id], n)
			return nil
		}
		s.Answers[id] = Answer{Line: n, Text: answer}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for id, lines := range dups {
		s.Duplicates = append(s.Duplicates, IDLines{TaskID: id, Lines: lines})
	}
	sortByLine(s.Duplicates)
	return s, nil
}

func parseSubmissionLine(raw []byte) (id, answer string, err error) {
	const want = `want {"task_id": ..., "agent_answer": "...", "reasoning_trace": "..."}`
	m, err := object(raw)
	if err != nil {
		return "", "", fmt.Errorf("%w: %s", err, want)
	}
	for k := range m {
		if !submissionFields[k] {
			return "", "", fmt.Errorf("field %q: the leaderboard takes only task_id, agent_answer and reasoning_trace", k)
		}
	}
	if id, err = taskID(m); err != nil {
		return "", "", fmt.Errorf("%w: %s", err, want)
	}
	answer, ok, err := text(m, "agent_answer")
	if err != nil {
		return "", "", fmt.Errorf("task %s: %w (the leaderboard refuses nulls and reads answers as text)", id, err)
	}
	if !ok {
		return "", "", fmt.Errorf("task %s has no agent_answer: %s", id, want)
	}
	if _, _, err := text(m, "reasoning_trace"); err != nil {
		return "", "", fmt.Errorf("task %s: %w", id, err)
	}
	return id, answer, nil
}

// Scores is a submission scored against a split with answers.
// WriteJSON writes it as JSON: every task's verdict, not only the first
// maxListed the printout names.
type Scores struct {
	Split    string       `json:"split"`
	Overall  LevelScore   `json:"overall"`
	Levels   []LevelScore `json:"levels"` // easy, hard, then any other level by name
	Answered int          `json:"answered"`
	Wrong    []string     `json:"wrong"`   // answered wrong, in task order
	Missing  []string     `json:"missing"` // no line: counted wrong
	// Unknown are the task ids not in the split, by line.
	Unknown    []IDLines   `json:"unknown"`
	Duplicates []IDLines   `json:"duplicates"`
	Tasks      []TaskScore `json:"tasks"`
}

// LevelScore is the right answers of a level (or overall) among its tasks.
type LevelScore struct {
	Level string `json:"level"`
	Right int    `json:"right"`
	Total int    `json:"total"`
}

// Percent is the accuracy in percent with two decimals, as the
// leaderboard shows it (round(mean * 100, 2)).
func (l LevelScore) Percent() string {
	if l.Total == 0 {
		return "-"
	}
	return strconv.FormatFloat(float64(l.Right)/float64(l.Total)*100, 'f', 2, 64) + "%"
}

// TaskScore is one task's verdict.
type TaskScore struct {
	TaskID   string `json:"task_id"`
	Level    string `json:"level"`
	Answered bool   `json:"answered"`
	Right    bool   `json:"right"`
}

// Score scores a submission as the leaderboard does, each task's first
// line by Match, except that a task with no line counts wrong (the
// leaderboard refuses such a submission whole).
func Score(b *Benchmark, s *Submission) (*Scores, error) {
	if !b.Answered {
		return nil, fmt.Errorf("the %s split has no answers (the leaderboard keeps them): score against the %s split, or submit the file to the leaderboard", b.Split, SplitDev)
	}
	sc := &Scores{Split: b.Split, Overall: LevelScore{Level: "overall"}, Duplicates: s.Duplicates}
	levels := map[string]*LevelScore{"easy": {Level: "easy"}, "hard": {Level: "hard"}}
	inSplit := map[string]bool{}
	for _, t := range b.Tasks {
		inSplit[t.ID] = true
		a, answered := s.Answers[t.ID]
		ts := TaskScore{TaskID: t.ID, Level: t.Level, Answered: answered, Right: answered && Match(a.Text, t.Answer)}
		sc.Tasks = append(sc.Tasks, ts)
		l := levels[t.Level]
		if l == nil {
			l = &LevelScore{Level: t.Level}
			levels[t.Level] = l
		}
		for _, x := range []*LevelScore{l, &sc.Overall} {
			x.Total++
			if ts.Right {
				x.Right++
			}
		}
		switch {
		case !answered:
			sc.Missing = append(sc.Missing, t.ID)
		case !ts.Right:
			sc.Wrong = append(sc.Wrong, t.ID)
		}
	}
	sc.Answered = len(b.Tasks) - len(sc.Missing)
	sc.Levels = orderLevels(levels)
	for id, a := range s.Answers {
		if !inSplit[id] {
			sc.Unknown = append(sc.Unknown, IDLines{TaskID: id, Lines: []int{a.Line}})
		}
	}
	sortByLine(sc.Unknown)
	return sc, nil
}

func orderLevels(levels map[string]*LevelScore) []LevelScore {
	out := []LevelScore{*levels["easy"], *levels["hard"]}
	var others []string
	for name := range levels {
		if name != "easy" && name != "hard" {
			others = append(others, name)
		}
	}
	sort.Strings(others)
	for _, name := range others {
		out = append(out, *levels[name])
	}
	return out
}

func sortByLine(ds []IDLines) {
	sort.Slice(ds, func(i, j int) bool { return ds[i].Lines[0] < ds[j].Lines[0] })
}

// WriteJSON writes the scores as one indented JSON object: the figures,
// every task's verdict in task order, and the lists the printout names.
func (sc *Scores) WriteJSON(w io.Writer) error {
	out := *sc
	for _, l := range []*[]string{&out.Wrong, &out.Missing} {
		if *l == nil {
			*l = []string{} // [], not null
		}
	}
	for _, l := range []*[]IDLines{&out.Unknown, &out.Duplicates} {
		if *l == nil {
			*l = []IDLines{}
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// maxListed bounds the task ids a line of the printout names.
const maxListed = 20

// Write prints the scores as the leaderboard's columns (overall added),
// with the strict counts, then what a submission should know: wrong
// tasks, missing ones, unknown and duplicate ids.
func (sc *Scores) Write(w io.Writer) {
	fmt.Fprintf(w, "DABstep %s split: %d tasks, %d answered\n", sc.Split, sc.Overall.Total, sc.Answered)
	rows := append([]LevelScore{sc.Overall}, sc.Levels...)
	for _, l := range rows {
		name := capitalize(l.Level)
		if l.Level != "overall" {
			name += " Level"
		}
		fmt.Fprintf(w, "%-22s %7s  (%d of %d)\n", name+" Accuracy:", l.Percent(), l.Right, l.Total)
	}
	if len(sc.Wrong) > 0 {
		fmt.Fprintf(w, "wrong: %s\n", listIDs(sc.Wrong))
	}
	if len(sc.Missing) > 0 {
		fmt.Fprintf(w, "no answer (counted wrong; the leaderboard refuses a submission without every task): %s\n", listIDs(sc.Missing))
	}
	if len(sc.Unknown) > 0 {
		ids := make([]string, len(sc.Unknown))
		for i, u := range sc.Unknown {
			ids[i] = u.TaskID
		}
		fmt.Fprintf(w, "not in the %s split (ignored): %s\n", sc.Split, listIDs(ids))
	}
	for i, d := range sc.Duplicates {
		if i == maxListed {
			fmt.Fprintf(w, "… and %d more task ids on several lines\n", len(sc.Duplicates)-i)
			break
		}
		fmt.Fprintf(w, "task %s is on lines %s: the first is scored, as the leaderboard does\n", d.TaskID, joinInts(d.Lines))
	}
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

func listIDs(ids []string) string {
	if len(ids) <= maxListed {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:maxListed], ", ") + fmt.Sprintf(" and %d more (--json FILE lists every task's verdict)", len(ids)-maxListed)
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}
