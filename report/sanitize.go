package report

import (
	"regexp"
	"strings"
	"sync"

	"github.com/microcosm-cc/bluemonday"
)

// htmlPolicy is what a text/html output may keep: tables (a pandas
// DataFrame's markup, with its border, alignment and spans) and basic
// formatting. Scripts, styles, event handlers, forms, frames and links are
// dropped; the only image source allowed is a data: URI of a raster image,
// so an output cannot make the page load anything.
var htmlPolicy = sync.OnceValue(func() *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowElements(
		"table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption", "colgroup", "col",
		"p", "br", "hr", "div", "span", "blockquote", "pre", "code", "kbd", "samp", "var",
		"b", "i", "em", "strong", "u", "s", "del", "ins", "mark", "small", "sub", "sup", "abbr",
		"ul", "ol", "li", "dl", "dt", "dd",
		"h1", "h2", "h3", "h4", "h5", "h6",
		"details", "summary", "figure", "figcaption",
	)
	cellAlign := regexp.MustCompile(`^(?i)(left|right|center|justify|char)$`)
	vAlign := regexp.MustCompile(`^(?i)(top|middle|bottom|baseline)$`)
	integer := regexp.MustCompile(`^[0-9]{1,4}$`)
	number := regexp.MustCompile(`^[0-9]{1,4}(%|px)?$`)
	classes := regexp.MustCompile(`^[A-Za-z0-9_ -]{0,80}$`)
	p.AllowAttrs("border").Matching(integer).OnElements("table")
	p.AllowAttrs("class").Matching(classes).OnElements("table")
	p.AllowAttrs("colspan", "rowspan").Matching(integer).OnElements("th", "td")
	p.AllowAttrs("span").Matching(integer).OnElements("col", "colgroup")
	p.AllowAttrs("align").Matching(cellAlign).OnElements("th", "td", "tr", "thead", "tbody", "col", "colgroup", "p", "div")
	p.AllowAttrs("valign").Matching(vAlign).OnElements("th", "td", "tr", "thead", "tbody", "col", "colgroup")
	p.AllowAttrs("title").Matching(bluemonday.Paragraph).OnElements("abbr", "span", "td", "th")
	p.AllowAttrs("start").Matching(integer).OnElements("ol")
	p.AllowAttrs("open").Matching(regexp.MustCompile(`^(|open)$`)).OnElements("details")
	// pandas writes <tr style="text-align: right;">.
	p.AllowStyles("text-align").MatchingEnum("left", "right", "center", "justify").OnElements("tr", "th", "td")
	p.AllowStyles("vertical-align").MatchingEnum("top", "middle", "bottom", "baseline").OnElements("tr", "th", "td")
	// Images only as data: URIs (png, jpeg, gif, webp).
	p.AllowAttrs("alt").Matching(bluemonday.Paragraph).OnElements("img")
	p.AllowAttrs("width", "height").Matching(number).OnElements("img")
	p.AllowAttrs("src").OnElements("img")
	p.AllowRelativeURLs(false)
	p.AllowDataURIImages()
	p.AddSpaceWhenStrippingTag(true)
	return p
})

// sanitizeHTML makes an output's HTML safe to inline in the page.
func sanitizeHTML(s string) string {
	return htmlPolicy().Sanitize(s)
}

// ansiEscape matches terminal escape sequences: CSI (colours, cursor
// moves), OSC (titles, hyperlinks) and two-byte escapes.
var ansiEscape = regexp.MustCompile(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]`)

// plainText makes terminal output fit a <pre>: escape sequences removed,
// each carriage return overwriting its line as a terminal would (progress
// bars keep their last state), other control characters dropped.
func plainText(s string) string {
	s = ansiEscape.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if strings.ContainsRune(s, '\r') {
		lines := strings.Split(s, "\n")
		for i, l := range lines {
			if k := strings.LastIndexByte(strings.TrimRight(l, "\r"), '\r'); k >= 0 {
				lines[i] = l[k+1:]
			}
			lines[i] = strings.TrimRight(lines[i], "\r")
		}
		s = strings.Join(lines, "\n")
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			return -1
		}
		return r
	}, s)
}
