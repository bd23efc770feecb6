package dabench

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// errNotFloat is a string Python's float() rejects.
var errNotFloat = errors.New("not a Python float literal")

// ParsePyFloat parses s as Python 3's float(s) does for a str: Unicode
// whitespace around it, Unicode decimal digits, '_' between digits, an
// optional sign, decimal and exponent forms, and inf, infinity and nan in
// any case. Hex, thousands separators, '%' and anything else are rejected,
// as Python rejects them. Overflow gives ±Inf and underflow 0, as in Python.
func ParsePyFloat(s string) (float64, error) {
	ascii, ok := pyTransform(s)
	if !ok {
		return 0, errNotFloat
	}
	if strings.Contains(ascii, "_") {
		if ascii, ok = dropUnderscores(ascii); !ok {
			return 0, errNotFloat
		}
	}
	ascii = strings.Trim(ascii, " \t\n\v\f\r")
	if !pyFloatSyntax(ascii) {
		return 0, errNotFloat
	}
	if strings.EqualFold(strings.TrimLeft(ascii, "+-"), "nan") {
		return math.NaN(), nil // Go's ParseFloat refuses a signed NaN
	}
	f, err := strconv.ParseFloat(ascii, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return f, nil // ±Inf or 0, as Python gives
		}
		return 0, errNotFloat
	}
	return f, nil
}

// pyTransform is CPython's _PyUnicode_TransformDecimalAndSpaceToASCII:
// ASCII below 127 is kept, Unicode whitespace becomes ' ', a Unicode decimal
// digit becomes its ASCII digit, and anything else makes the string invalid.
func pyTransform(s string) (string, bool) {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 127:
			b.WriteRune(r)
		case PyIsSpace(r):
			b.WriteByte(' ')
		default:
			d := DecimalValue(r)
			if d < 0 {
				return "", false
			}
			b.WriteByte(byte('0' + d))
		}
	}
	return b.String(), true
}

// dropUnderscores is CPython's _Py_string_to_number_with_underscores: an
// underscore only between two digits.
func dropUnderscores(s string) (string, bool) {
	var b strings.Builder
	var prev byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' {
			if !isDigit(prev) {
				return "", false
			}
		} else {
			if prev == '_' && !isDigit(c) {
				return "", false
			}
			b.WriteByte(c)
		}
		prev = c
	}
	if prev == '_' {
		return "", false
	}
	return b.String(), true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// pyFloatSyntax accepts what CPython's float parser accepts once spaces and
// underscores are gone: [sign] (digits [. digits] | . digits) [e [sign]
// digits], or [sign] inf | infinity | nan in any case. Go's ParseFloat alone
// would also take hex and "0x" forms, which Python's float() refuses.
func pyFloatSyntax(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	switch strings.ToLower(s) {
	case "inf", "infinity", "nan":
		return true
	}
	i, digits := 0, 0
	for i < len(s) && isDigit(s[i]) {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && isDigit(s[i]) {
			i, exp = i+1, exp+1
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// pySpaces are the non-ASCII characters for which Python's str.isspace()
// is true (bidirectional class WS, B or S, or category Zs; Unicode 14 and
// 15 agree).
var pySpaces = map[rune]bool{
	0x85: true, 0xa0: true, 0x1680: true,
	0x2000: true, 0x2001: true, 0x2002: true, 0x2003: true, 0x2004: true, 0x2005: true,
	0x2006: true, 0x2007: true, 0x2008: true, 0x2009: true, 0x200a: true,
	0x2028: true, 0x2029: true, 0x202f: true, 0x205f: true, 0x3000: true,
}

// PyIsSpace reports whether Python's str.isspace() is true for r.
func PyIsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, ' ':
		return true
	}
	return pySpaces[r]
}

// DecimalValue is the value of a Unicode decimal digit (category Nd), or -1.
// Unicode encodes every decimal digit in a run of ten, zero first, so a
// digit's value is its distance from the start of its run, modulo ten.
func DecimalValue(r rune) int {
	if !unicode.IsDigit(r) {
		return -1
	}
	start := r
	for start > 0 && unicode.IsDigit(start-1) {
		start--
	}
	return int(r-start) % 10
}
