// Package mdheadings lists the headings of a Markdown document with their
// line numbers: what the model is told of a document it can read, and the
// sections the kernel's read_doc helper prints (eda/py/read_doc.py applies
// the same rules; a kernel test checks that both agree).
package mdheadings

import (
	"bufio"
	"io"
	"strings"
)

// Heading is an ATX heading ("## Fees"): its level (the number of #), the
// line it is on (from 1) and its text without the #s.
type Heading struct {
	Level int    `json:"level"`
	Line  int    `json:"line"`
	Text  string `json:"text"`
}

// Bounds on what Read reads and keeps, however long the document.
const (
	MaxBytes    = 4 << 20 // bytes of the document read for headings
	MaxHeadings = 500     // headings kept
	maxLine     = 64 << 10
)

// Result is the headings of a document and whether all of it was read.
type Result struct {
	Headings []Heading
	Lines    int // lines read
	// Truncated says the document was read only up to MaxBytes, or had more
	// than MaxHeadings headings: the list is of the first ones.
	Truncated bool
}

// Read lists the ATX headings of the Markdown in r, as CommonMark reads
// them: up to three spaces of indent, one to six #, then a space, a tab or
// the end of the line; a closing run of # is not part of the text. Lines
// inside fenced code blocks (``` or ~~~) are not headings. Setext headings
// (text underlined with === or ---) are not listed: read_doc does not
// find them either.
func Read(r io.Reader) (Result, error) {
	var res Result
	sc := bufio.NewScanner(io.LimitReader(r, MaxBytes+1))
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	read := 0
	fence := ""
	for sc.Scan() {
		line := sc.Text()
		read += len(line) + 1
		if read > MaxBytes+1 {
			res.Truncated = true
			break
		}
		res.Lines++
		if f, ok := fenceOf(line); ok {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(f, fence) && strings.Trim(strings.TrimLeft(strings.Trim(line, " \t"), f[:1]), " \t") == "":
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		if h, ok := heading(line); ok {
			if len(res.Headings) == MaxHeadings {
				res.Truncated = true
				continue
			}
			h.Line = res.Lines
			res.Headings = append(res.Headings, h)
		}
	}
	if err := sc.Err(); err != nil && err != bufio.ErrTooLong {
		return res, err
	} else if err == bufio.ErrTooLong {
		res.Truncated = true
	}
	return res, nil
}

// fenceOf is the fence a line opens or closes (``` or ~~~ and longer runs),
// indented at most three spaces.
func fenceOf(line string) (string, bool) {
	s := strings.TrimLeft(line, " ")
	if len(line)-len(s) > 3 || len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return "", false
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	if n < 3 || (s[0] == '`' && strings.Contains(s[n:], "`")) {
		return "", false
	}
	return s[:n], true
}

// heading reads an ATX heading line.
func heading(line string) (Heading, bool) {
	s := strings.TrimLeft(line, " ")
	if len(line)-len(s) > 3 {
		return Heading{}, false
	}
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(s) && s[n] != ' ' && s[n] != '\t') {
		return Heading{}, false
	}
	text := strings.Trim(s[n:], " \t")
	// A closing sequence: #s preceded by a space (or the whole text).
	if t := strings.TrimRight(text, "#"); t == "" {
		text = ""
	} else if len(t) < len(text) && (strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t")) {
		text = strings.Trim(t, " \t")
	}
	return Heading{Level: n, Text: text}, true
}
