package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"sort"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/nbformat"
)

// NumberMark is a number stated in the answer, traced or not to a cell
// (see package numtrace).
type NumberMark struct {
	// Start and End are the number's byte span in Input.Answer.
	Start, End int
	// Cell is the ID of the cell whose output shows the number, "" when no
	// cell's output does; Output is the number as that output shows it.
	Cell   string
	Output string
}

// Classes and wording of traced and untraced numbers.
const (
	untracedTitle = "Not traced to any cell: no cell's output shows this number"
	untracedMark  = "untraced"
)

// renderMarked renders the answer's markdown with each marked number
// linked to its cell (an <a class="traced"> to #cell-ID, titled with the
// cell and the output's number) or marked untraced (a <span
// class="untraced"> with a title and a visible "untraced" marker, so the
// mark is not colour alone).
//
// Each number becomes a placeholder word before goldmark runs, and its
// markup after: goldmark in safe mode drops raw HTML. A number inside code,
// a formula, a link or a tag's attribute goes back as its plain text.
func (m markdownRenderer) renderMarked(src string, marks []NumberMark, nb *nbformat.Notebook) (string, error) {
	marks = append([]NumberMark(nil), marks...)
	sort.SliceStable(marks, func(i, j int) bool { return marks[i].Start < marks[j].Start })
	sum := sha256.Sum256([]byte(src))
	prefix := "znumz" + hex.EncodeToString(sum[:4]) + "z"
	var b strings.Builder
	var kept []NumberMark
	var texts []string
	last := 0
	for _, mk := range marks {
		if mk.Start < last || mk.End > len(src) || mk.Start >= mk.End {
			continue
		}
		b.WriteString(src[last:mk.Start])
		b.WriteString(prefix + strconv.Itoa(len(kept)) + "z")
		kept = append(kept, mk)
		texts = append(texts, src[mk.Start:mk.End])
		last = mk.End
	}
	b.WriteString(src[last:])
	out, err := m.render(b.String(), nil, 2)
	if err != nil {
		return "", err
	}
	labels := cellLabels(nb)
	return restoreNumbers(out, prefix, func(i int, plain, inLink bool) string {
		text := html.EscapeString(texts[i])
		mk := kept[i]
		switch {
		case plain:
			return text
		case mk.Cell == "":
			return `<span class="untraced" title="` + untracedTitle + `">` + text +
				`<sup class="untraced-mark">` + untracedMark + `</sup></span>`
		}
		title := html.EscapeString(fmt.Sprintf("Traced to %s, whose output shows %s", labels(mk.Cell), mk.Output))
		if inLink {
			return `<span class="traced" title="` + title + `">` + text + `</span>`
		}
		return `<a class="traced" href="#cell-` + html.EscapeString(mk.Cell) + `" title="` + title + `">` + text + `</a>`
	}), nil
}

// cellLabels names a cell by ID the way the report shows it: "cell In [7]".
func cellLabels(nb *nbformat.Notebook) func(id string) string {
	counts := map[string]int{}
	if nb != nil {
		for _, c := range nb.Cells {
			if c.ExecutionCount != nil {
				counts[c.ID] = *c.ExecutionCount
			}
		}
	}
	return func(id string) string {
		if n, ok := counts[id]; ok {
			return fmt.Sprintf("cell In [%d]", n)
		}
		return "cell " + id
	}
}

// restoreNumbers replaces the placeholders prefix+i+"z" in rendered HTML
// by markup(i, plain, inLink): plain inside a tag, code or a formula.
func restoreNumbers(out, prefix string, markup func(i int, plain, inLink bool) string) string {
	var b strings.Builder
	inTag, inCode, inMath, inLink := false, 0, false, false
	for i := 0; i < len(out); {
		c := out[i]
		switch {
		case c == '<':
			inTag = true
			rest := out[i:]
			switch {
			case hasTagPrefix(rest, "<code"), hasTagPrefix(rest, "<pre"):
				inCode++
			case hasTagPrefix(rest, "</code"), hasTagPrefix(rest, "</pre"):
				inCode = max(0, inCode-1)
			case strings.HasPrefix(rest, `<span class="math`):
				inMath = true
			case hasTagPrefix(rest, "</span"):
				inMath = false
			case hasTagPrefix(rest, "<a"):
				inLink = true
			case hasTagPrefix(rest, "</a"):
				inLink = false
			}
		case c == '>':
			inTag = false
		case c == 'z' && strings.HasPrefix(out[i:], prefix):
			j := i + len(prefix)
			k := j
			for k < len(out) && out[k] >= '0' && out[k] <= '9' {
				k++
			}
			if n, err := strconv.Atoi(out[j:k]); err == nil && k < len(out) && out[k] == 'z' {
				b.WriteString(markup(n, inTag || inCode > 0 || inMath, inLink))
				i = k + 1
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}
