package dabench

import (
	"encoding/json"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/analyst-cli/analyst/internal/hostpython"
)

func runPython(t *testing.T, script string, input any) []byte {
	t.Helper()
	return hostpython.Run(t, input, "-c", script)
}

// floatCorpus is every string of up to three atoms, plus random ones.
func floatCorpus() []string {
	atoms := []string{"", "1", "09", "_", ".", "e", "E", "+", "-", " ", "\t", "\u00a0", "\u3000", "١", "𝟝", "inf",
		"Infinity", "nan", "x", "0x", ",", "%", "\u200b", "\x1c", "\ufeff", "1e5", "١_٢"}
	var out []string
	for _, a := range atoms {
		for _, b := range atoms {
			for _, c := range atoms {
				out = append(out, a+b+c)
			}
		}
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for j := rng.Intn(6); j >= 0; j-- {
			b.WriteString(atoms[rng.Intn(len(atoms))])
		}
		out = append(out, b.String(), strconv.FormatFloat(rng.NormFloat64()*math.Pow(10, float64(rng.Intn(40)-20)), 'g', rng.Intn(20)+1, 64))
	}
	return out
}

func TestParsePyFloatAgreesWithPython(t *testing.T) {
	corpus := floatCorpus()
	out := runPython(t, `
import json, sys
res = []
for s in json.load(sys.stdin):
    try:
        res.append(float(s).hex())
    except ValueError:
        res.append(None)
json.dump(res, sys.stdout)
`, corpus)
	var want []*string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i, s := range corpus {
		got, err := ParsePyFloat(s)
		switch {
		case want[i] == nil && err == nil:
			t.Errorf("float(%q) raises in Python; ParsePyFloat gave %v", s, got)
		case want[i] != nil && err != nil:
			t.Errorf("float(%q) = %s in Python; ParsePyFloat refused it", s, *want[i])
		case want[i] != nil && pyHex(got) != *want[i]:
			t.Errorf("float(%q) = %s in Python; ParsePyFloat gave %s", s, *want[i], pyHex(got))
		default:
			continue
		}
		if bad++; bad > 20 {
			t.Fatal("too many differences")
		}
	}
	t.Logf("%d strings agree with Python's float()", len(corpus))
}

// pyHex is Python's float.hex(x).
func pyHex(x float64) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	case x == 0:
		if math.Signbit(x) {
			return "-0x0.0p+0"
		}
		return "0x0.0p+0"
	}
	// Go's %x gives 0x1.8p+01; Python gives 0x1.8000000000000p+1.
	frac, exp := math.Frexp(x) // x = frac * 2^exp, 0.5 <= |frac| < 1
	sign := ""
	if frac < 0 {
		sign, frac = "-", -frac
	}
	bits := math.Float64bits(frac*2) & (1<<52 - 1)
	lead := 1
	e := exp - 1
	if e < -1022 { // subnormal
		bits = math.Float64bits(x) & (1<<52 - 1)
		lead, e = 0, -1022
	}
	return sign + "0x" + strconv.Itoa(lead) + "." + leftPad(strconv.FormatUint(bits, 16), 13) + "p" + signed(e)
}

func leftPad(s string, n int) string { return strings.Repeat("0", n-len(s)) + s }

func signed(e int) string {
	if e >= 0 {
		return "+" + strconv.Itoa(e)
	}
	return strconv.Itoa(e)
}

// TestUnicodeTablesAgreeWithPython checks \w, str.isspace() and decimal
// digit values on every code point that Python's Unicode database assigns
// (Go's tables may be a newer Unicode version; code points unassigned in
// Python's are left out).
func TestUnicodeTablesAgreeWithPython(t *testing.T) {
	out := runPython(t, `
import json, re, sys, unicodedata
w = re.compile(r"\w")
res = {"unicode": unicodedata.unidata_version, "word": [], "space": [], "decimal": {}, "unassigned": []}
for c in range(0x110000):
    ch = chr(c)
    if unicodedata.category(ch) == "Cn":
        res["unassigned"].append(c)
        continue
    if w.match(ch):
        res["word"].append(c)
    if ch.isspace():
        res["space"].append(c)
    d = unicodedata.decimal(ch, -1)
    if d >= 0:
        res["decimal"][c] = d
json.dump(res, sys.stdout)
`, nil)
	var py struct {
		Unicode    string
		Word       []rune
		Space      []rune
		Decimal    map[rune]int
		Unassigned []rune
	}
	if err := json.Unmarshal(out, &py); err != nil {
		t.Fatal(err)
	}
	skip := map[rune]bool{}
	for _, r := range py.Unassigned {
		skip[r] = true
	}
	word, space := map[rune]bool{}, map[rune]bool{}
	for _, r := range py.Word {
		word[r] = true
	}
	for _, r := range py.Space {
		space[r] = true
	}
	bad := 0
	for r := rune(0); r < 0x110000; r++ {
		if skip[r] || (r >= 0xd800 && r <= 0xdfff) || !utf8.ValidRune(r) {
			continue
		}
		s := string(r)
		gotWord := answerPattern.MatchString("@" + s + "[]")
		dv, ok := py.Decimal[r]
		if !ok {
			dv = -1
		}
		if gotWord != word[r] || PyIsSpace(r) != space[r] || DecimalValue(r) != dv {
			t.Errorf("U+%04X: Go \\w %v space %v decimal %d; Python %v %v %d", r, gotWord, PyIsSpace(r), DecimalValue(r), word[r], space[r], dv)
			if bad++; bad > 20 {
				t.Fatal("too many differences")
			}
		}
	}
	t.Logf("agrees with Python's Unicode %s on %d assigned code points", py.Unicode, 0x110000-len(skip))
}

// TestRoundingAgreesWithPython: round(x, 4), f"{x:.2%}" and repr over
// shares k/n, the values the metrics take.
func TestRoundingAgreesWithPython(t *testing.T) {
	var xs []float64
	var reprs []string
	for n := 1; n <= 300; n++ {
		for k := 0; k <= n; k++ {
			xs = append(xs, float64(k)/float64(n))
			reprs = append(reprs, strconv.FormatFloat(float64(k)/float64(n), 'g', -1, 64))
		}
	}
	out := runPython(t, `
import json, sys
json.dump([[repr(round(float(x), 4)), f"{round(float(x), 4):.2%}"] for x in json.load(sys.stdin)], sys.stdout)
`, reprs)
	var want [][2]string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	for i, x := range xs {
		r := Round4(x)
		if got := [2]string{pyFloatRepr(r), Percent(r)}; got != want[i] {
			t.Fatalf("x = %v: Go %q, Python %q", x, got, want[i])
		}
	}
}
