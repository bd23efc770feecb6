package dabstep

import (
	"regexp"
	"sort"
	"strings"
)

// Match reports whether an agent's answer is right for the gold answer, as
// DABstep's question_scorer(agent_answer, gold) decides: both are stripped
// and lowercased; then
//
//   - if either is a number with thousands commas or a plain decimal with
//     '.' or ',', the first number in each is compared (neither found: wrong);
//   - else if either holds ',' or ';', both are lists, compared item by item;
//   - else if a number is found in both, the numbers are compared;
//   - else the strings are.
//
// The order matters only in the last step: difflib's ratio treats its two
// strings differently.
func Match(answer, gold string) bool {
	a, g := pyLower(pyStrip(answer)), pyLower(pyStrip(gold))
	if numericWithCommas.MatchString(a) || numericWithCommas.MatchString(g) {
		x, okx := extractNumeric(a)
		y, oky := extractNumeric(g)
		return okx && oky && compareNumeric(x, y)
	}
	if strings.ContainsAny(a, ",;") || strings.ContainsAny(g, ",;") {
		return compareLists(a, g)
	}
	x, okx := extractNumeric(a)
	y, oky := extractNumeric(g)
	if okx && oky {
		return compareNumeric(x, y)
	}
	return compareStrings(a, g)
}

var listSeparator = regexp.MustCompile(`[,;]`)

// compareLists is compare_lists: one leading '[' and one trailing ']' off,
// split on ',' and ';', blank items dropped, both sorted as strings (by
// code point); equal lists match, lists of different lengths do not, and
// otherwise every pair in sorted order must Match.
func compareLists(a, g string) bool {
	as, gs := listItems(a), listItems(g)
	if equalStrings(as, gs) {
		return true
	}
	if len(as) != len(gs) {
		return false
	}
	for i := range as {
		if !Match(as[i], gs[i]) {
			return false
		}
	}
	return true
}

func listItems(s string) []string {
	s = strings.TrimSuffix(strings.TrimPrefix(pyStrip(s), "["), "]")
	var items []string
	for _, it := range listSeparator.Split(s, -1) {
		if it = pyStrip(it); it != "" {
			items = append(items, it)
		}
	}
	sort.Strings(items) // UTF-8 byte order is code point order, as Python sorts str
	return items
}

func equalStrings(x, y []string) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// compareStrings is compare_strings: equal once every non-word character is
// gone; or, when either has exactly one word (and both have some), one set
// of words inside the other; or a difflib ratio above 0.95.
func compareStrings(a, g string) bool {
	if dropNonWord(a) == dropNonWord(g) {
		return true
	}
	wa, wg := words(pyLower(a)), words(pyLower(g))
	if (len(wa) == 1 || len(wg) == 1) && len(wa) > 0 && len(wg) > 0 {
		sa, sg := wordSet(wa), wordSet(wg)
		return subset(sa, sg) || subset(sg, sa)
	}
	return ratio(a, g) > 0.95
}

func dropNonWord(s string) string {
	return strings.Map(func(r rune) rune {
		if isWord(r) {
			return r
		}
		return -1
	}, s)
}

// words is re.findall(r"\b\w+\b", s): the runs of word characters, a
// repeated word counted each time ("no no" is two words).
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !isWord(r) })
}

func wordSet(ws []string) map[string]bool {
	set := map[string]bool{}
	for _, w := range ws {
		set[w] = true
	}
	return set
}

// subset: set(x) <= set(y).
func subset(x, y map[string]bool) bool {
	for w := range x {
		if !y[w] {
			return false
		}
	}
	return true
}
