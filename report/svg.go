package report

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"regexp"
	"strings"
)

// An SVG output is shown as an image (<img src="data:image/svg+xml;...">),
// where a browser runs none of its scripts and loads nothing outside it.
// It is cleaned anyway, since a reader may open the image on its own: what
// is left is the drawing. Kept are the elements of svgElements and their
// attributes, minus event handlers (on*), references (href, xlink:href)
// to anything but a fragment of the document or, on an image, an embedded
// raster image, and values or styles that reach out (url() to anything but
// a fragment, javascript:, @import). Dropped whole, with their content:
// any other element (script, foreignObject and the HTML in it, animate
// and set, which can rewrite a link, elements of other namespaces), the
// DOCTYPE and its entities, comments and processing instructions.
var svgElements = map[string]bool{}

func init() {
	for _, name := range strings.Fields(`svg g defs symbol use title desc
		path rect circle ellipse line polyline polygon text tspan textPath
		clipPath mask pattern marker linearGradient radialGradient stop image style a switch
		filter feBlend feColorMatrix feComponentTransfer feComposite feConvolveMatrix feDiffuseLighting
		feDisplacementMap feDistantLight feDropShadow feFlood feFuncA feFuncB feFuncG feFuncR
		feGaussianBlur feImage feMerge feMergeNode feMorphology feOffset fePointLight
		feSpecularLighting feSpotLight feTile feTurbulence`) {
		svgElements[name] = true
	}
}

// maxSVGDepth bounds the nesting an SVG may have.
const maxSVGDepth = 256

var (
	svgURL       = regexp.MustCompile(`(?i)url\(\s*['"]?\s*([^'")\s]*)`)
	svgDangerous = regexp.MustCompile(`(?i)(javascript|vbscript)\s*:|@import|expression\s*\(`)
)

// svgImage is an <img> showing the cleaned SVG; false when src is not an
// SVG document.
func svgImage(src, alt string) (string, bool) {
	clean, err := sanitizeSVG(src)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf(`<img src="data:image/svg+xml;base64,%s" alt="%s">`,
		base64.StdEncoding.EncodeToString([]byte(clean)), html.EscapeString(alt)), true
}

// sanitizeSVG returns the drawing of an SVG document, cleaned as above.
func sanitizeSVG(src string) (string, error) {
	d := xml.NewDecoder(strings.NewReader(src))
	d.Strict = true
	var out bytes.Buffer
	var open []string          // the kept elements open, innermost last
	skip := 0                  // > 0 inside a dropped element
	root, done := false, false // the root <svg> began; it ended
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("reading the SVG: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch {
			case skip > 0:
				skip++
			case !root && (t.Name.Space != "" || t.Name.Local != "svg"):
				return "", errors.New("the document is not an <svg>")
			case done || t.Name.Space != "" || !svgElements[t.Name.Local] || len(open) >= maxSVGDepth:
				skip = 1
			default:
				root = true
				writeSVGStart(&out, t)
				open = append(open, t.Name.Local)
			}
		case xml.EndElement:
			switch {
			case skip > 0:
				skip--
			case len(open) > 0:
				out.WriteString("</" + open[len(open)-1] + ">")
				open = open[:len(open)-1]
				done = len(open) == 0
			}
		case xml.CharData:
			if skip > 0 || len(open) == 0 {
				continue
			}
			text := string(t)
			if open[len(open)-1] == "style" && !safeSVGValue(text) {
				continue
			}
			xml.EscapeText(&out, []byte(text))
		}
	}
	if !root || len(open) > 0 {
		return "", errors.New("the SVG is incomplete")
	}
	return out.String(), nil
}

// writeSVGStart writes a kept element's start tag with its safe attributes.
func writeSVGStart(out *bytes.Buffer, t xml.StartElement) {
	out.WriteString("<" + t.Name.Local)
	for _, a := range t.Attr {
		name := a.Name.Local
		if a.Name.Space != "" {
			name = a.Name.Space + ":" + name
		}
		if !safeSVGAttr(t.Name.Local, a.Name, a.Value) {
			continue
		}
		out.WriteString(" " + name + `="`)
		xml.EscapeText(out, []byte(a.Value))
		out.WriteString(`"`)
	}
	out.WriteString(">")
}

// safeSVGAttr says whether an attribute of element may stay.
func safeSVGAttr(element string, name xml.Name, value string) bool {
	switch {
	case name.Space == "xmlns" || name.Space == "" && name.Local == "xmlns":
		return true // namespace declarations
	case strings.HasPrefix(strings.ToLower(name.Local), "on"):
		return false
	case name.Local == "href" && (name.Space == "" || name.Space == "xlink"):
		v := strings.TrimSpace(value)
		return strings.HasPrefix(v, "#") || (element == "image" || element == "feImage") && safeDataImage(v)
	case name.Space != "" && name.Space != "xml":
		return false
	}
	return safeSVGValue(value)
}

// safeSVGValue says whether a value or a style sheet reaches nothing
// outside the document.
func safeSVGValue(v string) bool {
	if svgDangerous.MatchString(v) {
		return false
	}
	for _, m := range svgURL.FindAllStringSubmatch(v, -1) {
		if !strings.HasPrefix(m[1], "#") {
			return false
		}
	}
	return true
}
