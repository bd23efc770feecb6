package report

import (
	"strings"
	"testing"
)

// A hostile SVG keeps its drawing and loses everything live or external:
// scripts, handlers, foreignObject with its HTML, external links and
// images, animation that could rewrite a link, style sheets that import,
// elements of other namespaces, the DOCTYPE.
func TestSanitizeSVG(t *testing.T) {
	const png = "data:image/png;base64,iVBORw0KGgo="
	hostile := `<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 20 10" onload="window.__pwned=6">` +
		`<script>window.__pwned=7</script><!-- a comment -->` +
		`<defs><linearGradient id="grad"><stop offset="0" stop-color="teal"/></linearGradient></defs>` +
		`<rect width="20" height="10" fill="url(#grad)" onclick="window.__pwned=8" style="stroke:url(http://192.0.2.1/p.svg#g)"/>` +
		`<foreignObject width="10" height="10"><body xmlns="http://www.w3.org/1999/xhtml"><script>window.__pwned=9</script><img src="http://192.0.2.1/x.png"/></body></foreignObject>` +
		`<image href="http://192.0.2.1/a.png" width="5" height="5"/>` +
		`<image xlink:href="` + png + `" width="5" height="5"/>` +
		`<use xlink:href="http://192.0.2.1/s.svg#a"/><use href="#grad"/>` +
		`<a href="javascript:window.__pwned=10"><text x="1" y="9">a &amp; b</text></a>` +
		`<animate attributeName="href" to="javascript:window.__pwned=11"/><set attributeName="onclick" to="window.__pwned=12"/>` +
		`<style>@import url(http://192.0.2.1/s.css); rect { fill: red }</style><style>circle { fill: url(#grad) }</style>` +
		`<metadata><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description/></rdf:RDF></metadata>` +
		`<circle r="2" ev:onclick="x" xmlns:ev="http://www.w3.org/2001/xml-events"/>` +
		`</svg>`
	got, err := sanitizeSVG(hostile)
	if err != nil {
		t.Fatal(err)
	}
	want := `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 20 10">` +
		`<defs><linearGradient id="grad"><stop offset="0" stop-color="teal"></stop></linearGradient></defs>` +
		`<rect width="20" height="10" fill="url(#grad)"></rect>` +
		`<image width="5" height="5"></image>` +
		`<image xlink:href="` + png + `" width="5" height="5"></image>` +
		`<use></use><use href="#grad"></use>` +
		`<a><text x="1" y="9">a &amp; b</text></a>` +
		`<style></style><style>circle { fill: url(#grad) }</style>` +
		`<circle r="2" xmlns:ev="http://www.w3.org/2001/xml-events"></circle>` +
		`</svg>`
	if got != want {
		t.Errorf("sanitized SVG\n got %s\nwant %s", got, want)
	}
	for _, bad := range []string{"script", "__pwned", "192.0.2.1", "onload", "onclick", "foreignObject", "javascript", "@import", "DOCTYPE"} {
		if strings.Contains(got, bad) {
			t.Errorf("%q left in the SVG", bad)
		}
	}
}

// What is not an SVG document is not shown as one: HTML, an entity the
// document defines itself (never expanded), no root, an unclosed root.
func TestSanitizeSVGRefuses(t *testing.T) {
	for name, src := range map[string]string{
		"html":          `<html><body><svg></svg></body></html>`,
		"entity":        `<!DOCTYPE svg [<!ENTITY lol "lol">]><svg xmlns="http://www.w3.org/2000/svg"><text>&lol;</text></svg>`,
		"text":          `just text`,
		"unclosed":      `<svg xmlns="http://www.w3.org/2000/svg"><g>`,
		"prefixed root": `<s:svg xmlns:s="http://www.w3.org/2000/svg"></s:svg>`,
	} {
		if got, err := sanitizeSVG(src); err == nil {
			t.Errorf("%s: sanitized to %q, want an error", name, got)
		}
	}
}
