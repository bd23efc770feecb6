package dabstep

import (
	"strings"
	"unicode"

	"github.com/analyst-cli/analyst/evals/dabench"
)

// pyStrip is Python's str.strip() with no argument: Unicode whitespace (as
// str.isspace() sees it) off both ends.
func pyStrip(s string) string { return strings.TrimFunc(s, dabench.PyIsSpace) }

// isWord is Python's \w on str: str.isalnum() or '_', which is every letter
// (L*) and number (N*).
func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) }

// pyLower is Python's str.lower(): full lowercasing (İ becomes i and a
// combining dot above) and Σ becomes ς at the end of a word (Unicode's
// Final_Sigma context), which Go's strings.ToLower does not do.
func pyLower(s string) string {
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range rs {
		switch r {
		case 'İ':
			b.WriteString("i\u0307")
		case 'Σ':
			if finalSigma(rs, i) {
				b.WriteRune('ς')
			} else {
				b.WriteRune('σ')
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma is CPython's handle_capital_sigma: the Σ at i follows a cased
// letter and is not followed by one, case-ignorable characters skipped on
// both sides.
func finalSigma(rs []rune, i int) bool {
	j := i - 1
	for j >= 0 && caseIgnorable(rs[j]) {
		j--
	}
	if j < 0 || !cased(rs[j]) {
		return false
	}
	j = i + 1
	for j < len(rs) && caseIgnorable(rs[j]) {
		j++
	}
	return j == len(rs) || !cased(rs[j])
}

// cased is Unicode's Cased property: Lowercase, Uppercase or titlecase.
func cased(r rune) bool {
	return unicode.IsLower(r) || unicode.IsUpper(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}

// midWord are the characters whose Word_Break property is MidLetter,
// MidNumLet or Single_Quote, which Go's unicode package does not carry.
var midWord = map[rune]bool{
	'\'': true, '.': true, ':': true, 0xb7: true, 0x387: true, 0x55f: true, 0x5f4: true,
	0x2018: true, 0x2019: true, 0x2024: true, 0x2027: true,
	0xfe13: true, 0xfe52: true, 0xfe55: true, 0xff07: true, 0xff0e: true, 0xff1a: true,
}

// caseIgnorable is Unicode's Case_Ignorable property: categories Mn, Me,
// Cf, Lm and Sk, and the mid-word punctuation.
func caseIgnorable(r rune) bool {
	return midWord[r] || unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}
