package eda

import (
	"slices"
	"strings"
)

// A folder's tables are each profiled by the profile stage's code. Written
// into every table's section, that code (33 kB) made most of an eval
// case's notebook; instead the first table's section defines it once, one
// function per code cell of the stage, and every table's cells call them.
// A function runs its cell's code as the cell would at top level: every
// name the code binds is declared global, so the notebook's names are
// the same after the call as after the cell (the report, the model and
// the stages after read them), and the cell's last expression is returned,
// so the call cell displays what the cell displayed.

// profileFunctionPrefix names a profile cell's function after its tag:
// run_profile_columns for the cell tagged profile-columns.
const profileFunctionPrefix = "run_"

// profileFunction is the name of the function of the profile cell tagged tag.
func profileFunction(tag string) string {
	return profileFunctionPrefix + strings.ReplaceAll(tag, "-", "_")
}

// profileFunctions is the cell that defines the profile stage's code cells
// as functions (profileAsFunction each).
func profileFunctions() Cell { return profileFunctionsOf(ProfileStage().Cells) }

// profileFunctionsOf is the cell that defines cells' code cells as
// functions.
func profileFunctionsOf(cells []Cell) Cell {
	var defs []string
	for _, c := range cells {
		if !c.Markdown {
			defs = append(defs, profileAsFunction(profileFunction(c.Tags[0]), c))
		}
	}
	return Plumbing(summaryProfileFunctions, Code(strings.Join(defs, "\n\n")))
}

const summaryProfileFunctions = "The profile's code, once for every table: each function runs one profile cell on df and load_info."

// profileCalls are the profile stage's cells with each code cell's code
// replaced by a call of its function (same tags, same summary); markdown
// is kept when withText.
func profileCalls(withText bool) []Cell {
	var cells []Cell
	for _, c := range ProfileStage().Cells {
		switch {
		case !c.Markdown:
			c.Source = profileFunction(c.Tags[0]) + "()"
			cells = append(cells, c)
		case withText:
			cells = append(cells, c)
		}
	}
	return cells
}

// profileAsFunction is the code of c as a function named name: its lines
// indented (not those inside a multi-line string, whose text would
// change), every name it may bind declared global, its last line returned
// when it is an expression at top level (a name, as profile_summary.py's
// overview).
func profileAsFunction(name string, c Cell) string {
	lines := strings.SplitAfter(strings.TrimRight(c.Code(), "\n"), "\n")
	inString := pyStringLines(c.Code())
	var b strings.Builder
	b.WriteString("def " + name + "():\n")
	b.WriteString("    \"\"\"The profile cell tagged " + c.Tags[0] + ", as it runs at top level.\"\"\"\n")
	for _, g := range wrapNames(pyNames(c.Code()), 100) {
		b.WriteString("    global " + g + "\n")
	}
	for i, line := range lines {
		last := i == len(lines)-1
		switch {
		case inString[i] || strings.TrimSpace(line) == "":
			b.WriteString(line)
		case last && isPyIdentifier(line):
			b.WriteString("    return " + line)
		default:
			b.WriteString("    " + line)
		}
	}
	return b.String()
}

// wrapNames joins names with ", " into lines of about width characters.
func wrapNames(names []string, width int) []string {
	var out []string
	var line string
	for _, n := range names {
		if line != "" && len(line)+len(n) > width {
			out = append(out, line)
			line = ""
		}
		if line != "" {
			line += ", "
		}
		line += n
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}

// pyKeywords are Python's keywords, which a global statement cannot name.
var pyKeywords = []string{"False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", //houserules:literal Python's keywords
	"continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
	"lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield"}

// pyNames are the names Python code may bind at its top level: its
// identifiers outside strings and comments, less keywords and the names
// every use of which cannot bind (an attribute, after a '.'; a call,
// name(...), not after def or class; a keyword argument, name=... inside
// brackets), sorted. Declaring global a name the code only reads changes
// nothing (it was global), so a superset of the bound names is as right as
// the set; a name left out that the code binds would be the function's own.
func pyNames(src string) []string {
	bindable := map[string]bool{}
	scanPy(src, func(w pyWord) {
		if slices.Contains(pyKeywords, w.text) {
			return
		}
		rest := strings.TrimLeft(w.rest, " \t")
		call := strings.HasPrefix(rest, "(") && w.before != "def" && w.before != "class"
		keyword := w.depth > 0 && strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==")
		bindable[w.text] = bindable[w.text] || !(w.afterDot || call || keyword)
	}, nil)
	var names []string
	for n, ok := range bindable {
		if ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// pyWord is an identifier scanPy found: its text, whether it follows a
// '.', the code after it, the depth of brackets it is in, and the
// identifier before it.
type pyWord struct {
	text, rest, before string
	afterDot           bool
	depth              int
}

// pyStringLines says, per line of src, whether it starts inside a string
// (a triple-quoted one that spans lines).
func pyStringLines(src string) []bool {
	starts := []bool{false}
	scanPy(src, nil, func(insideString bool) { starts = append(starts, insideString) })
	return starts
}

// scanPy reads Python code: word for each identifier outside strings and
// comments, line at each line end with whether the next line starts inside
// a string. Numbers are skipped whole.
func scanPy(src string, word func(pyWord), line func(insideString bool)) {
	prevDot, depth, before := false, 0, ""
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			if line != nil {
				line(false)
			}
			i++
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			i = skipPyString(src, i, line)
			prevDot, before = false, ""
		case isIdentStart(c):
			j := i
			for j < len(src) && (isIdentStart(src[j]) || isDigit(src[j])) {
				j++
			}
			if j < len(src) && (src[j] == '"' || src[j] == '\'') && isStringPrefix(src[i:j]) {
				i = skipPyString(src, j, line)
				prevDot, before = false, ""
				continue
			}
			if word != nil {
				word(pyWord{text: src[i:j], rest: src[j:min(len(src), j+3)], before: before, afterDot: prevDot, depth: depth})
			}
			prevDot, before, i = false, src[i:j], j
		case isDigit(c):
			for i < len(src) && (isIdentStart(src[i]) || isDigit(src[i]) || src[i] == '.') {
				i++
			}
			prevDot, before = false, ""
		default:
			switch c {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth = max(0, depth-1)
			}
			if c != ' ' && c != '\t' {
				prevDot, before = c == '.', ""
			}
			i++
		}
	}
}

// skipPyString returns the index after the string literal opening at
// src[i], reporting the line ends inside it.
func skipPyString(src string, i int, line func(bool)) int {
	q := src[i : i+1]
	if strings.HasPrefix(src[i:], q+q+q) {
		q = q + q + q
	}
	for j := i + len(q); j < len(src); j++ {
		switch {
		case src[j] == '\\':
			j++
			if j < len(src) && src[j] == '\n' && line != nil {
				line(true)
			}
		case src[j] == '\n':
			if line != nil {
				line(len(q) == 3)
			}
		case strings.HasPrefix(src[j:], q):
			return j + len(q)
		}
	}
	return len(src)
}

func isIdentStart(c byte) bool { return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }
func isDigit(c byte) bool      { return '0' <= c && c <= '9' }

// isStringPrefix: r, b, f, u and their pairs, in any case.
func isStringPrefix(p string) bool {
	return len(p) <= 2 && strings.Trim(strings.ToLower(p), "rbfu") == ""
}

// isPyIdentifier says whether line (its line end aside) is a bare name at
// the start of the line.
func isPyIdentifier(line string) bool {
	s := strings.TrimRight(line, "\n")
	if s == "" || !isIdentStart(s[0]) || slices.Contains(pyKeywords, s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentStart(s[i]) && !isDigit(s[i]) {
			return false
		}
	}
	return true
}
