package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/analyst-cli/analyst/nbformat"
)

// Markdown is rendered by goldmark in its safe mode (raw HTML in a cell is
// dropped, javascript: links are not links) with GitHub's tables,
// strikethrough and task lists, but not its linkify: a report links to
// nothing outside itself (see pageTransformer).
//
// Formulas are taken out before goldmark sees the text and put back after:
// goldmark would otherwise read \{ as an escaped brace and x_i_j as
// emphasis. Each $$...$$ and $...$ becomes a placeholder word, and each
// placeholder in goldmark's HTML becomes the formula, escaped, inside an
// element that KaTeX's auto-render is run on (or, without KaTeX, a <code
// class="math">).

// mathSpan is one formula found in markdown.
type mathSpan struct {
	Raw     string // as written, with its delimiters
	TeX     string // between the delimiters
	Display bool   // $$...$$
}

// extractMath replaces the formulas in src by placeholders (see
// placeholder) and returns them in order. Formulas inside code spans and
// fenced code blocks are left alone, as are escaped dollars (\$). An inline
// formula follows pandoc's rule: the opening $ is not followed by a space,
// the closing $ is not preceded by one nor followed by a digit, so "$5 and
// $10" is not a formula. Neither kind crosses a blank line.
func extractMath(src string) (string, string, []mathSpan) {
	sum := sha256.Sum256([]byte(src))
	nonce := hex.EncodeToString(sum[:4])
	var out strings.Builder
	var spans []mathSpan
	add := func(s mathSpan) {
		out.WriteString(placeholder(nonce, len(spans)))
		spans = append(spans, s)
	}
	i := 0
	for i < len(src) {
		if i == 0 || src[i-1] == '\n' {
			if end := fencedBlockEnd(src, i); end > i {
				out.WriteString(src[i:end])
				i = end
				continue
			}
		}
		switch c := src[i]; c {
		case '\\':
			end := min(i+2, len(src))
			out.WriteString(src[i:end])
			i = end
		case '`':
			n := runLen(src, i, '`')
			if end := closingBackticks(src, i+n, n); end > 0 {
				out.WriteString(src[i:end])
				i = end
			} else {
				out.WriteString(src[i : i+n])
				i += n
			}
		case '$':
			if strings.HasPrefix(src[i:], "$$") {
				if j := findClosing(src, i+2, "$$"); j > 0 && strings.TrimSpace(src[i+2:j]) != "" {
					add(mathSpan{Raw: src[i : j+2], TeX: src[i+2 : j], Display: true})
					i = j + 2
					continue
				}
				out.WriteString("$$")
				i += 2
				continue
			}
			if j := findInlineClosing(src, i+1); j > 0 {
				add(mathSpan{Raw: src[i : j+1], TeX: src[i+1 : j]})
				i = j + 1
				continue
			}
			out.WriteByte('$')
			i++
		default:
			out.WriteByte(c)
			i++
		}
	}
	return out.String(), nonce, spans
}

// placeholder is the word that stands for formula i: letters and digits
// only, so that no markdown rule touches it, and with a nonce drawn from
// the cell's text so that it does not occur there by chance.
func placeholder(nonce string, i int) string {
	return "zmathz" + nonce + "z" + strconv.Itoa(i) + "z"
}

func runLen(s string, i int, c byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	return n
}

// closingBackticks returns the end of the code span whose opening run of n
// backticks ends at i, or -1.
func closingBackticks(s string, i, n int) int {
	for i < len(s) {
		j := strings.IndexByte(s[i:], '`')
		if j < 0 {
			return -1
		}
		j += i
		m := runLen(s, j, '`')
		if m == n {
			return j + m
		}
		i = j + m
	}
	return -1
}

// fencedBlockEnd returns the end of the fenced code block opening at line
// start i (through its closing fence or the end of the text), or i.
func fencedBlockEnd(s string, i int) int {
	j := i
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if j >= len(s) || (s[j] != '`' && s[j] != '~') {
		return i
	}
	fc := s[j]
	n := runLen(s, j, fc)
	if n < 3 {
		return i
	}
	lineEnd := strings.IndexByte(s[j:], '\n')
	if lineEnd < 0 {
		return len(s)
	}
	if fc == '`' && strings.IndexByte(s[j+n:j+lineEnd], '`') >= 0 {
		return i // an info string with a backtick: not a fence
	}
	k := j + lineEnd + 1
	for k < len(s) {
		e := strings.IndexByte(s[k:], '\n')
		line := s[k:]
		next := len(s)
		if e >= 0 {
			line = s[k : k+e]
			next = k + e + 1
		}
		t := strings.TrimLeft(line, " \t")
		if runLen(t, 0, fc) >= n && strings.TrimSpace(strings.TrimLeft(t, string(fc))) == "" {
			return next
		}
		k = next
	}
	return len(s)
}

// blankAt reports whether the newline at i ends a line followed by a blank
// one (or the end of the text).
func blankAt(s string, i int) bool {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case ' ', '\t', '\r':
		case '\n':
			return true
		default:
			return false
		}
	}
	return true
}

// findClosing returns the index of delim at or after i, skipping escaped
// characters, or -1; a blank line ends the search.
func findClosing(s string, i int, delim string) int {
	for j := i; j < len(s); j++ {
		switch {
		case s[j] == '\\':
			j++
		case s[j] == '\n' && blankAt(s, j):
			return -1
		case strings.HasPrefix(s[j:], delim):
			return j
		}
	}
	return -1
}

// findInlineClosing returns the index of the $ closing an inline formula
// whose opening $ is just before i, or -1.
func findInlineClosing(s string, i int) int {
	if i >= len(s) || isSpace(s[i]) || s[i] == '$' {
		return -1
	}
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '`': // a code span wins over a formula
			return -1
		case '\n':
			if blankAt(s, j) {
				return -1
			}
		case '$':
			if isSpace(s[j-1]) {
				continue
			}
			if j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9' {
				continue
			}
			return j
		}
	}
	return -1
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// restoreMath puts the formulas back where goldmark left their
// placeholders. Inside a tag (an attribute: a link's title, an image's alt)
// or inside code, a formula goes back as its escaped source text; elsewhere
// as mathHTML.
func restoreMath(out, nonce string, spans []mathSpan, m markdownRenderer) string {
	if len(spans) == 0 {
		return out
	}
	return replacePlaceholders(out, "zmathz"+nonce+"z", func(n int, at htmlPlace) (string, bool) {
		switch {
		case n >= len(spans):
			return "", false
		case at.tag || at.code:
			return html.EscapeString(spans[n].Raw), true
		}
		return m.mathHTML(spans[n]), true
	})
}

// htmlPlace is where in rendered HTML a placeholder stands.
type htmlPlace struct {
	tag  bool // inside a tag: an attribute value
	code bool // inside <code> or <pre>
	math bool // inside a formula's <span class="math ...">
	link bool // inside <a>
}

// replacePlaceholders replaces each placeholder word prefix+N+"z" in
// rendered HTML by what repl returns for N and its place (ok false leaves
// it as it is).
func replacePlaceholders(out, prefix string, repl func(n int, at htmlPlace) (string, bool)) string {
	var b strings.Builder
	var at htmlPlace
	inCode := 0
	for i := 0; i < len(out); {
		c := out[i]
		switch {
		case c == '<':
			at.tag = true
			rest := out[i:]
			switch {
			case hasTagPrefix(rest, "<code"), hasTagPrefix(rest, "<pre"):
				inCode++
			case hasTagPrefix(rest, "</code"), hasTagPrefix(rest, "</pre"):
				inCode = max(0, inCode-1)
			case strings.HasPrefix(rest, `<span class="math`):
				at.math = true
			case hasTagPrefix(rest, "</span"):
				at.math = false
			case hasTagPrefix(rest, "<a"):
				at.link = true
			case hasTagPrefix(rest, "</a"):
				at.link = false
			}
			at.code = inCode > 0
		case c == '>':
			at.tag = false
		case c == prefix[0] && strings.HasPrefix(out[i:], prefix):
			j := i + len(prefix)
			k := j
			for k < len(out) && out[k] >= '0' && out[k] <= '9' {
				k++
			}
			if k > j && k < len(out) && out[k] == 'z' {
				n, err := strconv.Atoi(out[j:k])
				if err == nil {
					if s, ok := repl(n, at); ok {
						b.WriteString(s)
						i = k + 1
						continue
					}
				}
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

func hasTagPrefix(s, tag string) bool {
	if !strings.HasPrefix(s, tag) || len(s) == len(tag) {
		return false
	}
	c := s[len(tag)]
	return c == '>' || c == ' ' || c == '\t' || c == '\n' || c == '/'
}

// mathHTML is a formula as the page shows it: typeset as MathML when the
// report is written (m.tex); else, with KaTeX's script on the page, its
// source with delimiters in a span that auto-render typesets; else the
// source in <code class="math">.
func (m markdownRenderer) mathHTML(s mathSpan) string {
	kind := "math-inline"
	if s.Display {
		kind = "math-display"
	}
	if m.tex != nil {
		if ml, err := m.tex.mathML(s.TeX, s.Display); err == nil {
			return `<span class="math ` + kind + `">` + ml + `</span>`
		}
	}
	if m.katex {
		return `<span class="math ` + kind + `">` + html.EscapeString(s.Raw) + `</span>`
	}
	return `<code class="math ` + kind + `">` + html.EscapeString(s.Raw) + `</code>`
}

// markdownRenderer renders markdown cells.
type markdownRenderer struct {
	katex bool           // KaTeX's script is on the page
	tex   *texTypesetter // typesets formulas as the page is written
}

// render renders markdown source. attachments are the cell's attachments,
// which ![alt](attachment:name) images refer to; headingShift moves
// headings down (a cell's # heading sits below the stage's own heading).
func (m markdownRenderer) render(src string, attachments map[string]nbformat.MimeBundle, headingShift int) (string, error) {
	stripped, nonce, spans := extractMath(src)
	md := goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList),
		goldmark.WithParserOptions(parser.WithASTTransformers(
			util.Prioritized(&pageTransformer{attachments: attachments, headingShift: headingShift}, 100),
		)),
	)
	var buf bytes.Buffer
	if err := md.Convert([]byte(stripped), &buf); err != nil {
		return "", fmt.Errorf("rendering markdown: %w", err)
	}
	return restoreMath(buf.String(), nonce, spans, m), nil
}

// pageTransformer fits markdown into the page: headings move down by
// headingShift; images become data: URIs (their own, or the cell's
// attachment) or, when they would be a request, a text marker; links to
// anything but an anchor or a relative path become their text followed by
// the address as text, so that the page links nowhere outside itself.
type pageTransformer struct {
	attachments  map[string]nbformat.MimeBundle
	headingShift int
}

func (t *pageTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	var headings []*ast.Heading
	var links, images, autolinks []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := n.(type) {
		case *ast.Heading:
			headings = append(headings, v)
		case *ast.Link:
			links = append(links, v)
		case *ast.Image:
			images = append(images, v)
		case *ast.AutoLink:
			autolinks = append(autolinks, v)
		}
		return ast.WalkContinue, nil
	})
	for _, h := range headings {
		h.Level = min(6, h.Level+t.headingShift)
	}
	source := reader.Source()
	for _, n := range images {
		img := n.(*ast.Image)
		dest := string(img.Destination)
		if strings.HasPrefix(dest, "attachment:") {
			if uri, ok := attachmentURI(t.attachments[strings.TrimPrefix(dest, "attachment:")]); ok {
				img.Destination = []byte(uri)
				continue
			}
		} else if safeDataImage(dest) {
			continue
		}
		alt := string(nodeText(img, source))
		replaceWithText(img, "[image not included: "+alt+" ("+dest+")]", true)
	}
	for _, n := range links {
		l := n.(*ast.Link)
		dest := string(l.Destination)
		if localLink(dest) {
			continue
		}
		parent := l.Parent()
		for c := l.FirstChild(); c != nil; {
			next := c.NextSibling()
			parent.InsertBefore(parent, l, c)
			c = next
		}
		if !scriptURL(dest) {
			s := ast.NewString([]byte(" (" + dest + ")"))
			s.SetRaw(true)
			parent.InsertBefore(parent, l, s)
		}
		parent.RemoveChild(parent, l)
	}
	for _, n := range autolinks {
		a := n.(*ast.AutoLink)
		replaceWithText(a, string(a.URL(source)), false)
	}
}

// replaceWithText replaces n by a text node; marked text goes in <em>.
func replaceWithText(n ast.Node, s string, marked bool) {
	str := ast.NewString([]byte(s))
	str.SetRaw(true) // written escaped, without reading backslash escapes
	var repl ast.Node = str
	if marked {
		em := ast.NewEmphasis(1)
		em.AppendChild(em, str)
		repl = em
	}
	parent := n.Parent()
	parent.ReplaceChild(parent, n, repl)
}

// nodeText is the plain text below n.
func nodeText(n ast.Node, source []byte) []byte {
	var b bytes.Buffer
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := c.(type) {
		case *ast.Text:
			b.Write(v.Segment.Value(source))
		case *ast.String:
			b.Write(v.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.Bytes()
}

// localLink: an anchor in the page or a relative path without a scheme
// (a file beside the report). Nothing that leaves the machine.
func localLink(dest string) bool {
	if dest == "" || strings.HasPrefix(dest, "#") {
		return true
	}
	if strings.HasPrefix(dest, "//") || strings.HasPrefix(dest, `\\`) {
		return false
	}
	if i := strings.IndexAny(dest, ":/?#"); i >= 0 && dest[i] == ':' {
		return false // has a scheme
	}
	return true
}

// scriptURL: an address not worth showing even as text.
func scriptURL(dest string) bool {
	d := strings.ToLower(strings.TrimSpace(dest))
	for _, p := range []string{"javascript:", "vbscript:", "data:", "file:"} {
		if strings.HasPrefix(d, p) {
			return true
		}
	}
	return false
}

var dataImage = regexp.MustCompile(`^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]*$`)

func safeDataImage(dest string) bool { return dataImage.MatchString(dest) }

// attachmentURI is a data: URI for an attachment's image.
func attachmentURI(b nbformat.MimeBundle) (string, bool) {
	for _, mime := range []string{nbformat.MimePNG, nbformat.MimeJPEG, nbformat.MimeGIF, nbformat.MimeWebP} {
		raw, ok := b[mime]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			continue
		}
		s = stripSpace(s)
		if _, err := base64.StdEncoding.DecodeString(s); err != nil {
			continue
		}
		return "data:" + mime + ";base64," + s, true
	}
	return "", false
}

func stripSpace(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\r':
			return -1
		}
		return r
	}, s)
}
