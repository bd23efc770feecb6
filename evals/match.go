package evals

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/evals/dabench"
	"github.com/analyst-cli/analyst/evals/dabstep"
)

// Matcher kinds.
const (
	MatchDABench  = "dabench"  // the official is_equal: exact string, else |p-l| < 1e-6
	MatchExact    = "exact"    // the same string (surrounding spaces ignored)
	MatchCaseFold = "casefold" // the same string, ignoring case and surrounding spaces
	MatchNumber   = "number"   // numbers within Abs, Rel, or equal to SigFigs significant figures
	MatchSet      = "set"      // Sep-separated items, in any order
	MatchList     = "list"     // Sep-separated items, in order unless Unordered
	MatchDABstep  = "dabstep"  // DABstep's question_scorer (dabstep.Match)
)

// Matcher says how a predicted value is compared with the expected one.
type Matcher struct {
	Kind      string  `json:"kind" yaml:"match"`
	Abs       float64 `json:"abs,omitempty" yaml:"abs"`
	Rel       float64 `json:"rel,omitempty" yaml:"rel"`
	SigFigs   int     `json:"sig_figs,omitempty" yaml:"sig_figs"`
	Sep       string  `json:"sep,omitempty" yaml:"sep"`
	Unordered bool    `json:"unordered,omitempty" yaml:"unordered"`
}

// Validate reports a matcher that cannot work.
func (m Matcher) Validate() error {
	switch m.Kind {
	case MatchDABench, MatchExact, MatchCaseFold, MatchSet, MatchList, MatchDABstep:
	case MatchNumber:
		if m.Abs < 0 || m.Rel < 0 || m.SigFigs < 0 {
			return fmt.Errorf("abs, rel and sig_figs cannot be negative")
		}
	default:
		return fmt.Errorf("unknown match %q (use dabench, exact, casefold, number, set, list or dabstep)", m.Kind)
	}
	return nil
}

// Match reports whether pred (present when ok) matches want. A DABstep
// answer that is not there is "", as the submission file has it (and the
// leaderboard scores it: an empty list is a gold answer).
func (m Matcher) Match(pred string, ok bool, want string) bool {
	if m.Kind == MatchDABstep {
		return dabstep.Match(pred, want)
	}
	if !ok {
		return false
	}
	switch m.Kind {
	case MatchExact:
		return strings.TrimSpace(pred) == strings.TrimSpace(want)
	case MatchCaseFold:
		return strings.EqualFold(strings.TrimSpace(pred), strings.TrimSpace(want))
	case MatchNumber:
		return m.numbers(pred, want)
	case MatchSet, MatchList:
		return m.items(pred, want)
	}
	return dabench.IsEqual(pred, ok, want)
}

func (m Matcher) numbers(pred, want string) bool {
	p, err1 := dabench.ParsePyFloat(pred)
	w, err2 := dabench.ParsePyFloat(want)
	if err1 != nil || err2 != nil || math.IsNaN(p) || math.IsNaN(w) {
		return false
	}
	if p == w {
		return true
	}
	if m.SigFigs > 0 {
		return sigFigs(p, m.SigFigs) == sigFigs(w, m.SigFigs)
	}
	d := math.Abs(p - w)
	if m.Abs == 0 && m.Rel == 0 {
		return d < 1e-6
	}
	return (m.Abs > 0 && d <= m.Abs) || (m.Rel > 0 && d <= m.Rel*math.Abs(w))
}

func sigFigs(x float64, n int) string { return strconv.FormatFloat(x, 'e', n-1, 64) }

func (m Matcher) items(pred, want string) bool {
	sep := m.Sep
	if sep == "" {
		sep = ","
	}
	ps, ws := splitItems(pred, sep), splitItems(want, sep)
	if len(ps) != len(ws) {
		return false
	}
	if m.Kind == MatchSet || m.Unordered {
		sort.Strings(ps)
		sort.Strings(ws)
	}
	item := Matcher{Kind: MatchCaseFold}
	num := Matcher{Kind: MatchNumber, Abs: m.Abs, Rel: m.Rel, SigFigs: m.SigFigs}
	for i := range ps {
		if !item.Match(ps[i], true, ws[i]) && !num.Match(ps[i], true, ws[i]) {
			return false
		}
	}
	return true
}

// splitItems splits a list value, without brackets or quotes around items,
// case-folded so that sorting is case-insensitive.
func splitItems(s, sep string) []string {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	if strings.TrimSpace(s) == "" {
		return nil
	}
	parts := strings.Split(s, sep)
	for i, p := range parts {
		parts[i] = strings.ToLower(strings.Trim(strings.TrimSpace(p), `"'`))
	}
	return parts
}

var answerName = regexp.MustCompile(`^[\p{L}\p{N}_]+$`)
