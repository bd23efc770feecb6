package dabstep

import (
	"encoding/json"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/analyst-cli/analyst/evals/dabench"
	"github.com/analyst-cli/analyst/internal/hostpython"
)

// TestMatchAgreesWithPython scores generated pairs with Match and with
// testdata/scorer.py, our transcription of the official rules in Python, so
// that Python's own str, re, float, round, isclose and difflib decide.
func TestMatchAgreesWithPython(t *testing.T) {
	pairs := generatedPairs(rand.New(rand.NewSource(1)), 3000)
	out := hostpython.Run(t, pairs, "testdata/scorer.py")
	var want []bool
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	bad, right := 0, 0
	for i, p := range pairs {
		got := Match(p[0], p[1])
		if got {
			right++
		}
		if got != want[i] {
			t.Errorf("Match(%q, %q) = %v, Python says %v", p[0], p[1], got, want[i])
			if bad++; bad > 20 {
				t.Fatal("too many differences")
			}
		}
	}
	t.Logf("%d pairs agree with Python (%d matches)", len(pairs), right)
	if right < len(pairs)/5 || right > len(pairs)*4/5 {
		t.Errorf("%d of %d pairs match: the generator should give both verdicts often", right, len(pairs))
	}
}

// pairAtoms are the pieces the pairs are made of: numbers in every form
// the rules tell apart, words, separators, brackets and Unicode that
// strip, lower and \w treat differently from Go's ASCII-minded defaults.
var pairAtoms = []string{
	"1,234", "1,234.5", "12,34", "0,5", "0.5", "-0.5", ".5", "5.", "$12", "12%", "1e-05", "1.5e3", "0.1",
	"3.14159", "3.1416", "10", "10.0", "9", "09", "100000", "100000.9", "0.50009", "١٢", "٣.٥",
	"12345678901234567890", "yes", "no", "Not Applicable", "NL", "nl", "GlobalCard", "İstanbul",
	"ΟΔΟΣ", "οδοσ", "straße", "Ǆ", "a.b", "x_y", "C)", "B. BE",
	",", ";", ", ", " ", "[", "]", "'", "\t", "\u00a0", "\u3000", "\u2028", "", "-", ":",
}

func generatedPairs(rng *rand.Rand, n int) [][2]string {
	atoms := func(k int) string {
		var b strings.Builder
		for i := 0; i < k; i++ {
			b.WriteString(pairAtoms[rng.Intn(len(pairAtoms))])
		}
		return b.String()
	}
	var pairs [][2]string
	for len(pairs) < n {
		gold := atoms(1 + rng.Intn(4))
		var answer string
		switch rng.Intn(6) {
		case 0:
			answer = atoms(1 + rng.Intn(4))
		case 1:
			answer = " " + strings.ToUpper(gold) + "\u00a0"
		case 2:
			answer = perturb(rng, gold)
		case 3:
			answer, gold = longText(rng), ""
			gold = perturb(rng, answer)
		case 4:
			answer = shuffledList(rng, gold)
		default:
			answer = gold
		}
		pairs = append(pairs, [2]string{answer, gold})
	}
	return pairs
}

// perturb changes one to three characters of s.
func perturb(rng *rand.Rand, s string) string {
	rs := []rune(s)
	for k := 1 + rng.Intn(3); k > 0 && len(rs) > 0; k-- {
		i := rng.Intn(len(rs))
		switch rng.Intn(3) {
		case 0:
			rs = append(rs[:i], rs[i+1:]...)
		case 1:
			rs[i] = rune("aeiou ,.5"[rng.Intn(9)])
		default:
			rs = append(rs[:i], append([]rune{rune("xyz 0"[rng.Intn(5)])}, rs[i:]...)...)
		}
	}
	return string(rs)
}

// longText is 150 to 400 characters of words, so that difflib's popular
// characters (more than 1% + 1 of a b of 200 or more) come into play.
func longText(rng *rand.Rand) string {
	words := []string{"the", "merchant", "fee", "rate", "applies", "to", "all", "credit", "transactions", "in", "march", "and", "april"}
	var b strings.Builder
	for n := 150 + rng.Intn(250); b.Len() < n; {
		b.WriteString(words[rng.Intn(len(words))])
		b.WriteByte(' ')
	}
	return b.String()
}

func shuffledList(rng *rand.Rand, s string) string {
	items := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' })
	rng.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	return "[" + strings.Join(items, "; ") + "]"
}

// TestRatioAgreesWithDifflib compares ratio with difflib's, bit for bit,
// on strings short and long (popular elements), and with a repeated
// alphabet where find_longest_match's tie-breaking decides.
func TestRatioAgreesWithDifflib(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	var pairs [][2]string
	for i := 0; i < 600; i++ {
		alphabet := []string{"ab", "abc ", "abcdefgh", "aé€😀 "}[i%4]
		n := []int{0, 5, 40, 199, 200, 201, 350}[rng.Intn(7)]
		a := randomString(rng, alphabet, n)
		b := randomString(rng, alphabet, []int{0, 5, 40, 199, 200, 201, 350}[rng.Intn(7)])
		if i%3 == 0 {
			b = perturb(rng, a)
		}
		pairs = append(pairs, [2]string{a, b})
	}
	out := hostpython.Run(t, pairs, "-c", `
import difflib, json, sys
json.dump([repr(difflib.SequenceMatcher(None, a, b).ratio()) for a, b in json.load(sys.stdin)], sys.stdout)
`)
	var want []string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	popular := 0
	for i, p := range pairs {
		if got := dabench.PyFloatRepr(ratio(p[0], p[1])); got != want[i] {
			t.Errorf("ratio(%q, %q) = %s, difflib %s", p[0], p[1], got, want[i])
		}
		if utf8.RuneCountInString(p[1]) >= 200 {
			popular++
		}
	}
	if popular < 100 {
		t.Errorf("only %d pairs with a b of 200 characters or more", popular)
	}
}

func randomString(rng *rand.Rand, alphabet string, n int) string {
	rs := []rune(alphabet)
	out := make([]rune, n)
	for i := range out {
		out[i] = rs[rng.Intn(len(rs))]
	}
	return string(out)
}

// TestLowerAgreesWithPython: str.lower() of every code point Python's
// Unicode database assigns, and Σ before and after each of them (the
// Final_Sigma context: which characters are cased, which case-ignorable).
func TestLowerAgreesWithPython(t *testing.T) {
	out := hostpython.Run(t, nil, "-c", `
import json, sys, unicodedata
res = {"unicode": unicodedata.unidata_version, "lower": {}, "after_cased": [], "between": [], "not_before": [], "unassigned": []}
for c in range(0x110000):
    ch = chr(c)
    if unicodedata.category(ch) in ("Cn", "Cs"):
        runs = res["unassigned"]
        if runs and runs[-1][1] == c - 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
        continue
    if ch.lower() != ch:
        res["lower"][c] = ch.lower()
    if (ch + "Σ").lower()[-1] == "ς":
        res["after_cased"].append(c)
    if ("a" + ch + "Σ").lower()[-1] == "ς":
        res["between"].append(c)
    if ("aΣ" + ch).lower()[1] != "ς":
        res["not_before"].append(c)
json.dump(res, sys.stdout)
`)
	var py struct {
		Unicode    string
		Lower      map[rune]string
		AfterCased []rune `json:"after_cased"`
		Between    []rune
		NotBefore  []rune `json:"not_before"`
		Unassigned [][2]rune
	}
	if err := json.Unmarshal(out, &py); err != nil {
		t.Fatal(err)
	}
	skip := map[rune]bool{}
	for _, run := range py.Unassigned {
		for r := run[0]; r <= run[1]; r++ {
			skip[r] = true
		}
	}
	afterCased, between, notBefore := runeSet(py.AfterCased), runeSet(py.Between), runeSet(py.NotBefore)
	bad := 0
	for r := rune(0); r < unicode.MaxRune+1; r++ {
		if skip[r] {
			continue
		}
		c := string(r)
		want, ok := py.Lower[r]
		if !ok {
			want = c
		}
		gotLower := pyLower(c)
		gotAfter := strings.HasSuffix(pyLower(c+"Σ"), "ς")
		gotBetween := strings.HasSuffix(pyLower("a"+c+"Σ"), "ς")
		gotNotBefore := []rune(pyLower("aΣ" + c))[1] != 'ς'
		if gotLower != want || gotAfter != afterCased[r] || gotBetween != between[r] || gotNotBefore != notBefore[r] {
			t.Errorf("U+%04X: lower %q, Σ after it final %v, between final %v, before not final %v; Python %q %v %v %v",
				r, gotLower, gotAfter, gotBetween, gotNotBefore, want, afterCased[r], between[r], notBefore[r])
			if bad++; bad > 20 {
				t.Fatal("too many differences")
			}
		}
	}
	t.Logf("agrees with Python's Unicode %s on %d assigned code points", py.Unicode, unicode.MaxRune+1-len(skip))
}

func runeSet(rs []rune) map[rune]bool {
	m := make(map[rune]bool, len(rs))
	for _, r := range rs {
		m[r] = true
	}
	return m
}

// TestNumbersAgreeWithPython: the pieces of compare_numeric against
// Python's str(), round() and math.isclose() on the numbers answers hold:
// money with two decimals, shares, long decimals, large and tiny values.
func TestNumbersAgreeWithPython(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var xs []float64
	for i := 0; i < 3000; i++ {
		switch i % 5 {
		case 0:
			xs = append(xs, float64(rng.Intn(1000000))/100)
		case 1:
			xs = append(xs, rng.Float64())
		case 2:
			xs = append(xs, rng.ExpFloat64()*math.Pow(10, float64(rng.Intn(40)-20)))
		case 3:
			xs = append(xs, float64(rng.Intn(2000))/8) // exact halves and eighths: ties
		default:
			xs = append(xs, math.Round(rng.Float64()*1e6)/1e6+float64(rng.Intn(100)))
		}
	}
	texts := make([]string, len(xs))
	for i, x := range xs {
		texts[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	out := hostpython.Run(t, texts, "-c", `
import json, math, sys
xs = [float(s) for s in json.load(sys.stdin)]
res = []
for i, x in enumerate(xs):
    y = xs[(i * 7 + 1) % len(xs)]
    n = i % 8
    res.append([str(x), repr(round(x, n)), math.isclose(x, y, rel_tol=1e-4, abs_tol=1e-4)])
json.dump(res, sys.stdout)
`)
	var want [][3]any
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	for i, x := range xs {
		y := xs[(i*7+1)%len(xs)]
		got := [3]any{dabench.PyFloatRepr(x), dabench.PyFloatRepr(pyRound(x, i%8)), isClose(x, y)}
		if got != want[i] {
			t.Errorf("x = %v, y = %v, n = %d: Go str, round, isclose %v; Python %v", x, y, i%8, got, want[i])
		}
	}
}

// TestPercentAgreesWithPython: the leaderboard's round(mean * 100, 2) for
// every k of n up to DABstep's 450 tasks.
func TestPercentAgreesWithPython(t *testing.T) {
	var pairs [][2]int
	for n := 1; n <= 450; n++ {
		for k := 0; k <= n; k++ {
			pairs = append(pairs, [2]int{k, n})
		}
	}
	out := hostpython.Run(t, pairs, "-c", `
import json, sys
json.dump(["%.2f%%" % round(k / n * 100, 2) for k, n in json.load(sys.stdin)], sys.stdout)
`)
	var want []string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	for i, p := range pairs {
		if got := (LevelScore{Right: p[0], Total: p[1]}).Percent(); got != want[i] {
			t.Fatalf("%d of %d: %s, Python %s", p[0], p[1], got, want[i])
		}
	}
}
