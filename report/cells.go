package report

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"image"
	_ "image/gif" // image sizes of gif outputs
	_ "image/jpeg"
	_ "image/png"
	"regexp"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/internal/clip"
	"github.com/analyst-cli/analyst/nbformat"
)

// Limits on what one output puts in the page; the notebook has it all.
const (
	maxTextOutput = 200_000 // bytes of a stream, text/plain or traceback
	maxJSONOutput = 60_000  // bytes of a JSON output
	// maxChartJSON bounds a chart's description beside its image: enough
	// for a bar chart's or a histogram's numbers; a scatter's thousands of
	// points are in the notebook (and in NAME_files/chart-N.json).
	maxChartJSON = 6_000
)

// codeStyle is chroma's style for code; the page carries its stylesheet
// once (see chromaCSS) and the code only class names.
const codeStyle = "github"

var codeFormatter = chromahtml.New(chromahtml.WithClasses(true), chromahtml.TabWidth(4))

// chromaCSS is the stylesheet for highlighted code.
var chromaCSS = sync.OnceValue(func() string {
	var b bytes.Buffer
	if err := codeFormatter.WriteCSS(&b, styles.Get(codeStyle)); err != nil {
		return ""
	}
	return b.String()
})

// highlighted keeps code highlighted already: the setup, load and profile
// cells are the same in every report of a dataset, and nearly so across
// datasets (analyst eval writes one report per case, and chroma's regular
// expressions took most of the time a case report took). Bounded by the
// bytes it holds: full, it starts again.
var highlighted = struct {
	sync.Mutex
	html  map[string]string
	bytes int
}{html: map[string]string{}}

const maxHighlightedBytes = 16 << 20

// highlight returns code as highlighted HTML (<pre class="chroma">), or
// escaped plain text in a <pre> when chroma has no lexer for language.
func highlight(code, language string) string {
	key := language + "\x00" + code
	highlighted.Lock()
	h, ok := highlighted.html[key]
	highlighted.Unlock()
	if ok {
		return h
	}
	h = highlightNow(code, language)
	highlighted.Lock()
	defer highlighted.Unlock()
	if highlighted.bytes+len(key)+len(h) > maxHighlightedBytes {
		highlighted.html, highlighted.bytes = map[string]string{}, 0
	}
	highlighted.html[key] = h
	highlighted.bytes += len(key) + len(h)
	return h
}

func highlightNow(code, language string) string {
	lexer := lexers.Get(language)
	if lexer == nil {
		lexer = lexers.Get("python")
	}
	if lexer != nil {
		lexer = chroma.Coalesce(lexer)
		if it, err := lexer.Tokenise(nil, code); err == nil {
			var b bytes.Buffer
			if err := codeFormatter.Format(&b, styles.Get(codeStyle), it); err == nil {
				return b.String()
			}
		}
	}
	return `<pre class="chroma"><code>` + html.EscapeString(code) + `</code></pre>`
}

// cellRenderer turns notebook cells into HTML fragments.
type cellRenderer struct {
	md       markdownRenderer
	language string
	// marks are the numbers of markdown cells to mark, by cell ID (see
	// Input.CellNumbers), in nb.
	marks map[string][]NumberMark
	nb    *nbformat.Notebook
	// shown is the first cell to show each long source (see code).
	shown map[string]shownCode
	// notebookLink and linkedCodeBytes: Input's NotebookLink and
	// LinkedCodeBytes.
	notebookLink    string
	linkedCodeBytes int
}

// cell renders one cell; "" when there is nothing to show.
func (r *cellRenderer) cell(c *nbformat.Cell) (string, error) {
	switch c.CellType {
	case nbformat.Markdown:
		if strings.TrimSpace(c.Source) == "" {
			return "", nil
		}
		var body string
		var err error
		if marks, ok := r.marks[c.ID]; ok && len(c.Attachments) == 0 {
			body, err = r.md.renderMarked(c.Source, marks, r.nb)
		} else {
			body, err = r.md.render(c.Source, c.Attachments, 2)
		}
		if err != nil {
			return "", err
		}
		return `<div class="cell markdown-cell">` + "\n" + body + "</div>\n", nil
	case nbformat.Code:
		return r.codeCell(c)
	default: // raw
		if strings.TrimSpace(c.Source) == "" {
			return "", nil
		}
		return `<div class="cell raw-cell"><pre>` + html.EscapeString(c.Source) + "</pre></div>\n", nil
	}
}

// method says whether c, a cell of the stage named stage, explains how
// the stage's numbers were computed: the markdown of a stage eda
// generates, unless the model wrote it or it states traced numbers.
func (r *cellRenderer) method(c *nbformat.Cell, stage string) bool {
	if c.CellType != nbformat.Markdown || !eda.Generated(stage) {
		return false
	}
	if c.HasTag(nbformat.TagModel) || c.HasTag(nbformat.TagAnswer) || c.HasTag(nbformat.TagReflection) {
		return false
	}
	_, marked := r.marks[c.ID]
	return !marked
}

// heading is the heading that opens a method cell ("### Numeric
// columns"), rendered as the cell renders it, to stand above the results
// its section explains; "" when the cell opens with text.
func (r *cellRenderer) heading(c *nbformat.Cell) (string, error) {
	first, _, _ := strings.Cut(strings.TrimLeft(c.Source, "\n"), "\n")
	if !atxHeading.MatchString(first) {
		return "", nil
	}
	h, err := r.md.render(first, nil, 2)
	if err != nil {
		return "", err
	}
	return `<div class="cell markdown-cell section-heading">` + "\n" + h + "</div>\n", nil
}

// atxHeading is a markdown line that is a heading.
var atxHeading = regexp.MustCompile(`^ {0,3}#{1,6}(\s|$)`)

// codeCell renders a code cell: its source, highlighted, in a collapsed
// <details>; its outputs below. A cell tagged failed-attempt or collapsed
// is collapsed as a whole behind a labelled summary (a failed attempt's
// summary names its error, so the error stays visible).
func (r *cellRenderer) codeCell(c *nbformat.Cell) (string, error) {
	if strings.TrimSpace(c.Source) == "" && len(c.Outputs) == 0 {
		return "", nil
	}
	outs, err := r.outputs(c.Outputs, c.Metadata.OutputsHidden)
	if err != nil {
		return "", err
	}
	lines := strings.Count(strings.TrimRight(c.Source, "\n"), "\n") + 1
	meta := []string{}
	if c.ExecutionCount != nil {
		meta = append(meta, fmt.Sprintf("In [%d]", *c.ExecutionCount))
	}
	if lines == 1 {
		meta = append(meta, "1 line")
	} else {
		meta = append(meta, fmt.Sprintf("%d lines", lines))
	}
	if c.Metadata.SourceHidden {
		meta = append(meta, "hidden in the notebook")
	}
	code := r.code(c)
	var b strings.Builder
	id := ""
	if c.ID != "" {
		id = ` id="cell-` + html.EscapeString(c.ID) + `"`
	}
	failed, collapsed := c.HasTag(nbformat.TagFailedAttempt), c.HasTag(nbformat.TagCollapsed)
	if failed || collapsed {
		class, label := "collapsed-cell", "collapsed" //houserules:literal a CSS class and a label
		if failed {
			class, label = "failed-attempt", "failed attempt" //houserules:literal a CSS class and a label
		}
		fmt.Fprintf(&b, `<details class="cell code-cell %s"%s>`+"\n", class, id)
		fmt.Fprintf(&b, `<summary><span class="badge badge-%s">%s</span> `, class, label)
		if e := firstError(c.Outputs); e != nil && failed {
			fmt.Fprintf(&b, `<span class="summary-error">%s</span>`, html.EscapeString(errorLine(e)))
		} else {
			fmt.Fprintf(&b, `<code class="summary-code">%s</code>`, html.EscapeString(clip.Runes(firstLine(c.Source), 80)))
		}
		fmt.Fprintf(&b, ` <span class="cell-meta">%s</span></summary>`+"\n", html.EscapeString(strings.Join(meta, " · ")))
		b.WriteString(`<div class="source">` + code + "</div>\n")
		b.WriteString(outs)
		b.WriteString("</details>\n")
		return b.String(), nil
	}
	fmt.Fprintf(&b, `<div class="cell code-cell"%s>`+"\n", id)
	if strings.TrimSpace(c.Source) != "" {
		fmt.Fprintf(&b, `<details class="source"><summary>Code <span class="cell-meta">%s</span></summary>`+"\n", html.EscapeString(strings.Join(meta, " · ")))
		b.WriteString(code)
		b.WriteString("</details>\n")
	}
	b.WriteString(outs)
	b.WriteString("</div>\n")
	return b.String(), nil
}

// maxHighlightedCode is the longest source shown highlighted: a model's
// cell is shorter; a stage's long computation (the relationships, the
// charts) is shown as plain text, a sixth of highlighted code's bytes
// (chroma wraps each line and token in spans).
const maxHighlightedCode = 4 << 10

// minSharedCode is the shortest source that a later cell with the same
// source shows as a link to the first instead of again: the profile's
// cells run once per table of a folder, the same code each time.
const minSharedCode = 1 << 10

// linked says whether c's code is long enough to be linked in the notebook
// instead of copied, and analyst's own (plumbing, hidden in the notebook,
// or a stage analyst generates, as the relationships'), not the model's.
func (r *cellRenderer) linked(c *nbformat.Cell) bool {
	if r.notebookLink == "" || len(c.Source) < r.linkedCodeBytes {
		return false
	}
	stage, _ := c.Stage()
	return c.Metadata.SourceHidden || eda.Generated(stage)
}

// code is the HTML of c's source: highlighted, or as plain text when it is
// plumbing (the loader, the profile's computation: long, the same in every
// report, and folded in the notebook too) or long, or a link to the cell
// above with the same source.
func (r *cellRenderer) code(c *nbformat.Cell) string {
	if r.linked(c) {
		where := "the notebook"
		if c.ExecutionCount != nil {
			where = fmt.Sprintf("the notebook's cell In [%d]", *c.ExecutionCount)
		}
		return `<p class="same-code">` + html.EscapeString(firstLine(c.Source)) + ` — the code is in <a href="` + html.EscapeString(r.notebookLink) + `">` + html.EscapeString(where) + `</a>, not copied here.</p>`
	}
	if len(c.Source) >= minSharedCode && c.ID != "" {
		if first, ok := r.shown[c.Source]; ok {
			return `<p class="same-code">The same code as <a href="#cell-` + html.EscapeString(first.id) + `">` +
				html.EscapeString(first.label) + `</a>.</p>`
		}
		if r.shown == nil {
			r.shown = map[string]shownCode{}
		}
		label := "the cell above"
		if c.ExecutionCount != nil {
			label = fmt.Sprintf("In [%d]", *c.ExecutionCount)
		}
		r.shown[c.Source] = shownCode{id: c.ID, label: label}
	}
	if c.Metadata.SourceHidden || len(c.Source) > maxHighlightedCode {
		return `<pre class="chroma plain"><code>` + escapeText(c.Source) + `</code></pre>`
	}
	return highlight(c.Source, r.language)
}

// shownCode is the first cell that showed a source.
type shownCode struct{ id, label string }

// textEscaper escapes what text between tags must: quotes need escaping
// only in attributes, and code is full of them.
var textEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// escapeText escapes s for an element's text (never an attribute).
func escapeText(s string) string { return textEscaper.Replace(s) }

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}

func firstError(outs []nbformat.Output) *nbformat.Output {
	for i := range outs {
		if outs[i].OutputType == nbformat.OutputError {
			return &outs[i]
		}
	}
	return nil
}

func errorLine(o *nbformat.Output) string {
	s := plainText(o.EName)
	if v := plainText(o.EValue); v != "" {
		s += ": " + v
	}
	return clip.Runes(s, 160)
}

// outputs renders a cell's outputs. Consecutive stream outputs of one name
// are joined, as Jupyter shows them. When hidden (outputs_hidden), all but
// errors go in a collapsed <details>; errors are never hidden.
func (r *cellRenderer) outputs(outs []nbformat.Output, hidden bool) (string, error) {
	if len(outs) == 0 {
		return "", nil
	}
	var shown, errs strings.Builder
	n := 0
	for i := 0; i < len(outs); i++ {
		o := outs[i]
		if o.OutputType == nbformat.OutputStream {
			text := o.Text
			for i+1 < len(outs) && outs[i+1].OutputType == nbformat.OutputStream && outs[i+1].Name == o.Name {
				i++
				text += outs[i].Text
			}
			o.Text = text
		}
		s, err := r.output(o)
		if err != nil {
			return "", err
		}
		if s == "" {
			continue
		}
		if o.OutputType == nbformat.OutputError && hidden {
			errs.WriteString(s)
			continue
		}
		shown.WriteString(s)
		n++
	}
	var b strings.Builder
	b.WriteString(`<div class="outputs">` + "\n")
	if hidden && n > 0 {
		fmt.Fprintf(&b, `<details class="hidden-outputs"><summary>Outputs (%d, hidden in the notebook)</summary>`+"\n", n)
		b.WriteString(shown.String())
		b.WriteString("</details>\n")
	} else {
		b.WriteString(shown.String())
	}
	b.WriteString(errs.String())
	b.WriteString("</div>\n")
	return b.String(), nil
}

// output renders one output.
func (r *cellRenderer) output(o nbformat.Output) (string, error) {
	switch o.OutputType {
	case nbformat.OutputStream:
		text := plainText(o.Text)
		if text == "" {
			return "", nil
		}
		name := "stdout"
		if o.Name == "stderr" {
			name = "stderr"
		}
		return `<pre class="stream ` + name + `">` + html.EscapeString(capText(text, maxTextOutput)) + "</pre>\n", nil
	case nbformat.OutputError:
		var b strings.Builder
		b.WriteString(`<div class="output-error" role="alert">`)
		fmt.Fprintf(&b, `<p class="error-name"><strong>%s</strong>`, html.EscapeString(plainText(o.EName)))
		if v := plainText(o.EValue); v != "" {
			fmt.Fprintf(&b, `: %s`, html.EscapeString(v))
		}
		b.WriteString("</p>")
		if len(o.Traceback) > 0 {
			tb := plainText(strings.Join(o.Traceback, "\n"))
			b.WriteString(`<pre class="traceback">` + html.EscapeString(capText(tb, maxTextOutput)) + "</pre>")
		}
		b.WriteString("</div>\n")
		return b.String(), nil
	case nbformat.OutputDisplayData, nbformat.OutputExecuteResult:
		return r.richOutput(o)
	}
	return "", nil
}

// richOutput renders a display_data or execute_result: the richest
// representation the page can show safely, a chart's description beside
// its image. Nothing of it runs: HTML is sanitised, Markdown and LaTeX are
// rendered as the notebook's own Markdown is (raw HTML left out), an SVG is
// cleaned and shown as an image, JSON as text.
func (r *cellRenderer) richOutput(o nbformat.Output) (string, error) {
	desc, isChart := o.Data[nbformat.MimeChart]
	alt, class := "Image", "output-image"
	if isChart {
		alt, class = chartAlt(desc), "chart"
	}
	if img, ok := outputImage(o, alt); ok {
		var b strings.Builder
		b.WriteString(`<figure class="` + class + `">` + img)
		if isChart {
			b.WriteString(`<details class="chart-data"><summary>Chart data</summary><pre>` +
				html.EscapeString(capText(prettyJSON(desc), maxChartJSON)) + "</pre></details>")
		}
		b.WriteString("</figure>\n")
		return b.String(), nil
	}
	if s, ok := o.DataString(nbformat.MimeHTML); ok {
		return `<div class="output-html">` + sanitizeHTML(s) + "</div>\n", nil
	}
	for _, mime := range []string{nbformat.MimeMarkdown, nbformat.MimeLaTeX} {
		if s, ok := o.DataString(mime); ok {
			body, err := r.md.render(s, nil, 2)
			if err != nil {
				return "", err
			}
			return `<div class="output-markdown">` + body + "</div>\n", nil
		}
	}
	if raw, ok := o.Data[nbformat.MimeJSON]; ok && !isChart {
		return `<pre class="output-json">` + html.EscapeString(capText(prettyJSON(raw), maxJSONOutput)) + "</pre>\n", nil
	}
	var b strings.Builder
	if isChart {
		// A chart without an image (a plotly figure the image could not
		// render): its description is what there is.
		fmt.Fprintf(&b, `<figure class="chart chart-no-image"><p class="muted">%s (no image)</p><details class="chart-data"><summary>Chart data</summary><pre>%s</pre></details></figure>`+"\n",
			html.EscapeString(chartAlt(desc)), html.EscapeString(capText(prettyJSON(desc), maxJSONOutput)))
	}
	if s, ok := o.DataString(nbformat.MimePlain); ok && !isChart {
		b.WriteString(`<pre class="output-text">` + html.EscapeString(capText(plainText(s), maxTextOutput)) + "</pre>\n")
	}
	// Other JSON outputs (a profile, a plotly figure): collapsed, as data.
	for _, mime := range sortedKeys(o.Data) {
		if mime == nbformat.MimeChart || !(mime == nbformat.MimeJSON || strings.HasSuffix(mime, "+json")) {
			continue
		}
		if strings.HasPrefix(mime, nbformat.MimeAnalystPrefix) {
			// analyst's own data (the profile, the sketch, ...): the report
			// shows it as the overview; the notebook keeps it whole.
			continue
		}
		fmt.Fprintf(&b, `<details class="output-json"><summary>Data (%s)</summary><pre>%s</pre></details>`+"\n",
			html.EscapeString(mime), html.EscapeString(capText(prettyJSON(o.Data[mime]), maxJSONOutput)))
	}
	return b.String(), nil
}

// outputImage is the first image of o the page can show: PNG, JPEG or GIF
// (base64), or an SVG (text, as Jupyter stores it), cleaned.
func outputImage(o nbformat.Output, alt string) (string, bool) {
	for _, mime := range []string{nbformat.MimePNG, nbformat.MimeJPEG, nbformat.MimeGIF} {
		if s, ok := o.DataString(mime); ok {
			if img, ok := imageTag(mime, s, alt); ok {
				return img, true
			}
		}
	}
	if s, ok := o.DataString(nbformat.MimeSVG); ok {
		return svgImage(s, alt)
	}
	return "", false
}

// imageTag is an <img> for base64 raster image data, with its pixel size
// (a PNG in fewer colours when smaller: see palettedPNG); false when the data is not a decodable image.
func imageTag(mime, b64, alt string) (string, bool) {
	b64 = stripSpace(b64)
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(raw) == 0 {
		return "", false
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		return "", false
	}
	if mime == nbformat.MimePNG {
		if small := palettedPNG(raw); len(small) < len(raw) {
			b64 = base64.StdEncoding.EncodeToString(small)
		}
	}
	return fmt.Sprintf(`<img src="data:%s;base64,%s" alt="%s" width="%d" height="%d">`, mime, b64, html.EscapeString(alt), cfg.Width, cfg.Height), true
}

// chartAlt describes a chart in a few words from its description: "Bar
// chart: Revenue by month (x: month, y: revenue)".
func chartAlt(desc json.RawMessage) string {
	var d struct {
		Kind   string `json:"kind"`
		Title  string `json:"title"`
		XLabel string `json:"x_label"`
		YLabel string `json:"y_label"`
	}
	if len(desc) == 0 || json.Unmarshal(desc, &d) != nil {
		return "Chart"
	}
	kind := "Chart"
	switch d.Kind {
	case "", "unknown", "empty":
	case "mixed":
		kind = "Combined chart"
	case "hist":
		kind = "Histogram"
	case "heatmap":
		kind = "Heatmap"
	default:
		kind = strings.ToUpper(d.Kind[:1]) + d.Kind[1:] + " chart"
	}
	s := kind
	if d.Title != "" {
		s += ": " + d.Title
	}
	var axes []string
	if d.XLabel != "" {
		axes = append(axes, "x: "+d.XLabel)
	}
	if d.YLabel != "" {
		axes = append(axes, "y: "+d.YLabel)
	}
	if len(axes) > 0 {
		s += " (" + strings.Join(axes, ", ") + ")"
	}
	return clip.Runes(s, 300)
}

// prettyJSON lays out JSON for reading, keeping its key order: one member
// of an object per line, and arrays of plain values (a chart's numbers) run
// together on lines of about 100 characters rather than one per line.
func prettyJSON(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b strings.Builder
	if err := writeJSON(&b, dec, ""); err != nil {
		return string(raw)
	}
	return b.String()
}

func writeJSON(b *strings.Builder, dec *json.Decoder, indent string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		b.WriteString(jsonScalar(tok))
		return nil
	}
	switch d {
	case '{':
		return writeJSONObject(b, dec, indent)
	case '[':
		return writeJSONArray(b, dec, indent)
	}
	return fmt.Errorf("unexpected %v", d)
}

// writeJSONObject writes an object whose '{' was read: one key a line.
func writeJSONObject(b *strings.Builder, dec *json.Decoder, indent string) error {
	if !dec.More() {
		_, err := dec.Token()
		b.WriteString("{}")
		return err
	}
	inner := indent + "  "
	b.WriteString("{")
	for i := 0; dec.More(); i++ {
		if i > 0 {
			b.WriteString(",")
		}
		key, err := dec.Token()
		if err != nil {
			return err
		}
		b.WriteString("\n" + inner + jsonScalar(key) + ": ")
		if err := writeJSON(b, dec, inner); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	b.WriteString("\n" + indent + "}")
	return err
}

// writeJSONArray writes an array whose '[' was read: plain values run
// together, anything else goes one per line.
func writeJSONArray(b *strings.Builder, dec *json.Decoder, indent string) error {
	inner := indent + "  "
	var parts []string
	plain := true
	for dec.More() {
		var sb strings.Builder
		if err := writeJSON(&sb, dec, inner); err != nil {
			return err
		}
		s := sb.String()
		if strings.HasPrefix(s, "{") && s != "{}" || strings.HasPrefix(s, "[") && strings.Contains(s, "\n") {
			plain = false
		}
		parts = append(parts, s)
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	switch {
	case len(parts) == 0:
		b.WriteString("[]")
	case !plain:
		b.WriteString("[")
		for i, p := range parts {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n" + inner + p)
		}
		b.WriteString("\n" + indent + "]")
	default:
		writePlainJSONList(b, parts, inner)
	}
	return nil
}

// writePlainJSONList writes plain values as a list, wrapped at about 100
// characters.
func writePlainJSONList(b *strings.Builder, parts []string, inner string) {
	b.WriteString("[")
	line := 0
	for i, p := range parts {
		if i > 0 {
			b.WriteString(",")
			if line+len(p) > 100 {
				b.WriteString("\n" + inner)
				line = 0
			} else {
				b.WriteString(" ")
			}
		}
		b.WriteString(p)
		line += len(p) + 2
	}
	b.WriteString("]")
}

func jsonScalar(tok json.Token) string {
	switch v := tok.(type) {
	case nil:
		return "null"
	case bool:
		if v {
			return "true"
		}
		return "false"
	case json.Number:
		return v.String()
	case string:
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v)
		return strings.TrimSuffix(b.String(), "\n")
	}
	return fmt.Sprint(tok)
}

// capText cuts text to n bytes (at a rune boundary) with a visible marker.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n… [%d more bytes not shown here; the notebook has them all]", len(s)-cut)
}
