package dabstep

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/evals/dabench"
)

// Python's \d on str is any Unicode decimal digit (Nd); Go's is ASCII.
var (
	// numericWithCommas is is_numeric_with_commas: thousands groups with
	// commas and an optional decimal part, or a plain decimal with '.' or
	// ',', after an optional '$', as the whole (stripped) string.
	numericWithCommas = regexp.MustCompile(`^\$?(?:\p{Nd}{1,3}(?:,\p{Nd}{3})+(?:\.\p{Nd}+)?|\p{Nd}+[.,]\p{Nd}+)$`)
	// firstNumber is extract_numeric's search: no sign, an optional '%'
	// after it that is not part of the number.
	firstNumber = regexp.MustCompile(`(\p{Nd}*\.\p{Nd}+|\p{Nd}+\.?\p{Nd}*)%?`)
)

// extractNumeric is extract_numeric: the first unsigned number in s once
// every ',' and '$' is gone, as Python's float() reads it.
func extractNumeric(s string) (float64, bool) {
	s = strings.NewReplacer(",", "", "$", "").Replace(s)
	m := firstNumber.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	f, err := dabench.ParsePyFloat(m[1])
	return f, err == nil
}

// compareNumeric is compare_numeric: equal; or both below 1 and close; or
// equal once both are rounded to the fewer decimals their Python str()
// shows; or close.
func compareNumeric(x, y float64) bool {
	if x == y {
		return true
	}
	if x < 1 && y < 1 {
		return isClose(x, y)
	}
	n := min(reprDecimals(x), reprDecimals(y))
	if pyRound(x, n) == pyRound(y, n) {
		return true
	}
	return isClose(x, y)
}

// reprDecimals is len(str(x).split(".")[-1]) if "." in str(x) else 0: the
// characters after the point, exponent included ("1.5e-05" counts 5,
// "1e-05" none).
func reprDecimals(x float64) int {
	s := dabench.PyFloatRepr(x)
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

// isClose is math.isclose(x, y, rel_tol=1e-4, abs_tol=1e-4).
func isClose(x, y float64) bool {
	const rel, abs = 1e-4, 1e-4
	if x == y {
		return true
	}
	if math.IsInf(x, 0) || math.IsInf(y, 0) {
		return false
	}
	d := math.Abs(y - x)
	return d <= math.Abs(rel*y) || d <= math.Abs(rel*x) || d <= abs
}

// pyRound is Python's round(x, n) for n >= 0: the double nearest to x
// correctly rounded to n decimals, ties to even on x's exact value (Go's
// 'f' formatting rounds the same way). Infinities and NaN round to
// themselves, and n beyond 323 leaves x as it is, as in CPython.
func pyRound(x float64, n int) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) || n > 323 {
		return x
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', n, 64), 64)
	return r
}
