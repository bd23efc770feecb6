package dabstep

import (
	"math"
	"strings"
	"testing"
)

// Long strings for difflib's popular-element heuristic: a 235-character
// gold (more than 200, so characters found more than 3 times are never a
// match's seed) and an answer two edits away. Without the heuristic their
// ratio is 0.9957; with it 0.8419, so the answer is wrong.
const (
	longGold   = "merchant all march credit march march in the the of to in the applies fee credit of to transactions the fee merchant to the march to transactions all applies transactions applies fee applies merchant merchant of applies applies the the"
	longAnswer = "merchant all march credit march march in te the of to in the applies fee credit of to transactions the fee merchant to the march to transactions all applies transactions applies fee applies merchan merchant of applies applies the the"
	// 199 and 200 characters: the heuristic applies to the second string
	// only, so the verdict depends on which one is the gold.
	short199 = "to in the in all applies all the applies credit transactions the all fee the creditxof to transactions merchant credit of merchant credit transactions transactions to fee all all of of merchant merch"
	long200  = "to in the in all applies all the applies credit transactions the all fee the credit of to transactions merchant credit of merchant credit transactions transactions to fee all all of of merchant mercha"
)

// matchTests are question_scorer's rules, each with the cases its quirks
// decide. Every verdict was checked against the official scorer
// (TestAgreesWithTheOfficialScorer).
var matchTests = []struct {
	rule, answer, gold string
	want               bool
}{
	// Both stripped (Unicode whitespace) and lowercased as Python does.
	{"normalize", " NL ", "nl", true},
	{"normalize", "\u3000NL\u00a0", "NL", true},
	{"normalize", "ΟΔΟΣ", "οδος", true}, // a final Σ lowers to ς
	{"normalize", "ΟΔΟΣ", "οδοσ", false},

	// Either a number with thousands commas or a plain decimal with '.'
	// or ',': the first unsigned number of each, commas and '$' removed.
	{"comma number", "10,765", "10765", true},
	{"comma number", "$1,234.50", "1234.5", true},
	{"comma number", "-0.5", "0.5", true}, // the sign is not read
	{"comma number", "0,5", "0.5", false}, // a decimal comma is removed: 5
	{"comma number", "1,5", "15", true},
	{"comma number", "3.14", "pi is about 3.14", true},
	{"comma number", "1.50", "abc", false}, // no number in one: wrong, not a string match
	{"comma number", "2.5", "2.50", true},
	{"comma number", "1,000,000", "1e6", false}, // "1e6" reads as 1
	{"comma number", "12.0004", "12", true},     // rounded to 12's one decimal
	{"comma number", "12.06", "12", false},
	{"comma number", "0.731495413640441", "0.731495", true}, // both below 1: within 1e-4
	{"comma number", "0.5", "0.50009", true},
	{"comma number", "0.5", "0.5002", false},
	{"comma number", "3.14", "3.1483", false},
	{"comma number", "5.760000", "5.715872", false},

	// Else ',' or ';' in either: lists, sorted as strings, item by item.
	{"list", "1, 2, 3", "1,2,3", true},
	{"list", "b; a", "a, b", true},
	{"list", "a, b, c", "['a', 'b', 'c']", true},
	{"list", "[a, b, ]", "a, b", true},
	{"list", "C: 69.36, F: 77.90", "[C: 69.36, F: 77.9]", true},
	{"list", "1, 2", "1, 2, 3", false},
	{"list", "64", "64, 53, 454", false},
	{"list", "NL, BE", "BE", false},
	{"list", ",", "", true},                // two empty lists
	{"list", "10, 9", "10.0, 9.0", true},   // paired in string order: 10~10.0, 9~9.0
	{"list", "9, 10", "09, 10", false},     // string order pairs 10 with 09
	{"list", "1,234, 5", "1234, 5", false}, // the thousands comma splits: three items

	// Else a number found in both: compared as numbers.
	{"numbers", "42%", "42", true},
	{"numbers", "25", "25%", true},
	{"numbers", "-3", "3", true},
	{"numbers", "A) 10", "B) 10", true},
	{"numbers", "1e-05", "1", true}, // the exponent is not read
	{"numbers", "The answer is 7 (not 8)", "7", true},
	{"numbers", "10000", "10000.9 EUR", true}, // within rel 1e-4
	{"numbers", "30", "30.1 EUR", false},
	{"numbers", strings.Repeat("1", 400), strings.Repeat("2", 400), true}, // both overflow to inf

	// Else strings.
	{"strings", "Hello World", "hello world", true},
	{"strings", " sea  gull ", "seagull", true},
	{"strings", "not applicable.", "Not Applicable", true},
	{"strings", "", "", true},
	{"strings", "Netherlands", "NL", false},
	{"strings", "", "Inditex", false},
	{"strings", "C", "C) both ip_address and email_address", true}, // one word, inside the other's
	{"strings", "D", "A) Oranges", false},
	{"strings", "Applicable", "Not Applicable", true}, // one word inside the gold's two
	{"strings", "yes", "yes and no", true},
	{"strings", "no no", "no", true},
	{"strings", "yes please", "no thanks", false},
	{"strings", "the merchant crossfit hanna", "the merchant crossfit hannah", true}, // ratio 0.98
	{"strings", longAnswer, longGold, false},
	{"strings", short199, long200, false},
	{"strings", long200, short199, true},
}

func TestMatch(t *testing.T) {
	for _, tt := range matchTests {
		if got := Match(tt.answer, tt.gold); got != tt.want {
			t.Errorf("%s: Match(%q, %q) = %v, want %v", tt.rule, tt.answer, tt.gold, got, tt.want)
		}
	}
}

func TestRatioPopularElements(t *testing.T) {
	if r := ratio(longAnswer, longGold); math.Abs(r-0.8418803418803419) > 1e-15 {
		t.Errorf("ratio with the heuristic = %v, want difflib's 0.8418803418803419", r)
	}
	if r := ratio("", ""); r != 1 {
		t.Errorf("ratio of two empty strings = %v, want 1", r)
	}
}

// reprDecimals counts what follows the point in Python's str(), exponent
// and all.
func TestReprDecimals(t *testing.T) {
	for _, tt := range []struct {
		x    float64
		want int
	}{{12, 1}, {12.25, 2}, {1e-05, 0}, {1.5e-05, 5}, {1e16, 0}, {1.5e16, 5}, {0.1, 1}, {math.Inf(1), 0}} {
		if got := reprDecimals(tt.x); got != tt.want {
			t.Errorf("reprDecimals(%v) = %d, want %d", tt.x, got, tt.want)
		}
	}
}
