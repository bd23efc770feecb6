// Package namedvalue finds the @name[value] pairs of an answer, as DABench
// writes them: one reading for the agent (the answer's values), numtrace
// (which numbers are an answer's) and the report.
package namedvalue

import (
	"regexp"
	"strings"
)

// start opens a named value, @name[, as DABench's pattern
// (@(\w+)\[(.*?)\]) does.
var start = regexp.MustCompile(`@(\w+)\[`)

// Span is one @name[value] of a text: the pair is text[Start:End], its
// value text[ValueStart:ValueEnd].
type Span struct {
	Start, End           int
	ValueStart, ValueEnd int
	Name, Value          string
}

// Find returns the @name[value] pairs of text, in order, as DABench's
// pattern finds them (a value within its line), but a value runs to the
// bracket that closes its own: `@ids[[1, 2]]` is "[1, 2]", where the
// pattern would cut it at the first "]". A value whose brackets do not
// balance on its line ends at the first "]", as the pattern's.
func Find(text string) []Span {
	var out []Span
	for pos := 0; pos < len(text); {
		loc := start.FindStringSubmatchIndex(text[pos:])
		if loc == nil {
			break
		}
		open := pos + loc[1]
		end := closingBracket(text, open)
		if end < 0 { // no "]" on the line: not a named value
			pos = open
			continue
		}
		out = append(out, Span{Start: pos + loc[0], End: end + 1, ValueStart: open, ValueEnd: end,
			Name: text[pos+loc[2] : pos+loc[3]], Value: text[open:end]})
		pos = end + 1
	}
	return out
}

// closingBracket is the index of the "]" that closes a value starting at
// i: the one that balances the brackets after i, else the first; -1 when
// the line has none.
func closingBracket(text string, i int) int {
	line := text[i:]
	if nl := strings.IndexByte(line, '\n'); nl >= 0 {
		line = line[:nl]
	}
	first := strings.IndexByte(line, ']')
	if first < 0 {
		return -1
	}
	depth := 0
	for j, r := range line {
		switch r {
		case '[':
			depth++
		case ']':
			if depth == 0 {
				return i + j
			}
			depth--
		}
	}
	return i + first
}
