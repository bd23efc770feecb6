package eda

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// pyString quotes s as a Python string literal. Printable characters stay
// as they are (é, 日本, <script>); quotes, backslashes, control and
// invisible characters (newlines, bidi overrides, zero-width spaces) are
// escaped, so the literal reads the same in an editor as to Python.
func pyString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r == ' ' || unicode.IsPrint(r):
			b.WriteRune(r) // also U+FFFD for invalid UTF-8 (names come from JSON: valid)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// pyList renders names as a Python list of string literals, one line when
// short, else wrapped at about 88 characters with a four-space indent.
func pyList(names []string) string {
	items := make([]string, len(names))
	total := 2
	for i, n := range names {
		items[i] = pyString(n)
		total += len(items[i]) + 2
	}
	if total <= 80 {
		return "[" + strings.Join(items, ", ") + "]"
	}
	var b strings.Builder
	b.WriteString("[\n")
	line := 0
	for _, it := range items {
		if line > 0 && line+len(it)+2 > 84 {
			b.WriteString("\n")
			line = 0
		}
		if line == 0 {
			b.WriteString("    ")
			line = 4
		} else {
			b.WriteString(" ")
			line++
		}
		b.WriteString(it)
		b.WriteString(",")
		line += len(it) + 1
	}
	b.WriteString("\n]")
	return b.String()
}

// mdCode renders s as a markdown code span: nothing in it is read as
// markdown, HTML or math. Line breaks become spaces (a code span cannot
// hold a paragraph break); the fence is longer than any run of backticks
// inside, as CommonMark requires.
func mdCode(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' || r == utf8.RuneError {
			return ' '
		}
		if !unicode.IsPrint(r) && r != ' ' {
			return '\uFFFD'
		}
		return r
	}, s)
	if strings.TrimSpace(s) == "" {
		return "(a blank name)"
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdList renders names as a comma-separated list of code spans.
func mdList(names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = mdCode(n)
	}
	return strings.Join(parts, ", ")
}

// constants is tmpl with its run's constants set: each key NAME is a
// top-level assignment "NAME = default" of tmpl (a comment after the value
// stays), whose default, on one line or bracketed over several, becomes
// value. The defaults make the file Python that runs on its own (its unit
// tests); the run's values replace them. A key the template lacks, or sets
// twice, is a mistake in analyst and panics: the stages' tests render every
// template.
func constants(tmpl string, kv ...string) string {
	if len(kv)%2 != 0 {
		panic(fmt.Sprintf("eda: constants: %d arguments, want name-value pairs", len(kv)))
	}
	// Every value's place is found in the template before any is set, so a
	// value (a baseline's sketch, a column's name) is never searched.
	type span struct {
		start, end int
		value      string
	}
	spans := make([]span, 0, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		start, end := constantValue(tmpl, kv[i])
		spans = append(spans, span{start, end, kv[i+1]})
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	var b strings.Builder
	at := 0
	for _, s := range spans {
		if s.start < at {
			panic("eda: constants: a constant is given twice")
		}
		b.WriteString(tmpl[at:s.start])
		b.WriteString(s.value)
		at = s.end
	}
	b.WriteString(tmpl[at:])
	return b.String()
}

// constantValue is where the value of the one top-level assignment to name
// in tmpl starts and ends: at the end of its line, or of the line where its
// brackets close, before a comment.
func constantValue(tmpl, name string) (start, end int) {
	prefix := name + " = "
	start = -1
	for at := 0; at < len(tmpl); {
		if (at == 0 || tmpl[at-1] == '\n') && strings.HasPrefix(tmpl[at:], prefix) {
			if start >= 0 {
				panic(fmt.Sprintf("eda: constants: %s is set twice in a template", name))
			}
			start = at + len(prefix)
		}
		next := strings.IndexByte(tmpl[at:], '\n')
		if next < 0 {
			break
		}
		at += next + 1
	}
	if start < 0 {
		panic(fmt.Sprintf("eda: constants: the template sets no %s", name))
	}
	return start, start + valueLength(tmpl[start:])
}

// valueLength is the length of the Python expression that s starts with:
// up to the newline or "  #" outside brackets and string literals.
func valueLength(s string) int {
	depth, quote := 0, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '(' || c == '{':
			depth++
		case c == ']' || c == ')' || c == '}':
			depth--
		case depth == 0 && (c == '\n' || strings.HasPrefix(s[i:], "  #")):
			return i
		}
	}
	return len(s)
}
