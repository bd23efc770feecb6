package dabench

import "regexp"

// answerPattern is the official r"@(\w+)\[(.*?)\]" in Go's syntax. Python's
// \w on str is Unicode: letters (L*), numbers (N*) and '_' (Go's \w is
// ASCII only). As in Python without DOTALL, '.' stops at '\n' (and only
// there), and a value ends at the first ']'.
var answerPattern = regexp.MustCompile(`@([\p{L}\p{N}_]+)\[(.*?)\]`)

// Match is one @name[value] found in a response, in order.
type Match struct{ Name, Value string }

// FindAnswers returns every @name[value] in text, in order, as Python's
// re.findall does.
func FindAnswers(text string) []Match {
	var ms []Match
	for _, m := range answerPattern.FindAllStringSubmatch(text, -1) {
		ms = append(ms, Match{m[1], m[2]})
	}
	return ms
}

// Extract is the official dict(zip(names, values)): the last value of a
// name that occurs more than once wins.
func Extract(text string) map[string]string {
	out := map[string]string{}
	for _, m := range FindAnswers(text) {
		out[m.Name] = m.Value
	}
	return out
}

// IsEqual is the official is_equal: exact string equality (no trimming,
// case-sensitive), else both parse as Python floats less than 1e-6 apart.
// A missing prediction (ok false) is never equal. NaN equals nothing but
// the identical string.
func IsEqual(pred string, ok bool, label string) bool {
	if !ok {
		return false
	}
	if pred == label {
		return true
	}
	p, err := ParsePyFloat(pred)
	if err != nil {
		return false
	}
	l, err := ParsePyFloat(label)
	if err != nil {
		return false
	}
	d := p - l
	if d < 0 {
		d = -d
	}
	return d < 1e-6
}
