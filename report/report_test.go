package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/nbformat"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// tinyPNG is a valid 4×3 PNG.
const tinyPNG = "iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAIAAAA7ljmRAAAAHElEQVR4nGJhYDhhw8AAQSwMAQxwgMIBBAAA//8+7wIp3Ypf3wAAAABJRU5ErkJggg=="

// dataFrameHTML is what pandas writes for a frame with a column named
// <b>x</b>"' and a cell holding a script (pandas escapes both), followed by
// raw HTML that a cell could display on purpose.
const dataFrameHTML = `<div>
<style scoped>
    .dataframe tbody tr th:only-of-type { vertical-align: middle; }
</style>
<table border="1" class="dataframe">
  <thead>
    <tr style="text-align: right;">
      <th></th>
      <th>&lt;b&gt;x&lt;/b&gt;"'</th>
      <th>label</th>
    </tr>
  </thead>
  <tbody>
    <tr>
      <th>0</th>
      <td>1.5</td>
      <td>&lt;script&gt;alert(1)&lt;/script&gt;</td>
    </tr>
    <tr>
      <th>1</th>
      <td>NaN</td>
      <td>naïve café 中文</td>
    </tr>
  </tbody>
</table>
<p>2 rows × 2 columns</p>
</div>
<script>alert(2)</script><img src="x" onerror="alert(3)"><a href="javascript:alert(4)">link</a>`

func jstr(s string) json.RawMessage { return nbformat.Text(s) }

func f64(v float64) *float64 { return &v }

// goldenInput is a run that stopped in its visualization stage: markdown
// with formulas, a DataFrame, a stream on each side, a chart, a failed
// attempt with a coloured traceback, a profile with alerts.
func goldenInput() Input {
	nb := nbformat.New()
	nb.AddMarkdown("# Loading\n\nThe file is read once; rows with a bad date are *kept* as text.", nbformat.StageTag("load"))
	nb.AddCode("import pandas as pd\ndf = pd.read_csv('/data/sales.csv')\ndf.head(2)",
		[]nbformat.Output{
			nbformat.Stream("stdout", "read 2 rows\n"),
			nbformat.Stream("stdout", "done\n"),
			nbformat.Stream("stderr", "UserWarning: \x1b[33mdate\x1b[0m parsing fell back\n"),
			nbformat.ExecuteResult(1, nbformat.MimeBundle{
				"text/html":  jstr(dataFrameHTML),
				"text/plain": jstr("   <b>x</b>\"'  label\n0  1.5  <script>..."),
			}, nil),
		}, 1, nbformat.StageTag("load"))
	nb.AddMarkdown("## Mean and spread\n\nThe mean is\n\n$$\\bar{x} = \\frac{1}{n}\\sum_{i=1}^{n} x_i$$\n\n"+
		"and the standard deviation $s_{x}$ of a_b_c uses `$not math$` in code; it costs $5 and $10.\n\n"+
		"| stat | formula |\n|---|---|\n| variance | $s^2 = \\frac{1}{n-1}\\sum (x_i - \\bar{x})^2$ |\n",
		nbformat.StageTag("distributions"))
	nb.AddCode("ax = df['x'].plot.bar(title='Sales by region')\nplt.show()",
		[]nbformat.Output{
			nbformat.DisplayData(nbformat.MimeBundle{
				"image/png":  jstr(tinyPNG),
				"text/plain": jstr("<Figure size 640x480 with 1 Axes>"),
				"application/vnd.analyst.chart+json": json.RawMessage(`{"kind":"bar","title":"Sales by region","x_label":"region","y_label":"sales",` +
					`"axes":[{"kind":"bar","series":[{"label":"x","x":["north","south"],"y":[1.5,null]}]}],"truncated":false}`),
			}, nil),
		}, 2, nbformat.StageTag("distributions"))
	failed := nb.AddCode("df.groupby('region')['sales'].sum() / 0",
		[]nbformat.Output{
			nbformat.Error("ZeroDivisionError", "division by zero", []string{
				"\x1b[0;31m---------------------------------------------------------------------------\x1b[0m",
				"\x1b[0;31mZeroDivisionError\x1b[0m                         Traceback (most recent call last)",
				"Cell \x1b[0;32mIn[3], line 1\x1b[0m\n\x1b[0;32m----> 1\x1b[0m df.groupby(\x1b[38;5;124m'region'\x1b[39m)",
				"\x1b[0;31mZeroDivisionError\x1b[0m: division by zero",
			}),
		}, 3, nbformat.StageTag("visualization"), nbformat.TagFailedAttempt)
	_ = failed
	nb.AddCode("print('<b>not bold</b> & done')", []nbformat.Output{nbformat.Stream("stdout", "<b>not bold</b> & done\n")}, 4,
		nbformat.StageTag("visualization"), nbformat.TagCollapsed)
	nb.AddCode("raise RuntimeError('model gave up')", []nbformat.Output{
		nbformat.Error("RuntimeError", "model gave up", []string{"Traceback (most recent call last):", "RuntimeError: model gave up"}),
	}, 5, nbformat.StageTag("visualization"))
	nb.AddMarkdown("A cell of no stage.")

	profile := &eda.Profile{
		Rows: 1234567, Columns: 3, MemoryBytes: 3 << 20, DuplicateRows: 2,
		Load: eda.LoadInfo{Format: "csv", Encoding: "utf-8-sig", BOM: true, Delimiter: ";", Decimal: ",",
			ParsedDates: []string{"date"}, NAValues: []string{"", "-", "n/a"},
			Notes: []string{"3 ragged rows skipped", "duplicate column names renamed: a, a.1",
				"'price' held numbers as text and was converted: currency symbols $ removed"}},
		ColumnInfo: []eda.Column{
			{Name: `<b>x</b>"'`, Dtype: "float64", Kind: eda.KindNumeric, Missing: 1, MissingShare: 0.5, Distinct: 1, DistinctShare: 0.5,
				Sample: []string{"1.5", "<script>alert(5)</script>"}, Min: f64(1.5), Max: f64(1.5),
				Markers: []eda.TopValue{{Value: "n/a", Count: 1, Share: 0.5}}},
			{Name: "label", Dtype: "object", Kind: eda.KindText, Distinct: 2, DistinctShare: 1,
				Sample: []string{"naïve café 中文", "a", "b", "c", "d", "e", "f"}},
			{Name: "date", Dtype: "datetime64[ns]", Kind: eda.KindDatetime, Missing: 0, Distinct: 2, DistinctShare: 0.0004,
				Sample: []string{"2024-01-01"}},
		},
		Alerts: []eda.Alert{
			{Type: eda.AlertHighMissing, Column: `<b>x</b>"'`, Value: f64(0.5), Message: `<b>x</b>"' has 50% missing values`},
			{Type: eda.AlertUniqueID, Column: "label", Message: "label is unique: an identifier?"},
			{Type: eda.AlertCaseVariants, Column: "label", Value: f64(1), Message: "'label' has values that differ only by case or surrounding spaces, counted as different categories: 'North' (3), 'NORTH ' (1)"},
			{Type: eda.AlertMissingMarkers, Column: `<b>x</b>"'`, Value: f64(1), Message: `'<b>x</b>"'' had 1 missing-value markers, now missing: 'n/a' (1)`},
		},
	}
	return Input{
		Title:    `Sales <by> region & "more"`,
		Question: "Which region sells most?",
		Answer:   goldenAnswer,
		Numbers:  goldenNumbers(nb),
		Notebook: nb,
		Profile:  profile,
		Distributions: map[string]*Distribution{
			`<b>x</b>"'`: {Points: []float64{1.5}, Weights: []int64{1}},
			"date":       {Periods: [][2]int64{{19723, 1}, {19724, 1}}},
		},
		Run: RunInfo{
			DataName:   "sales.csv",
			DataSHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
			DataBytes:  1536000,
			Started:    time.Date(2026, 3, 1, 14, 5, 9, 0, time.FixedZone("CET", 3600)),
			Duration:   125 * time.Second,
			Stages: []StageInfo{
				{Name: "load", Title: "Load", Status: "ok", Duration: 1200 * time.Millisecond},
				{Name: "distributions", Title: "Distributions", Status: "ok", Duration: 3 * time.Second},
				{Name: "visualization", Title: "Visualization", Status: "error", Duration: 70 * time.Second, Lead: true},
				{Name: "reflection", Title: "Reflection", Status: "skipped", Lead: true},
				{Name: "summary", Title: "Summary"},
			},
			Failure:        "the model did not produce a final answer after 3 attempts",
			AnalystVersion: "0.4.0",
			DriverHash:     "d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2",
			ImageID:        "64bc365eda2385e1",
			Versions:       map[string]string{"scipy": "1.15.3", "python": "3.13.5", "pandas": "2.2.3+dfsg", "numpy": "2.2.4", "matplotlib": "3.10.1+dfsg1"},
			Model: &ModelInfo{Name: "ollama:qwen2.5-coder:7b", Digest: "sha256:2b0496514337a3d5ada0ac3dbd8b66a3e2bcd4c7ab5f6d5a4cb4c3f9a1b2c3d4", Mode: "tools",
				Settings:     []Setting{{"Temperature", "0"}, {"Seed", "42"}, {"Max turns", "10"}},
				PromptTokens: 12345, CompletionTokens: 678, Calls: 7, Retries: 2},
		},
	}
}

// goldenAnswer states a traced number (1.5, shown by the chart cell), an
// untraced one (12%) and a number inside a formula (left as it is).
const goldenAnswer = "The **north** sells most: @total[1.5], 12% more than the south, with mean $\\bar{x}=1.5$."

// goldenNumbers marks goldenAnswer's numbers as numtrace would.
func goldenNumbers(nb *nbformat.Notebook) []NumberMark {
	chart := nb.Cells[3].ID
	at := func(s string, from int) int { return from + strings.Index(goldenAnswer[from:], s) }
	first := at("1.5", 0)
	pct := at("12%", 0)
	formula := at("1.5", pct)
	return []NumberMark{
		{Start: first, End: first + 3, Cell: chart, Output: "1.5"},
		{Start: pct, End: pct + 3},
		{Start: formula, End: formula + 3, Cell: chart, Output: "1.5"},
	}
}

func render(t *testing.T, in Input) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, in); err != nil {
		t.Fatalf("Render: %v", err)
	}
	return b.String()
}

func TestGolden(t *testing.T) {
	got := render(t, goldenInput())
	path := filepath.Join("testdata", "golden.html")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -run TestGolden -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("report differs from %s (-want +got; -update rewrites it):\n%s", path, diff)
	}
}

// TestGoldenContent checks what the golden file must show, so that an
// -update cannot quietly accept a broken report.
func TestGoldenContent(t *testing.T) {
	out := render(t, goldenInput())
	for _, want := range []string{
		// header: escaped title, data facts, short sha with the full one in a title
		`<title>Sales &lt;by&gt; region &amp; &#34;more&#34;</title>`,
		`<dd title="9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"><code>9f86d081884c</code></dd>`,
		`1,234,567 rows × 3 columns`,
		`2026-03-01 13:05 UTC`,
		`2 min 05 s`,
		`1.5 MiB`,
		// failure banner naming the stage, and the stages not reached
		`The run stopped at stage <a href="#stage-visualization">Visualization</a>:</strong> the model did not produce a final answer after 3 attempts`,
		`Not reached: Reflection, Summary.`,
		`<span class="badge status-not-reached">not reached</span>`,
		// overview: escaped column names, samples, alerts, load notes
		`<th scope="row" class="colname">&lt;b&gt;x&lt;/b&gt;&#34;&#39;</th>`,
		`<code>&lt;script&gt;alert(5)&lt;/script&gt;</code>`,
		// a column's alerts on one line, its badges first
		`<li><span class="badge alert-badge alert-high-missing">high missing</span> <span class="badge alert-badge alert-missing-markers">missing markers</span> &lt;b&gt;x&lt;/b&gt;&#34;&#39; has 50% missing values; &#39;&lt;b&gt;x`,
		`utf-8-sig (with byte-order mark)`, `semicolon (;)`, `3 ragged rows skipped`,
		// each column's shape, from the sketch's numbers
		`<td class="shape"><svg class="spark" width="96" height="24" viewBox="0 0 96 24" role="img" aria-label="Every value of &lt;b&gt;x&lt;/b&gt;&#34;&#39; is 1.5">`,
		`<td class="shape"></td>`, // text, nothing to draw
		// missing-value markers and conversions: the list applied, per column, alerts and notes
		`<dt>Read as missing</dt> <dd>&#34;&#34; &#34;-&#34; &#34;n/a&#34; (ignoring case and surrounding spaces)</dd>`,
		`title="1 missing, of which markers: &#34;n/a&#34; 1"`,
		`<li><span class="badge alert-badge alert-unique-id">unique id</span> <span class="badge alert-badge alert-case-variants">case variants</span> label is unique: an identifier?; &#39;label&#39; has values that differ only by case`,
		`&#39;price&#39; held numbers as text and was converted: currency symbols $ removed`,
		// formulas kept for KaTeX-less display, escaped
		`<code class="math math-display">$$\bar{x} = \frac{1}{n}\sum_{i=1}^{n} x_i$$</code>`,
		`<code class="math math-inline">$s_{x}$</code>`,
		`<code>$not math$</code>`, `it costs $5 and $10.`,
		// the DataFrame table, sanitised but a table; its script cell as text
		`<table border="1" class="dataframe">`, `<tr style="text-align: right">`,
		`<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>`, `<th>&lt;b&gt;x&lt;/b&gt;&#34;&#39;</th>`,
		// streams joined, stderr apart, ANSI codes gone
		"<pre class=\"stream stdout\">read 2 rows\ndone\n</pre>",
		`<pre class="stream stderr">UserWarning: date parsing fell back`,
		// the chart with its alt text, size and data
		`<img src="data:image/png;base64,` + tinyPNG + `" alt="Bar chart: Sales by region (x: region, y: sales)" width="4" height="3">`,
		`<details class="chart-data"><summary>Chart data</summary>`,
		// the failed attempt, collapsed and labelled, its error in the summary
		`<details class="cell code-cell failed-attempt"`, `<span class="badge badge-failed-attempt">failed attempt</span> <span class="summary-error">ZeroDivisionError: division by zero</span>`,
		"ZeroDivisionError: division by zero</pre>",
		`<details class="cell code-cell collapsed-cell"`,
		// an error outside a failed attempt is shown
		`<div class="output-error" role="alert"><p class="error-name"><strong>RuntimeError</strong>: model gave up</p>`,
		// untagged cells are kept
		`Other cells`, `A cell of no stage.`,
		// the model: in the header with its tokens, in "about" with its
		// digest, settings, calls and retries
		`<div><dt>Model</dt> <dd title="sha256:2b0496514337a3d5ada0ac3dbd8b66a3e2bcd4c7ab5f6d5a4cb4c3f9a1b2c3d4 · Temperature 0 · Seed 42 · Max turns 10"><code>ollama:qwen2.5-coder:7b</code></dd></div>`,
		`<div><dt>Tokens</dt> <dd title="12,345 prompt &#43; 678 completion">13,023</dd></div>`,
		`<dt>Model digest</dt> <dd title="sha256:2b0496514337a3d5ada0ac3dbd8b66a3e2bcd4c7ab5f6d5a4cb4c3f9a1b2c3d4"><code>2b0496514337</code>`,
		`<dt>Mode</dt> <dd>tools</dd>`, `<dt>Seed</dt> <dd>42</dd>`, `<dt>Max turns</dt> <dd>10</dd>`,
		`<dt>Model calls</dt> <dd>7</dd>`, `<dt>Retries</dt> <dd>2</dd>`,
		// the answer's numbers: traced ones link to their cell, untraced
		// ones are marked in words too; a formula is left whole
		`@total[<a class="traced" href="#cell-` + goldenInput().Notebook.Cells[3].ID + `" title="Traced to cell In [2], whose output shows 1.5">1.5</a>]`,
		`<div class="cell code-cell" id="cell-` + goldenInput().Notebook.Cells[3].ID + `">`,
		`<span class="untraced" title="Not traced to any cell: no cell's output shows this number">12%<sup class="untraced-mark">untraced</sup></span> more`,
		`<code class="math math-inline">$\bar{x}=1.5$</code>`,
		// about this run, versions in a stable order
		`<dt>python</dt> <dd>3.13.5</dd></div>
<div><dt>pandas</dt>`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	alerts := out[strings.Index(out, `<ul class="alerts">`):]
	if n := strings.Count(alerts[:strings.Index(alerts, "</ul>")], "<li>"); n != 2 {
		t.Errorf("%d lines of alerts, want 2: one per column", n)
	}
	for _, bad := range []string{"\x1b", "<script>alert", "onerror", "javascript:", `src="x"`, "<style scoped>"} {
		if strings.Contains(out, bad) {
			t.Errorf("report contains %q", bad)
		}
	}
	// The question stages come right after the answer, the data after
	// them, in the page and in the contents.
	order := []string{`<section id="answer"`, `<section id="stage-visualization"`, `<section id="stage-reflection"`,
		`<section id="overview"`, `<section id="stage-load"`, `<section id="stage-distributions"`, `<footer id="about"`}
	toc := []string{`<li><a href="#answer"`, `<li><a href="#stage-visualization"`, `<li><a href="#stage-reflection"`, `<li><a href="#overview"`, `<li><a href="#stage-load"`}
	for _, seq := range [][]string{order, toc} {
		for i := 1; i < len(seq); i++ {
			if a, b := strings.Index(out, seq[i-1]), strings.Index(out, seq[i]); a < 0 || b < a {
				t.Errorf("%s at %d, then %s at %d", seq[i-1], a, seq[i], b)
			}
		}
	}
	// Only the report's own print script; no KaTeX without KaTeXDir.
	if n := strings.Count(out, "<script"); n != 1 {
		t.Errorf("%d <script> elements, want 1 (the print helper)", n)
	}
}

func TestDeterministic(t *testing.T) {
	first := render(t, goldenInput())
	for i := 0; i < 5; i++ { // map order (Versions) differs between runs
		if got := render(t, goldenInput()); got != first {
			t.Fatalf("render %d differs from the first", i+2)
		}
	}
}

// externalRef finds a URL with a scheme that would leave the file in an
// attribute or a CSS url().
var externalRef = regexp.MustCompile(`(?i)(?:\b(?:src|href|action|poster|srcset|data)\s*=\s*["']?\s*|url\(\s*["']?\s*|@import\s+["']?)(?:[a-z][a-z0-9+.-]*:|//)`)

func externalRefs(doc string) []string {
	var refs []string
	for _, loc := range externalRef.FindAllStringIndex(doc, -1) {
		m := doc[loc[0]:min(len(doc), loc[1]+40)]
		if strings.Contains(strings.ToLower(m), "data:") || strings.HasPrefix(strings.ToLower(strings.TrimLeft(doc[loc[0]:], " ")), "href=\"#") {
			continue
		}
		refs = append(refs, m)
	}
	return refs
}

func TestNoExternalURLs(t *testing.T) {
	in := goldenInput()
	in.Notebook.AddMarkdown("See [the docs](https://pandas.pydata.org/docs/), <http://example.com/x>, "+
		"![logo](https://example.com/logo.png), ![local](chart.png), [protocol-relative](//example.com/y), "+
		"[mail](mailto:a@example.com), [a section](#overview) and [a file](out/chart.png).", nbformat.StageTag("load"))
	out := render(t, in)
	if refs := externalRefs(out); len(refs) > 0 {
		t.Errorf("references out of the page: %q", refs)
	}
	// External addresses remain as visible text only; anchors and files
	// beside the report remain links.
	for _, want := range []string{
		"the docs (https://pandas.pydata.org/docs/)", ", http://example.com/x, ",
		"<em>[image not included: logo (https://example.com/logo.png)]</em>",
		"<em>[image not included: local (chart.png)]</em>",
		"protocol-relative (//example.com/y)", "mail (mailto:a@example.com)",
		`<a href="#overview">a section</a>`, `<a href="out/chart.png">a file</a>`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// Without that cell the page holds no http URL at all.
	if out := render(t, goldenInput()); strings.Contains(out, "http:") || strings.Contains(out, "https:") {
		t.Errorf("report holds an http URL")
	}
}

func TestMathSurvivesGoldmark(t *testing.T) {
	tests := []struct {
		name, md string
		katex    bool
		want     []string
		notWant  []string
	}{
		{
			name:  "display and inline, KaTeX",
			md:    "$$\\bar{x} = \\frac{1}{n}\\sum_{i=1}^{n} x_i$$\n\nwhere $s_{x}$ is the spread.",
			katex: true,
			want: []string{
				`<span class="math math-display">$$\bar{x} = \frac{1}{n}\sum_{i=1}^{n} x_i$$</span>`,
				`<span class="math math-inline">$s_{x}$</span> is the spread.`,
			},
		},
		{
			name: "display and inline, no KaTeX",
			md:   "$$\\bar{x} = \\frac{1}{n}\\sum_{i=1}^{n} x_i$$ and $s_{x}$",
			want: []string{
				`<code class="math math-display">$$\bar{x} = \frac{1}{n}\sum_{i=1}^{n} x_i$$</code>`,
				`<code class="math math-inline">$s_{x}$</code>`,
			},
		},
		{
			name:  "escaped",
			md:    "$a < b \\land c > d \\text{ & } e$ and $$x^{\"y\"}$$",
			katex: true,
			want:  []string{`$a &lt; b \land c &gt; d \text{ &amp; } e$`, `$$x^{&#34;y&#34;}$$`},
		},
		{
			name:  "underscores and stars in formulas are not emphasis",
			md:    "$a_i * b_j * c_k$ and $x_1$ then _real emphasis_",
			katex: true,
			want:  []string{`$a_i * b_j * c_k$`, `$x_1$`, `<em>real emphasis</em>`},
		},
		{
			name:  "multi-line display",
			md:    "$$\n\\begin{aligned}\na &= b \\\\\n- c &= d\n\\end{aligned}\n$$",
			katex: true,
			want:  []string{"$$\n\\begin{aligned}\na &amp;= b \\\\\n- c &amp;= d\n\\end{aligned}\n$$"},
		},
		{
			name: "not math",
			md:   "costs $5 and $10; an escaped \\$x\\$; `$code$`\n\n```\n$fenced$\n```\n\n    $indented$\n",
			want: []string{"costs $5 and $10", "escaped $x$", "<code>$code$</code>", "$fenced$\n</code></pre>", "$indented$\n</code></pre>"},
			notWant: []string{
				"math-inline",
			},
		},
		{
			name:    "a formula in a link title stays text",
			md:      `[x](#a "$y_1$")`,
			katex:   true,
			want:    []string{`title="$y_1$"`},
			notWant: []string{"<span"},
		},
		{
			name:  "in a table",
			md:    "| a | b |\n|---|---|\n| $|x|$ | $y_{|z|}$ |\n",
			katex: true,
			want:  []string{`<td><span class="math math-inline">$|x|$</span></td>`, `$y_{|z|}$`},
		},
		{
			name:    "no blank line inside",
			md:      "$a\n\nb$",
			katex:   true,
			notWant: []string{"math"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := markdownRenderer{katex: tt.katex}.render(tt.md, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in\n%s", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("unexpected %q in\n%s", w, got)
				}
			}
			if strings.Contains(got, "zmathz") {
				t.Errorf("a placeholder was left:\n%s", got)
			}
		})
	}
}

func TestMarkdownSafety(t *testing.T) {
	got, err := markdownRenderer{}.render("# Title\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1)) <img src=x onerror=alert(1)>\n\n![a](attachment:a.png)", map[string]nbformat.MimeBundle{
		"a.png": {"image/png": jstr(tinyPNG)},
	}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script", "javascript:", "onerror", "<h1"} {
		if strings.Contains(got, bad) {
			t.Errorf("markdown output holds %q:\n%s", bad, got)
		}
	}
	for _, want := range []string{"<h3>Title</h3>", `<img src="data:image/png;base64,` + tinyPNG + `" alt="a">`} {
		if !strings.Contains(got, want) {
			t.Errorf("markdown output lacks %q:\n%s", want, got)
		}
	}
}

func TestSanitizeHTML(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		notWant  []string
	}{
		{
			name:    "DataFrame stays a table",
			in:      dataFrameHTML,
			want:    []string{`<table border="1" class="dataframe">`, `<thead>`, `<tr style="text-align: right">`, `<th>0</th>`, `<td>1.5</td>`, `<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>`, `naïve café 中文`},
			notWant: []string{"<script", "<style", "onerror", "javascript:", "<a ", "<img"},
		},
		{
			name:    "event handlers and script URLs",
			in:      `<td onclick="x()">a</td><div onmouseover="x()" style="background:url(http://e.com/a.png)">b</div><svg onload="x()"><a xlink:href="javascript:x()">c</a></svg><iframe src="http://e.com"></iframe><form action="http://e.com"><input></form>`,
			want:    []string{"a", "b", "c"},
			notWant: []string{"onclick", "onmouseover", "onload", "javascript", "http", "<iframe", "<form", "<input", "<svg", "style="},
		},
		{
			name:    "images only as data",
			in:      `<img src="http://e.com/t.gif" alt="t"><img src="data:image/png;base64,` + tinyPNG + `" alt="ok"><img src="data:text/html;base64,PHNjcmlwdD4=">`,
			want:    []string{`<img src="data:image/png;base64,` + tinyPNG + `" alt="ok">`},
			notWant: []string{"http", "text/html"},
		},
		{
			name:    "spans and alignment",
			in:      `<table><tr><th colspan="2" rowspan="1" style="text-align: center; color: red">h</th></tr></table>`,
			want:    []string{`colspan="2"`, `rowspan="1"`, `text-align: center`},
			notWant: []string{"color"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sanitizeHTML(tt.in)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in\n%s", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("unexpected %q in\n%s", w, got)
				}
			}
		})
	}
}

func TestPlainText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"\x1b[0;31mred\x1b[0m plain", "red plain"},
		{"\x1b[38;5;124m'x'\x1b[39m", "'x'"},
		{"\x1b]8;;http://e.com\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"10%\r50%\r100%\ndone\r\n", "100%\ndone\n"},
		{"bell\x07 tab\tok", "bell tab\tok"},
	}
	for _, tt := range tests {
		if got := plainText(tt.in); got != tt.want {
			t.Errorf("plainText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStages(t *testing.T) {
	nb := nbformat.New()
	nb.AddMarkdown("early", nbformat.StageTag("b"))
	nb.AddMarkdown("first", nbformat.StageTag("a"))
	nb.AddMarkdown("unknown stage", nbformat.StageTag("extra"))
	nb.AddMarkdown("second", nbformat.StageTag("a"))
	out := render(t, Input{Notebook: nb, Run: RunInfo{Stages: []StageInfo{
		{Name: "a", Title: "Stage A", Status: "ok"},
		{Name: "b", Title: "Stage B", Status: "ok"},
		{Name: "c", Title: "Stage C", Status: "skipped"},
	}}})
	var order []int
	for _, s := range []string{`id="stage-a"`, "first", "second", `id="stage-b"`, "early", `id="stage-c"`, "Skipped.", `id="stage-extra"`, "unknown stage"} {
		order = append(order, strings.Index(out, s))
	}
	for i := range order {
		if order[i] < 0 || i > 0 && order[i] < order[i-1] {
			t.Fatalf("sections out of order (positions %v)", order)
		}
	}
	if strings.Contains(out, `class="banner banner-failure"`) || strings.Contains(out, "badge status-not-reached") {
		t.Errorf("a run without failure shows one")
	}
	if !strings.Contains(out, "No data profile") {
		t.Errorf("a nil profile is not mentioned")
	}
}

func TestFailureWithoutStage(t *testing.T) {
	out := render(t, Input{Run: RunInfo{Failure: "interrupted", Stages: []StageInfo{{Name: "a", Status: "ok"}, {Name: "b"}}}})
	for _, want := range []string{"The run stopped early:</strong> interrupted", "Not reached: b."} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestHiddenSourceAndOutputs(t *testing.T) {
	nb := nbformat.New()
	nb.AddCode("print(1)\n1/0", []nbformat.Output{nbformat.Stream("stdout", "1\n"), nbformat.Error("ZeroDivisionError", "division by zero", nil)}, 1).HideSource().HideOutputs()
	out := render(t, Input{Notebook: nb})
	for _, want := range []string{"hidden in the notebook</span></summary>", `<details class="hidden-outputs"><summary>Outputs (1, hidden in the notebook)</summary>`,
		"<pre class=\"chroma plain\"><code>print(1)\n1/0</code></pre>"} { // plumbing: plain, not highlighted
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// The error stays visible, after the hidden outputs.
	hidden := strings.Index(out, "hidden-outputs")
	end := strings.Index(out[hidden:], "</details>") + hidden
	if e := strings.Index(out, `class="output-error"`); e < end {
		t.Errorf("the error is inside the hidden outputs")
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.html")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, goldenInput()); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != render(t, goldenInput()) {
		t.Errorf("file differs from Render's output")
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	// A failed render leaves the old file and no temporary file.
	if err := WriteFile(path, Input{KaTeXDir: filepath.Join(dir, "missing")}); !errors.Is(err, ErrKaTeX) {
		t.Fatalf("WriteFile with a missing KaTeX: %v, want ErrKaTeX", err)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, got) {
		t.Errorf("a failed WriteFile changed the file")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary files left after a failure: %v", entries)
	}
}

func TestPrettyJSON(t *testing.T) {
	got := prettyJSON(json.RawMessage(`{"kind":"bar","title":"<a & b>","axes":[{"x":["north","south"],"y":[1.5,null,2e3],"empty":[],"o":{}}],"truncated":false}`))
	want := `{
  "kind": "bar",
  "title": "<a & b>",
  "axes": [
    {
      "x": ["north", "south"],
      "y": [1.5, null, 2e3],
      "empty": [],
      "o": {}
    }
  ],
  "truncated": false
}`
	if got != want {
		t.Errorf("prettyJSON:\n%s\nwant:\n%s", got, want)
	}
	if got := prettyJSON(json.RawMessage(`{"bad":`)); got != `{"bad":` {
		t.Errorf("bad JSON: %q, want it as it was", got)
	}
}

func TestEmptyInput(t *testing.T) {
	out := render(t, Input{})
	for _, want := range []string{"<title>analyst report</title>", "No data profile", `id="about"`} {
		if !strings.Contains(out, want) {
			t.Errorf("empty report lacks %q", want)
		}
	}
}

func TestCapText(t *testing.T) {
	s := strings.Repeat("é", 10) // 2 bytes each
	got := capText(s, 5)
	if !strings.HasPrefix(got, "éé\n… [16 more bytes not shown here") {
		t.Errorf("capText = %q, want it cut at a rune boundary with a marker", got)
	}
	if capText("short", 10) != "short" {
		t.Errorf("capText cut a short text")
	}
}

// TestMethodFolded: a generated stage opens on its results, each section's
// heading above them, and keeps its explanation, formulas and threshold
// tables, unchanged, in one closed "How this was computed" below; the
// model's markdown, and a stage eda does not generate, stay in the open.
func TestMethodFolded(t *testing.T) {
	nb := nbformat.New()
	dist := nbformat.StageTag(eda.StageDistributions)
	nb.AddMarkdown("### Numeric columns\n\nThe mean is $\\bar{x}$.\n\n| alert | threshold |\n|---|---|\n| skewed | 1 |", dist)
	nb.AddCode("df.describe()", []nbformat.Output{nbformat.Stream("stdout", "the statistics\n")}, 1, dist)
	nb.AddMarkdown("Bars of the top values, explained.", dist)
	nb.AddCode("bars()", []nbformat.Output{nbformat.Stream("stdout", "the bars\n")}, 2, dist)
	nb.AddMarkdown("A note of the model in a generated stage.", dist, nbformat.TagModel)
	nb.AddMarkdown("Profile of a table, explained.", nbformat.StageTag(eda.TableStage(eda.StageProfile, "orders")))
	nb.AddMarkdown("The reasoning of the model.", nbformat.StageTag("question-1"))
	out := render(t, Input{Notebook: nb, Run: RunInfo{Stages: []StageInfo{
		{Name: eda.StageDistributions, Title: "Distributions", Status: StatusOK},
		{Name: eda.TableStage(eda.StageProfile, "orders"), Title: "Profile of orders", Status: StatusOK},
		{Name: "question-1", Title: "Question 1", Status: StatusOK},
	}}})
	section := func(id string) string {
		s := out[strings.Index(out, `<section id="`+id+`"`):]
		return s[:strings.Index(s, "</section>")]
	}
	d := section("stage-distributions")
	order := []string{`<h5>Numeric columns</h5>`, "the statistics", "the bars", "A note of the model", `<details class="method">`,
		"<summary>How this was computed</summary>", `<h5>Numeric columns</h5>`, `$\bar{x}$`, "<td>skewed</td>", "Bars of the top values, explained."}
	at := 0
	for _, w := range order {
		i := strings.Index(d[at:], w)
		if i < 0 {
			t.Fatalf("distributions: %q missing or out of order (results, then the method) in\n%s", w, d)
		}
		at += i + len(w)
	}
	if strings.Count(d, `<details class="method"`) != 1 || strings.Count(out, "<details class=\"method\" open") != 0 {
		t.Errorf("want one closed method disclosure in the stage:\n%s", d)
	}
	if m := d[strings.Index(d, `<details class="method">`):]; strings.Contains(m, "A note of the model") {
		t.Errorf("the model's markdown is folded with the method")
	}
	if !strings.Contains(section("stage-profile-orders"), `<details class="method">`) {
		t.Errorf("a folder table's profile does not fold its method")
	}
	if q := section("stage-question-1"); strings.Contains(q, "<details") || !strings.Contains(q, "The reasoning of the model.") {
		t.Errorf("a model stage's markdown is folded:\n%s", q)
	}
}

// TestAlertLines: one line per column, whatever rules found it (a column of
// codes is unique_id and identifier), and one per alert of no single
// column, in the profile's order.
func TestAlertLines(t *testing.T) {
	got := alertLines([]eda.Alert{
		{Type: eda.AlertDuplicates, Message: "2 rows are duplicates"},
		{Type: eda.AlertUniqueID, Column: "order_id", Message: "'order_id' has a different value in every row: an identifier?"},
		{Type: eda.AlertSkewed, Column: "amount", Message: "'amount' is skewed"},
		{Type: eda.AlertIdentifier, Column: "order_id", Message: "'order_id' is a code or identifier"},
		{Type: eda.AlertHighCorrelation, Columns: []string{"a", "b"}, Message: "'a' and 'b' are highly correlated"},
		{Type: eda.AlertHighCorrelation, Columns: []string{"a", "c"}, Message: "'a' and 'c' are highly correlated"},
	})
	want := []alertView{
		{Badges: []alertBadge{{"duplicates", "duplicates"}}, Message: "2 rows are duplicates"},
		{Badges: []alertBadge{{"unique-id", "unique id"}, {"identifier", "identifier"}},
			Message: "'order_id' has a different value in every row: an identifier?; 'order_id' is a code or identifier"},
		{Badges: []alertBadge{{"skewed", "skewed"}}, Message: "'amount' is skewed"},
		{Badges: []alertBadge{{"high-correlation", "high correlation"}}, Message: "'a' and 'b' are highly correlated"},
		{Badges: []alertBadge{{"high-correlation", "high correlation"}}, Message: "'a' and 'c' are highly correlated"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("alert lines (-want +got):\n%s", diff)
	}
}

// TestAnalystDataNotRepeated: the JSON analyst reads back (a profile, a
// sketch) is not repeated in the page, which shows it as the overview; its
// one-line summary is. Other JSON outputs are kept, collapsed, and a
// chart's description is cut at maxChartJSON.
func TestAnalystDataNotRepeated(t *testing.T) {
	nb := nbformat.New()
	nb.AddCode("show_profile()", []nbformat.Output{nbformat.DisplayData(nbformat.MimeBundle{
		nbformat.MimeProfile: json.RawMessage(`{"rows": 3, "secret_marker": 1}`),
		eda.MimeSketch:       json.RawMessage(`{"version": 1, "sketch_marker": 2}`),
		nbformat.MimePlain:   jstr("Data profile: 3 rows"),
	}, nil)}, 1)
	nb.AddCode("other()", []nbformat.Output{nbformat.DisplayData(nbformat.MimeBundle{
		"application/vnd.example+json": json.RawMessage(`{"kept_marker": 3}`),
	}, nil)}, 2)
	long := `{"kind":"scatter","title":"t","axes":[{"kind":"scatter","series":[{"label":"s","x":[` + strings.Repeat("1.25,", 3000) + `1]}]}]}`
	nb.AddCode("scatter()", []nbformat.Output{nbformat.DisplayData(nbformat.MimeBundle{
		nbformat.MimePNG: jstr(tinyPNG), nbformat.MimeChart: json.RawMessage(long),
	}, nil)}, 3)
	out := render(t, Input{Notebook: nb})
	if strings.Contains(out, "secret_marker") || strings.Contains(out, "sketch_marker") || !strings.Contains(out, "Data profile: 3 rows") {
		t.Errorf("the profile's or sketch's JSON is in the page, or its summary is not")
	}
	if !strings.Contains(out, "kept_marker") {
		t.Errorf("another JSON output was dropped")
	}
	if !strings.Contains(out, "more bytes not shown here; the notebook has them all]") || len(out) > 40_000 {
		t.Errorf("a long chart description is not cut (%d bytes of page)", len(out))
	}
}

// Issue 32 item 13: bidi controls in a name (U+202E turns "gpj.exe" into
// what reads as "exe.jpg") are shown as their code points, never passed
// raw into the report.
func TestBidiControlsInNamesAreShown(t *testing.T) {
	in := goldenInput()
	name := "invoice\u202egpj.exe.csv"
	in.Inputs = &Inputs{Folder: "shop\u2066x", Main: "invoice", Files: []InputFile{{Path: name, Kind: "table", Table: "invoice\u202egpj.exe"}}}
	out := render(t, in)
	for _, r := range []string{"\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"} {
		if strings.Contains(out, r) {
			t.Errorf("the report holds the bidi control U+%04X raw", []rune(r)[0])
		}
	}
	for _, want := range []string{"invoice[U+202E]gpj.exe.csv", "shop[U+2066]x"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report does not show %q", want)
		}
	}
}

// A long source is shown once: a later cell with the same source (the
// profile's cells, once per table) links to the first; a long cell is
// plain text, its quotes as they are (they need no escaping between tags).
func TestRepeatedLongCodeShownOnce(t *testing.T) {
	long := strings.Repeat("x = df[\"a\"] + 1  # 'the same'\n", 200)
	nb := nbformat.New()
	first := nb.AddCode(long, nil, 1)
	nb.AddCode("short = 1", nil, 2)
	nb.AddCode(long, []nbformat.Output{nbformat.Stream("stdout", "again\n")}, 3)
	nb.AddCode("short = 1", nil, 4)
	out := render(t, Input{Notebook: nb})
	if n := strings.Count(out, `x = df["a"] + 1  # 'the same'`); n != 200 {
		t.Errorf("the long source's line appears %d times, want 200 (once, unescaped quotes)", n)
	}
	if want := `<p class="same-code">The same code as <a href="#cell-` + first.ID + `">In [1]</a>.</p>`; !strings.Contains(out, want) {
		t.Errorf("report lacks %q", want)
	}
	if !strings.Contains(out, "again\n") {
		t.Error("the repeated cell's output is missing")
	}
	if n := strings.Count(out, `<span class="n">short</span>`); n != 2 {
		t.Errorf("a short source repeated is highlighted %d times, want 2 (shown each time)", n)
	}
}

// With NotebookLink, hidden code of LinkedCodeBytes or more, and as long
// code of a stage analyst generates, is linked in the notebook, not copied;
// shorter hidden code, and long code the notebook shows of no such stage
// (the model's), are copied as before.
func TestLongHiddenCodeLinkedToTheNotebook(t *testing.T) {
	long := "# Loader: reads the data\n" + strings.Repeat("rows = len(df)  # counted\n", 200)
	nb := nbformat.New()
	hidden := nb.AddCode(long, []nbformat.Output{nbformat.Stream("stdout", "loaded\n")}, 3)
	hidden.Metadata.SourceHidden = true
	short := nb.AddCode("# Setup\nimport pandas as pd\n", nil, 4)
	short.Metadata.SourceHidden = true
	nb.AddCode(strings.Replace(long, "Loader", "Shown", 1), nil, 5)
	nb.AddCode(strings.Replace(long, "Loader", "Relationships", 1), nil, 6, nbformat.StageTag(eda.StageRelationships))
	in := Input{Notebook: nb, NotebookLink: "case 1.ipynb", LinkedCodeBytes: 1 << 10}
	out := render(t, in)
	for _, want := range []string{
		`<p class="same-code"># Loader: reads the data — the code is in <a href="case 1.ipynb">the notebook&#39;s cell In [3]</a>, not copied here.</p>`,
		`<p class="same-code"># Relationships: reads the data — the code is in <a href="case 1.ipynb">the notebook&#39;s cell In [6]</a>, not copied here.</p>`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if n := strings.Count(out, "rows = len(df)  # counted"); n != 200 {
		t.Errorf("the long code's line appears %d times, want 200 (only the shown cell's copy)", n)
	}
	if !strings.Contains(out, "loaded\n") || !strings.Contains(out, "pandas") {
		t.Error("the linked cell's output or the short hidden cell's code is missing")
	}
	in.NotebookLink = ""
	if n := strings.Count(render(t, in), "rows = len(df)  # counted"); n != 600 {
		t.Errorf("without a link the long code's line appears %d times, want 600", n)
	}
}
