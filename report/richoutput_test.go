package report

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/jpeg"
	"regexp"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/nbformat"
)

// richOutputs are the outputs of IPython's display objects as a notebook
// stores them (kernel/display_test.go shows the kernel writes them so):
// Markdown, a hostile SVG, PNG, JPEG, JSON, LaTeX.
func richOutputs(t *testing.T) []nbformat.Output {
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, image.NewRGBA(image.Rect(0, 0, 5, 3)), nil); err != nil {
		t.Fatal(err)
	}
	plain := func(class string) json.RawMessage { return jstr("<IPython.core.display." + class + " object>") }
	display := func(data nbformat.MimeBundle, metadata string) nbformat.Output {
		o := nbformat.Output{OutputType: nbformat.OutputDisplayData, Data: data}
		if metadata != "" {
			json.Unmarshal([]byte(metadata), &o.Metadata)
		}
		return o
	}
	return []nbformat.Output{
		display(nbformat.MimeBundle{nbformat.MimeMarkdown: jstr("# Title\n\nSome *text* <script>window.__pwned=20</script> [link](javascript:window.__pwned=21)"), nbformat.MimePlain: plain("Markdown")}, ""),
		display(nbformat.MimeBundle{nbformat.MimeSVG: jstr(`<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10" onload="window.__pwned=22"><script>window.__pwned=23</script><rect width="20" height="10" fill="teal"/></svg>`), nbformat.MimePlain: plain("SVG")}, ""),
		display(nbformat.MimeBundle{nbformat.MimePNG: jstr(tinyPNG), nbformat.MimePlain: plain("Image")}, ""),
		display(nbformat.MimeBundle{nbformat.MimeJPEG: jstr(base64.StdEncoding.EncodeToString(jpg.Bytes())), nbformat.MimePlain: plain("Image")}, `{"image/jpeg": {"width": 40}}`),
		display(nbformat.MimeBundle{nbformat.MimeJSON: json.RawMessage(`{"a": [1, 2], "b": "<b>x</b>"}`), nbformat.MimePlain: plain("JSON")}, `{"application/json": {"expanded": false, "root": "root"}}`),
		display(nbformat.MimeBundle{nbformat.MimeLaTeX: jstr(`$\bar{x} = \frac{1}{n}\sum x_i$`), nbformat.MimePlain: plain("Latex")}, ""),
	}
}

// Rich outputs are shown for what they are, safely: Markdown rendered
// without its raw HTML or script links, an SVG cleaned and shown as an
// image, PNG and JPEG as images, JSON as text, LaTeX as a formula; not
// their repr.
func TestRichOutputs(t *testing.T) {
	nb := nbformat.New()
	nb.AddCode("from IPython.display import *", richOutputs(t), 1)
	out := render(t, Input{Notebook: nb})
	for _, want := range []string{
		`<div class="output-markdown"><h3>Title</h3>`,
		`<figure class="output-image"><img src="data:image/png;base64,` + tinyPNG + `" alt="Image" width="4" height="3"></figure>`,
		`<figure class="output-image"><img src="data:image/jpeg;base64,`,
		`alt="Image" width="5" height="3"></figure>`,
		"<pre class=\"output-json\">{\n  &#34;a&#34;: [1, 2],\n  &#34;b&#34;: &#34;&lt;b&gt;x&lt;/b&gt;&#34;\n}</pre>",
		`<div class="output-markdown"><p><code class="math math-inline">$\bar{x} = \frac{1}{n}\sum x_i$</code></p>`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	m := regexp.MustCompile(`<img src="data:image/svg\+xml;base64,([^"]+)" alt="Image">`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the SVG is not shown as an image")
	}
	svg, _ := base64.StdEncoding.DecodeString(m[1])
	if want := `<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="20" height="10" fill="teal"></rect></svg>`; string(svg) != want {
		t.Errorf("the SVG shown is %s, want %s", svg, want)
	}
	// The script of the Markdown is left out (its text stays, as text).
	outputs := out[strings.Index(out, `<div class="outputs">`):]
	outputs = outputs[:strings.Index(outputs, "</main>")]
	for _, bad := range []string{"<script", "javascript:", "onload", "IPython.core.display"} {
		if strings.Contains(outputs, bad) {
			t.Errorf("report holds %q", bad)
		}
	}
}
