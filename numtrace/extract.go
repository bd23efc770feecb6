package numtrace

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/analyst-cli/analyst/internal/namedvalue"
)

// Number is one number stated in a text.
type Number struct {
	// Text is the number as written, with its sign, currency, percent sign
	// or scale word ("-$1.2k", "12.3%", "1.2 million").
	Text string `json:"text"`
	// Value is what Text means: 12.3 for "12.3%", 1200000 for "1.2
	// million", -5 for "−5".
	Value float64 `json:"value"`
	// Decimals is how many decimals the mantissa was written with: 1 for
	// "12.3%", "1.2 million" and "1.2e-5", 0 for "1,234".
	Decimals int `json:"decimals"`
	// Scale is the multiplier a word, suffix or exponent gave the mantissa
	// (1e6 for "1.2 million", 1e3 for "$1.2k", 1e-5 for "1.2e-5"); 1 if none.
	Scale float64 `json:"scale"`
	// Percent says the number was written as a percentage.
	Percent bool `json:"percent,omitempty"`
	// Signed says the number was written with a minus sign.
	Signed bool `json:"signed,omitempty"`
	// Answer is the name of the @name[value] marker the number is in, ""
	// for a number in prose.
	Answer string `json:"answer,omitempty"`
	// Start and End are the byte span of Text in the text it came from
	// (not recorded: a record keeps the numbers, not the text).
	Start int `json:"-"`
	End   int `json:"-"`
}

// mantissa is the number before its scale: 1.2 for "1.2 million".
func (n Number) mantissa() float64 { return math.Abs(n.Value) / n.Scale }

// exact says the number only matches an equal value: a plain integer,
// without decimals, percent or scale, is a count or an identifier-like
// figure, never a rounding of something else.
func (n Number) exact() bool { return n.Decimals == 0 && n.Scale == 1 && !n.Percent }

// skipRe finds the parts of prose that are not claims: fenced code blocks,
// inline code spans and URLs.
var skipRe = regexp.MustCompile("(?s)```.*?(?:```|$)|`[^`\n]*`|https?://[^\\s)\\]>]+")

// Extract returns every number text states as a claim, in order. Numbers
// that are not claims are left out:
//   - numbers inside fenced code, `inline code` and URLs;
//   - list markers ("1. ", "2) " at the start of a line) and the ordinal
//     that opens a heading ("## 2. Results");
//   - references: a number after cell, step, figure, fig., table, chart,
//     goal, finding, question, section, part, page or "#";
//   - numbers inside words and identifiers ("Q3", "col_2020", "COVID-19",
//     "x2"), ordinals ("3rd"), version numbers ("3.11.2");
//   - dates and times ("2024-03-01", "2024-03", "03/01/2024", "12:30"): a
//     date is a label the model read, not a number it computed, and its
//     parts ("03") would otherwise be claims of their own. A year standing
//     alone ("in 2024") is a number like any other;
//   - numbers whose value one of the given texts (the question, the
//     column names) states as a claim: they were given, not computed.
//
// Numbers inside @name[value] markers are returned with Answer set.
func Extract(text string, given ...string) []Number {
	var skip [][]int
	skip = append(skip, skipRe.FindAllStringIndex(text, -1)...)
	answers := namedvalue.Find(text)
	nums := scan(text, true)
	givenVals := map[float64]bool{}
	for _, g := range given {
		// Only what the given text states as a quantity is given: "goal 2"
		// or "step 3" there gives no 2 or 3 (the exploration's questions
		// name their goal).
		for _, n := range Extract(g) {
			givenVals[n.Value] = true
			givenVals[-n.Value] = true
		}
	}
	out := nums[:0]
	for _, n := range nums {
		if inside(skip, n.Start) || givenVals[n.Value] || listMarker(text, n) || reference(text, n.Start) {
			continue
		}
		for _, a := range answers {
			if n.Start >= a.ValueStart && n.End <= a.ValueEnd {
				n.Answer = a.Name
			}
		}
		out = append(out, n)
	}
	return out
}

func inside(spans [][]int, pos int) bool {
	for _, s := range spans {
		if pos >= s[0] && pos < s[1] {
			return true
		}
	}
	return false
}

// listMarker says n is a list item's number or a heading's ordinal.
func listMarker(text string, n Number) bool {
	lineStart := strings.LastIndexByte(text[:n.Start], '\n') + 1
	before := strings.TrimLeft(text[lineStart:n.Start], " \t>")
	after := text[n.End:]
	marker := strings.HasPrefix(after, ". ") || strings.HasPrefix(after, ") ") || after == "." || after == ")" ||
		strings.HasPrefix(after, ".\n") || strings.HasPrefix(after, ":")
	if before == "" {
		return marker && n.Decimals == 0 && !n.Signed
	}
	if h := strings.TrimLeft(before, "#"); h != before && strings.TrimSpace(h) == "" {
		return n.Decimals == 0 && !n.Signed && (marker || strings.HasPrefix(after, " "))
	}
	return false
}

var referenceWords = map[string]bool{
	"cell": true, "cells": true, "step": true, "figure": true, "fig": true, "fig.": true,
	"table": true, "chart": true, "goal": true, "finding": true, "question": true,
	"section": true, "part": true, "page": true,
}

// reference says the number at start names a cell, step, figure, ...
func reference(text string, start int) bool {
	before := text[:start]
	if strings.HasSuffix(before, "#") {
		return true
	}
	if !strings.HasSuffix(before, " ") {
		return false
	}
	before = strings.TrimRight(before, " ")
	i := strings.LastIndexFunc(before, func(r rune) bool { return !unicode.IsLetter(r) && r != '.' })
	return referenceWords[strings.ToLower(before[i+1:])]
}

// groupSeps removes thousands separators.
var groupSeps = strings.NewReplacer(",", "", " ", "", "\u00a0", "", "\u202f", "", "\u2009", "")

// currencies are the symbols a number may be prefixed with ("$1.2k").
const currencies = "$€£¥"

// scaleWords are the words and suffixes that multiply a number.
var scaleWords = []struct {
	word  string
	scale float64
	space bool // written after a space ("1.2 million"), else right after ("1.2M")
}{
	{"thousand", 1e3, true}, {"million", 1e6, true}, {"billion", 1e9, true}, {"trillion", 1e12, true},
	{"k", 1e3, false}, {"K", 1e3, false}, {"M", 1e6, false}, {"mn", 1e6, false},
	{"B", 1e9, false}, {"bn", 1e9, false},
}

// scan finds the numbers of s. In prose, thousands may be grouped with
// spaces ("1 234") and scale words apply; in outputs (prose false) a space
// separates numbers, as in a printed table.
func scan(s string, prose bool) []Number {
	var out []Number
	i := 0
	for i < len(s) {
		if !isDigit(s[i]) {
			i++
			continue
		}
		n, end, ok := number(s, i, prose)
		if ok {
			out = append(out, n)
		}
		i = end
	}
	if prose {
		joinRanges(s, out)
	}
	return out
}

// number reads the number whose first digit is at i. It returns where
// scanning goes on, and ok false for a number that is not one (inside a
// word, a date, a version, an ordinal).
func number(s string, i int, prose bool) (Number, int, bool) {
	lead, signed, ok := numberLead(s, i)
	if !ok {
		return Number{}, skipWord(s, i), false
	}
	j, decimals, skip, ok := mantissaEnd(s, i, prose)
	if !ok {
		return Number{}, skip, false
	}
	mant := strings.TrimLeft(s[lead:j], currencies+"-−")
	if strings.ContainsAny(mant, ", \u00a0\u202f\u2009") {
		mant = groupSeps.Replace(mant)
	}
	v, err := strconv.ParseFloat(mant, 64)
	if err != nil {
		return Number{}, j, false
	}
	scale, j := exponent(s, j)
	percent, scale, j := numberSuffix(s, j, scale, prose)
	if scale == 1 && !percent {
		if end, word := wordSuffix(s, j); word {
			return Number{}, end, false
		}
	}
	if signed {
		v = -v
	}
	return Number{
		Text: s[lead:j], Value: v * scale, Decimals: decimals, Scale: scale,
		Percent: percent, Signed: signed, Start: lead, End: j,
	}, j, true
}

// numberLead is where the number whose first digit is at i starts, with
// what comes before its digits (a decimal point, a currency, a sign), and
// whether it is signed; ok is false when the digits are part of a word
// (x5, COVID-19).
func numberLead(s string, i int) (lead int, signed, ok bool) {
	lead = i
	if lead > 0 && s[lead-1] == '.' && (lead < 2 || !isDigit(s[lead-2])) {
		lead--
	}
	currency := false
	if r, w := lastRune(s[:lead]); strings.ContainsRune(currencies, r) {
		lead -= w
		currency = true
	}
	if r, w := lastRune(s[:lead]); r == '-' || r == '−' {
		if p, _ := lastRune(s[:lead-w]); !isWordRune(p) && !isDigitRune(p) {
			lead -= w
			signed = true
		}
	}
	if r, w := lastRune(s[:lead]); !currency && strings.ContainsRune(currencies, r) {
		lead -= w
	}
	if p, w := lastRune(s[:lead]); isWordRune(p) {
		return 0, false, false
	} else if p == '-' || p == '−' { // COVID-19, x-5
		if q, _ := lastRune(s[:lead-w]); isWordRune(q) {
			return 0, false, false
		}
	}
	return lead, signed, true
}

// mantissaEnd is the end of the digits starting at i: the integer part
// with thousands groups of exactly three digits, then the decimals. ok is
// false for a date, a time or a version, and skip is where scanning goes
// on then.
func mantissaEnd(s string, i int, prose bool) (j, decimals, skip int, ok bool) {
	j = digits(s, i)
	if j-i <= 3 {
		for {
			sep, w := sepAt(s, j, prose)
			if !sep || digits(s, j+w)-(j+w) != 3 {
				break
			}
			j += w + 3
		}
	}
	// Dates and times: 2024-03-01, 2024/03, 03/01/2024, 12:30.
	if j-i <= 4 && j+1 < len(s) && isDigit(s[j+1]) && (s[j] == '/' || s[j] == ':' || (s[j] == '-' && j-i == 4)) {
		return 0, 0, skipDate(s, j), false
	}
	if j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) {
		k := digits(s, j+1)
		decimals = k - j - 1
		j = k
		if j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) { // 3.11.2
			return 0, 0, skipDate(s, j), false
		}
	}
	return j, decimals, 0, true
}

// exponent reads an exponent at j (1.2e-5, 3E+06): the scale it gives
// (1 for none) and where the number goes on.
func exponent(s string, j int) (float64, int) {
	if j >= len(s) || (s[j] != 'e' && s[j] != 'E') {
		return 1, j
	}
	k := j + 1
	if k < len(s) && (s[k] == '-' || s[k] == '+') {
		k++
	}
	if e := digits(s, k); e > k {
		if exp, err := strconv.Atoi(strings.TrimPrefix(s[j+1:e], "+")); err == nil {
			return math.Pow(10, float64(exp)), e
		}
	}
	return 1, j
}

// numberSuffix reads a percent sign or word, or (in prose) a scale word
// such as "million", at j.
func numberSuffix(s string, j int, scale float64, prose bool) (percent bool, _ float64, _ int) {
	if rest := s[j:]; strings.HasPrefix(rest, "%") {
		return true, scale, j + 1
	} else if strings.HasPrefix(rest, " %") {
		return true, scale, j + 2
	} else if prose {
		if w := wordAt(rest, " "); w == "percent" || w == "per cent" {
			return true, scale, j + 1 + len(w)
		} else if strings.HasPrefix(rest, " per cent") && !isWordByte(rest, 9) {
			return true, scale, j + 9
		}
	}
	if scale != 1 || !prose {
		return false, scale, j
	}
	for _, sw := range scaleWords {
		sep := ""
		if sw.space {
			sep = " "
		}
		rest := s[j:]
		if strings.HasPrefix(rest, sep) && strings.HasPrefix(rest[len(sep):], sw.word) && !isWordByte(rest, len(sep)+len(sw.word)) {
			return false, sw.scale, j + len(sep) + len(sw.word)
		}
	}
	return false, scale, j
}

// wordSuffix says whether the letters at j make the number part of a word
// (an ordinal, 5th; an identifier, 3d_model, 2x4b), and where scanning
// goes on then.
func wordSuffix(s string, j int) (int, bool) {
	if j >= len(s) {
		return j, false
	}
	r, _ := utf8.DecodeRuneInString(s[j:])
	if r == '_' {
		return skipWord(s, j), true
	}
	if !unicode.IsLetter(r) {
		return j, false
	}
	w := j
	for w < len(s) && (s[w] >= 'a' && s[w] <= 'z' || s[w] >= 'A' && s[w] <= 'Z') {
		w++
	}
	suffix := strings.ToLower(s[j:w])
	if suffix == "st" || suffix == "nd" || suffix == "rd" || suffix == "th" ||
		w < len(s) && (isDigit(s[w]) || s[w] == '_') {
		return skipWord(s, w), true
	}
	return j, false
}

// joinRanges gives the first number of "10–20%" or "1.2 to 3.4 million"
// the percent sign or scale of the second.
func joinRanges(s string, nums []Number) {
	for k := 0; k+1 < len(nums); k++ {
		a, b := &nums[k], &nums[k+1]
		between := strings.TrimSpace(s[a.End:b.Start])
		if between != "-" && between != "–" && between != "—" && between != "to" {
			continue
		}
		if a.Percent || a.Scale != 1 || (!b.Percent && b.Scale == 1) || b.Signed {
			continue
		}
		a.Percent = b.Percent
		if last, _ := lastRune(b.Text); b.Scale != 1 && unicode.IsLetter(last) { // a scale word, not an exponent
			a.Value *= b.Scale
			a.Scale = b.Scale
		}
	}
}

// sepAt says a thousands separator starts at s[j], and its width.
func sepAt(s string, j int, prose bool) (bool, int) {
	if j >= len(s) {
		return false, 0
	}
	if s[j] == ',' {
		return true, 1
	}
	if !prose {
		return false, 0
	}
	if s[j] == ' ' {
		return true, 1
	}
	r, w := utf8.DecodeRuneInString(s[j:])
	return r == '\u00a0' || r == '\u202f' || r == '\u2009', w
}

func digits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// skipWord returns where the word (letters, digits, _ and .-joined parts)
// going on at i ends.
func skipWord(s string, i int) int {
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) && !isDigitRune(r) {
			break
		}
		i += w
	}
	return i
}

// skipDate returns where a date, time or version going on at i ends.
func skipDate(s string, i int) int {
	for i < len(s) && (isDigit(s[i]) || strings.IndexByte("-/:.T", s[i]) >= 0 && i+1 < len(s) && isDigit(s[i+1])) {
		i++
	}
	return i
}

// wordAt returns the letters after prefix at the start of s, if s starts
// with prefix.
func wordAt(s, prefix string) string {
	if !strings.HasPrefix(s, prefix) {
		return ""
	}
	s = s[len(prefix):]
	i := 0
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
		i++
	}
	return strings.ToLower(s[:i])
}

func isWordByte(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return isWordRune(r) || isDigitRune(r)
}

func lastRune(s string) (rune, int) {
	if s == "" {
		return 0, 0
	}
	return utf8.DecodeLastRuneInString(s)
}

func isDigit(b byte) bool     { return b >= '0' && b <= '9' }
func isDigitRune(r rune) bool { return r >= '0' && r <= '9' }
func isWordRune(r rune) bool  { return r == '_' || unicode.IsLetter(r) }
