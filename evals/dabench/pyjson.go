package dabench

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
)

// WriteOfficialJSON writes the official eval_outputs/NAME_evaluation_analysis.json
// byte for byte: Python's json.dump(..., indent=4) with ensure_ascii, float
// repr and keys in insertion order.
func (s *Scores) WriteOfficialJSON(w io.Writer) error {
	num := pyFloatRepr
	main := [][2]string{
		{"Accuracy by Question", num(s.Official.ABQ)},
		{"Accuracy Proportional by Sub-Question", num(s.Official.PSAQ)},
		{"Accuracy by Sub-Question", num(s.Official.UASQ)},
	}
	if s.ZeroResults { // the official functions return the int 0
		for i := range main {
			main[i][1] = "0"
		}
	}
	var b strings.Builder
	b.WriteString("{\n    \"main_results\": ")
	pyObject(&b, main)
	b.WriteString(",\n    \"concept_accuracy_analysis\": ")
	pyObject(&b, accPairs(s.Concepts))
	b.WriteString(",\n    \"concept_count_accuracy_analysis\": ")
	pyObject(&b, accPairs(s.ConceptCounts))
	b.WriteString(",\n    \"two_or_more_concepts_accuracy\": ")
	if s.TwoOrMore == nil {
		b.WriteString("null")
	} else {
		b.WriteString(num(s.TwoOrMore.Value))
	}
	b.WriteString("\n}")
	_, err := io.WriteString(w, b.String())
	return err
}

func accPairs(as []Accuracy) [][2]string {
	var kv [][2]string
	for _, a := range as {
		kv = append(kv, [2]string{a.Key, pyFloatRepr(a.Value)})
	}
	return kv
}

// pyObject writes a one-level dict nested at depth 1 with indent=4.
func pyObject(b *strings.Builder, kv [][2]string) {
	if len(kv) == 0 {
		b.WriteString("{}")
		return
	}
	b.WriteString("{\n")
	for i, p := range kv {
		b.WriteString("        " + pyString(p[0]) + ": " + p[1])
		if i < len(kv)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("    }")
}

// pyString is json.dumps(s) with ensure_ascii=True.
func pyString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || (r > 0x7e && r < 0x10000):
			fmt.Fprintf(&b, `\u%04x`, r)
		case r >= 0x10000:
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// pyFloatRepr is Python's repr(float) as json writes it: NaN, Infinity and
// -Infinity where repr says nan, inf and -inf.
func pyFloatRepr(x float64) string {
	s := PyFloatRepr(x)
	if j, ok := jsonSpecials[s]; ok {
		return j
	}
	return s
}

var jsonSpecials = map[string]string{"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}

// PyFloatRepr is Python 3's repr(x) (and str(x)) of a float: the shortest
// digits that read back as x, in fixed notation for exponents from -4 to
// 15 (always with a ".0" when whole) and in scientific notation with at
// least two exponent digits elsewhere.
func PyFloatRepr(x float64) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(x, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		mant, ex, _ := strings.Cut(e, "e")
		sign := ex[0]
		digits := strings.TrimLeft(ex[1:], "0")
		for len(digits) < 2 {
			digits = "0" + digits
		}
		return mant + "e" + string(sign) + digits
	}
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
