package report

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/internal/browsertest"
	"github.com/analyst-cli/analyst/kernel"
	kimage "github.com/analyst-cli/analyst/kernel/image"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/numtrace"
)

// needs fails the test, or skips it in -short mode, saying what is missing.
var needs = browsertest.Needs

// imageKaTeXDir is KaTeX inside the kernel image this host has built.
func imageKaTeXDir(t *testing.T) string {
	t.Helper()
	cacheDir, err := kerneltest.CacheDir()
	if err != nil {
		needs(t, "needs the kernel image for KaTeX: %v", err)
	}
	img, err := kimage.Lookup(cacheDir, kimage.DefaultRecipe())
	if err != nil {
		needs(t, "needs the kernel image for KaTeX (make kernel): %v", err)
	}
	dir := KaTeXDirIn(img.RootFS)
	if _, err := os.Stat(dir); err != nil {
		needs(t, "the kernel image has no KaTeX (libjs-katex; rebuild with analyst kernel build): %v", err)
	}
	return dir
}

// kernelCells runs code in a real kernel and adds each cell to nb, with
// its stage tag (and extra tags).
type kernelCell struct {
	stage, code string
	tags        []string
	wantStatus  kernel.Status
}

// realRunInput builds a report input from real kernel outputs: a DataFrame
// holding a script and an HTML-ish column name, raw HTML trying every trick
// a sanitiser must stop, a matplotlib bar chart and a seaborn histogram
// shown with plt.show(), streams, a failed attempt, and markdown with
// formulas.
func realRunInput(t *testing.T) (Input, int) {
	k := kerneltest.Start(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	nb := nbformat.New()
	nb.AddMarkdown("The data is loaded once; the kernel keeps it for every later cell.", nbformat.StageTag("load"))
	formulas := 0
	cells := []kernelCell{
		{stage: "load", code: `import sys
import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
import seaborn as sns
df = pd.DataFrame({
    "region": ["north", "south", "east", "west"],
    "sales": [120.5, 98.25, 143.0, 87.75],
    '<b>x</b>"\'': ["<script>window.__pwned=1</script>", "naïve café", "中文", "a & b"],
})
df`},
		{stage: "load", code: `display({"text/html": '<p>raw html</p><img src=x onerror="window.__pwned=2">'
         '<script>window.__pwned=3</script><a href="javascript:window.__pwned=4">click</a>'
         '<img src="http://192.0.2.1/beacon.png"><iframe src="http://192.0.2.1/"></iframe>'
         '<div style="background:url(http://192.0.2.1/bg.png)">styled</div>'}, raw=True)`},
		// Rich objects displayed through IPython, as model code does: a
		// real matplotlib SVG and a hostile one, Markdown and HTML with
		// scripts, PNG, JPEG, JSON and LaTeX.
		{stage: "load", code: `import io
from IPython.display import display, HTML, Markdown, SVG, Image, JSON, Latex
buf = io.BytesIO()
fig, ax = plt.subplots(figsize=(3, 2))
ax.plot([1, 2, 3], [2, 1, 3])
ax.set_title("an SVG chart")
fig.savefig(buf, format="svg")
plt.close(fig)
display(SVG(buf.getvalue()))
display(SVG('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20" onload="window.__pwned=13">'
            '<script>window.__pwned=14</script><foreignObject width="9" height="9"><body xmlns="http://www.w3.org/1999/xhtml">'
            '<script>window.__pwned=15</script><img src="http://192.0.2.1/f.png"/></body></foreignObject>'
            '<image href="http://192.0.2.1/i.png" width="5" height="5"/><rect width="40" height="20" fill="teal"/></svg>'))
display(Markdown("### A markdown note\n\n**bold** <img src=x onerror='window.__pwned=16'> [x](javascript:window.__pwned=17)"))
display(HTML("<p>html <b>shown</b></p><script>window.__pwned=18</script>"))
pixels = np.linspace(0, 1, 48).reshape(4, 4, 3)
png, jpg = io.BytesIO(), io.BytesIO()
plt.imsave(png, pixels, format="png")
plt.imsave(jpg, pixels, format="jpeg")
display(Image(png.getvalue(), width=120))
display(Image(jpg.getvalue()))
display(JSON({"rows": 4, "regions": ["north", "south"]}))
display(Latex(r"$\sigma^2 = \frac{1}{n}\sum (x_i - \bar{x})^2$"))`},
		{stage: "load", code: `wide = pd.DataFrame(np.arange(3 * 40).reshape(3, 40) * 1234.5678, columns=[f"a_rather_long_column_name_{i}" for i in range(40)])
wide  # a table far wider than the page: it scrolls inside its box`},
		{stage: "load", code: `print("rows:", len(df))
print("a warning on stderr", file=sys.stderr)`},
	}
	md := "## Mean and spread\n\nThe sample mean is\n\n$$\\bar{x} = \\frac{1}{n}\\sum_{i=1}^{n} x_i$$\n\n" +
		"and the sample standard deviation is $s_{x} = \\sqrt{\\frac{1}{n-1}\\sum_{i}(x_i-\\bar{x})^2}$; " +
		"the skewness $g_1$ tells how lopsided the distribution is."
	formulas += 3 + 1 // and the displayed LaTeX
	run := func(cs []kernelCell) {
		for _, c := range cs {
			ex, err := k.Execute(ctx, c.code, kernel.ExecOptions{})
			if err != nil {
				t.Fatalf("executing %q: %v", c.code, err)
			}
			want := c.wantStatus
			if want == "" {
				want = kernel.StatusOK
			}
			if ex.Status != want {
				t.Fatalf("cell %q: status %s (want %s), error %v", c.code, ex.Status, want, ex.Error)
			}
			ex.AddToNotebook(nb, append([]string{nbformat.StageTag(c.stage)}, c.tags...)...)
		}
	}
	run(cells)
	nb.AddMarkdown(md, nbformat.StageTag("distributions"))
	run([]kernelCell{
		{stage: "distributions", code: `rng = np.random.default_rng(0)
orders = pd.Series(rng.gamma(4, 25, 600), name="order value")
sns.histplot(orders, bins=30)
plt.title("Distribution of order values")
plt.show()`},
		{stage: "visualization", code: `df["missing"].sum()`, tags: []string{nbformat.TagFailedAttempt}, wantStatus: kernel.StatusError},
		{stage: "visualization", code: `fig, ax = plt.subplots(figsize=(7, 4))
ax.bar(df["region"], df["sales"], color="#4c72b0")
ax.set_title("Sales by region")
ax.set_xlabel("region")
ax.set_ylabel("sales")
plt.show()`},
	})
	nb.AddMarkdown("The chart shows **east** ahead, with mean sales $\\bar{x} \\approx 112.4$.", nbformat.StageTag("visualization"), nbformat.TagModel)
	formulas++
	in := Input{
		Title:    "Sales by region",
		Question: "Which region sells most?",
		Answer:   "**east** sells most: @top_region[east], @sales[143.0], of 4 regions and 99 stores. The mean over regions is $\\bar{x} = 112.375$.",
		Notebook: nb,
		Profile: &eda.Profile{Rows: 4, Columns: 3, MemoryBytes: 1200,
			Load: eda.LoadInfo{Format: "csv", Encoding: "utf-8", Delimiter: ","},
			ColumnInfo: []eda.Column{
				{Name: "region", Dtype: "object", Kind: eda.KindCategorical, Distinct: 4, DistinctShare: 1, Sample: []string{"north", "south", "east"}},
				{Name: "sales", Dtype: "float64", Kind: eda.KindNumeric, Distinct: 4, DistinctShare: 1, Sample: []string{"120.5", "98.25"}},
				{Name: `<b>x</b>"'`, Dtype: "object", Kind: eda.KindText, Distinct: 4, DistinctShare: 1, Sample: []string{"<script>window.__pwned=5</script>"}},
			},
			Alerts: []eda.Alert{{Type: eda.AlertUniqueID, Column: "region", Message: "region is unique: an identifier?"}},
		},
		Run: RunInfo{
			DataName: "sales.csv", DataSHA256: strings.Repeat("ab", 32), DataBytes: 2048,
			Started: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), Duration: 42 * time.Second,
			Stages: []StageInfo{
				{Name: "load", Title: "Load", Status: "ok", Duration: 2 * time.Second},
				{Name: "distributions", Title: "Distributions", Status: "ok", Duration: 3 * time.Second},
				{Name: "visualization", Title: "Visualization", Status: "ok", Duration: 30 * time.Second},
			},
			AnalystVersion: "test", Versions: map[string]string{"python": "3.11", "pandas": "1.5"},
		},
		KaTeXDir: imageKaTeXDir(t),
	}
	formulas++ // the answer's
	// The answer's numbers traced as analyst run traces them: 143.0 and 4
	// to their cells, 99 to none, 112.375 inside a formula left whole.
	sources := numtrace.CellSources(nb, func(_ int, c *nbformat.Cell) string { return c.ID })
	for _, tr := range numtrace.Find(numtrace.Extract(in.Answer), sources) {
		in.Numbers = append(in.Numbers, NumberMark{Start: tr.Start, End: tr.End, Cell: tr.Source, Output: tr.Output})
	}
	return in, formulas
}

// pageState is what the page reports about itself.
type pageState struct {
	Pwned         string  `json:"pwned"`
	ScriptAsText  bool    `json:"scriptAsText"`
	Math          int     `json:"math"`
	MathRendered  int     `json:"mathRendered"`
	KaTeXErrors   int     `json:"katexErrors"`
	KaTeXFonts    int     `json:"katexFonts"`
	Images        []box   `json:"images"`
	CodeHeight    float64 `json:"codeHeight"`
	CodeCollapsed bool    `json:"codeCollapsed"`
	PageWidth     float64 `json:"pageWidth"`
	ViewWidth     float64 `json:"viewWidth"`
	// The answer's traced numbers: links whose targets exist, and visible
	// untraced markers.
	TracedLinks   int      `json:"tracedLinks"`
	TracedTargets int      `json:"tracedTargets"`
	UntracedMarks []string `json:"untracedMarks"`
	// Displayed rich objects: images (decoded), Markdown, HTML, JSON.
	RichImages   []box    `json:"richImages"`
	RichMarkdown []string `json:"richMarkdown"`
	RichJSON     []string `json:"richJSON"`
	RichHTML     bool     `json:"richHTML"`
}

type box struct {
	NaturalWidth int     `json:"naturalWidth"`
	X            float64 `json:"x"`
	Y            float64 `json:"y"`
	Width        float64 `json:"width"`
	Height       float64 `json:"height"`
}

const pageStateJS = `(async () => {
  await document.fonts.ready;
  const code = document.querySelector("details.source:not([open]) pre.chroma");
  const maths = Array.from(document.querySelectorAll(".math"));
  return {
    pwned: typeof window.__pwned,
    scriptAsText: document.body.innerText.includes("<script>window.__pwned=1</script>"),
    math: maths.length,
    mathRendered: maths.filter(el => {
      const k = el.querySelector(".katex math");
      if (!k) return false;
      const b = k.getBoundingClientRect();
      return b.width > 0 && b.height > 0;
    }).length,
    katexErrors: document.querySelectorAll(".katex-error").length,
    katexFonts: Array.from(document.fonts).filter(f => f.family.includes("KaTeX")).length,
    images: Array.from(document.querySelectorAll("figure.chart img")).map(img => {
      const b = img.getBoundingClientRect();
      return {naturalWidth: img.naturalWidth, x: b.left + window.scrollX, y: b.top + window.scrollY, width: b.width, height: b.height};
    }),
    // checkVisibility is false inside a closed <details> (its content is
    // content-visibility: hidden), whatever the layout box says.
    codeHeight: code && code.checkVisibility() ? code.getBoundingClientRect().height : 0,
    codeCollapsed: !!code,
    pageWidth: document.documentElement.scrollWidth,
    viewWidth: document.documentElement.clientWidth,
    tracedLinks: document.querySelectorAll("#answer a.traced").length,
    tracedTargets: Array.from(document.querySelectorAll("#answer a.traced")).filter(a => document.getElementById(a.getAttribute("href").slice(1))).length,
    richImages: Array.from(document.querySelectorAll("figure.output-image img")).map(img => {
      const b = img.getBoundingClientRect();
      return {naturalWidth: img.naturalWidth, x: b.left + window.scrollX, y: b.top + window.scrollY, width: b.width, height: b.height};
    }),
    richMarkdown: Array.from(document.querySelectorAll(".output-markdown h5")).map(h => h.innerText),
    richJSON: Array.from(document.querySelectorAll("pre.output-json")).map(p => p.innerText),
    richHTML: Array.from(document.querySelectorAll(".output-html b")).some(b => b.innerText === "shown"),
    untracedMarks: Array.from(document.querySelectorAll("#answer .untraced")).filter(el => {
      const m = el.querySelector(".untraced-mark");
      const b = m && m.getBoundingClientRect();
      return b && b.width > 0 && b.height > 0 && getComputedStyle(el).textDecorationStyle === "wavy";
    }).map(el => el.innerText),
  };
})()`

// openMethodsJS opens every stage's "How this was computed" and says
// whether each was closed.
const openMethodsJS = `Array.from(document.querySelectorAll("details.method")).map(d => { const closed = !d.open; d.open = true; return closed; })`

// followTracedJS clicks the answer's first traced link and says whether
// the page scrolled and its cell's top is then in the window.
const followTracedJS = `(async () => {
  const a = document.querySelector("#answer a.traced");
  const cell = document.getElementById(a.getAttribute("href").slice(1));
  const before = window.scrollY;
  a.click();
  await new Promise(r => setTimeout(r, 200));
  const top = cell.getBoundingClientRect().top;
  return window.scrollY > before && top >= -2 && top < window.innerHeight - 20;
})()`

// TestBrowser opens a report built from real kernel outputs in headless
// Chromium and checks what a reader gets: no request leaves the file,
// nothing fails in the console, charts and formulas render, the injected
// scripts do not run, and printing shows the collapsed code.
func TestBrowser(t *testing.T) {
	if _, err := exec.LookPath(browsertest.ChromiumPath); err != nil {
		needs(t, "needs Debian's chromium at %s (scripts/install-deps.sh): %v", browsertest.ChromiumPath, err)
	}
	imageKaTeXDir(t) // skip before starting a kernel
	in, formulas := realRunInput(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := WriteFile(path, in); err != nil {
		t.Fatal(err)
	}
	pageURL := (&url.URL{Scheme: "file", Path: path}).String()

	var mu sync.Mutex
	var requests, consoleErrors, exceptions, logErrors []string
	ctx := browsertest.Start(t, 1280, 900, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			requests = append(requests, ev.Request.URL)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				consoleErrors = append(consoleErrors, strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			exceptions = append(exceptions, msg)
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError {
				logErrors = append(logErrors, ev.Entry.Text+" "+ev.Entry.URL)
			}
		}
	})
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelTimeout()

	if err := chromedp.Do(ctx, chromedp.Navigate(pageURL), chromedp.WaitReady("body")); err != nil {
		t.Fatalf("opening %s: %v", pageURL, err)
	}
	// Each stage's method is folded: its formulas are typeset but hidden
	// until opened, which the checks of formulas below do first.
	folded, err := chromedp.Run(ctx, chromedp.Evaluate[[]bool](openMethodsJS))
	if err != nil {
		t.Fatalf("opening the methods: %v", err)
	}
	if len(folded) != 2 || slices.Contains(folded, false) {
		t.Errorf("method disclosures closed as the page opens: %v, want two (load, distributions), each closed", folded)
	}
	st, err := chromedp.Run(ctx, chromedp.Evaluate[pageState](pageStateJS, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("reading the page: %v", err)
	}

	// Charts: every image decoded and shown at a readable size.
	if len(st.Images) != 2 {
		t.Errorf("%d chart images, want 2 (bar chart, histogram)", len(st.Images))
	}
	for i, b := range st.Images {
		if b.NaturalWidth <= 0 || b.Width <= 100 || b.Height <= 100 {
			t.Errorf("chart %d: naturalWidth %d, box %.0f×%.0f; want a decoded image over 100×100", i, b.NaturalWidth, b.Width, b.Height)
		}
	}
	// Displayed rich objects render: both SVGs (the hostile one cleaned),
	// the PNG and the JPEG as decoded images, the Markdown, the HTML, the
	// JSON as text.
	if len(st.RichImages) != 4 {
		t.Errorf("%d displayed images, want 4 (two SVGs, a PNG, a JPEG)", len(st.RichImages))
	}
	for i, b := range st.RichImages {
		if b.NaturalWidth <= 0 || b.Width <= 0 || b.Height <= 0 {
			t.Errorf("displayed image %d: naturalWidth %d, box %.0f×%.0f; want it decoded and shown", i, b.NaturalWidth, b.Width, b.Height)
		}
	}
	if strings.Join(st.RichMarkdown, "|") != "A markdown note" || !st.RichHTML ||
		len(st.RichJSON) != 1 || !strings.Contains(st.RichJSON[0], `"regions": ["north", "south"]`) {
		t.Errorf("displayed Markdown headings %q, HTML shown %v, JSON %q", st.RichMarkdown, st.RichHTML, st.RichJSON)
	}
	// Formulas typeset by KaTeX as MathML, drawn with the browser's own
	// fonts: the page declares none of KaTeX's.
	if st.Math != formulas || st.MathRendered != formulas || st.KaTeXErrors != 0 {
		t.Errorf("formulas: %d in the page, %d rendered as MathML, %d KaTeX errors; want %d, %d, 0", st.Math, st.MathRendered, st.KaTeXErrors, formulas, formulas)
	}
	if st.KaTeXFonts != 0 {
		t.Errorf("the page declares %d KaTeX fonts, want none (MathML uses the system's)", st.KaTeXFonts)
	}
	// The scripts in the outputs did not run; the DataFrame's shows as text.
	if st.Pwned != "undefined" {
		t.Errorf("an injected script ran: window.__pwned is %s", st.Pwned)
	}
	if !st.ScriptAsText {
		t.Errorf("the DataFrame cell holding a script is not shown as text")
	}
	if st.PageWidth > st.ViewWidth {
		t.Errorf("the page scrolls sideways: %.0f px wide in a %.0f px window", st.PageWidth, st.ViewWidth)
	}
	// Traced numbers link to cells that exist; the untraced one is marked
	// in words; following a link brings its cell into the window.
	if st.TracedLinks != 2 || st.TracedTargets != 2 || strings.Join(st.UntracedMarks, "|") != "99untraced" {
		t.Errorf("answer: %d traced links, %d with a target (want 2, 2); untraced marks %q (want 99 marked)", st.TracedLinks, st.TracedTargets, st.UntracedMarks)
	}
	if shown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](followTracedJS, chromedp.EvalAwaitPromise)); err != nil || !shown {
		t.Errorf("following a traced link does not bring its cell into the window (%v)", err)
	}

	// A full-page screenshot: the charts are drawn, not blank.
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	for _, p := range []string{filepath.Join(t.TempDir(), "report.png"), "/tmp/report-screenshot.png"} {
		if err := os.WriteFile(p, shot, 0o644); err != nil {
			t.Errorf("saving the screenshot: %v", err)
		}
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("decoding the screenshot: %v", err)
	}
	for i, b := range st.Images {
		r := image.Rect(int(b.X), int(b.Y), int(b.X+b.Width), int(b.Y+b.Height))
		if n := colours(img, r); n < 8 {
			t.Errorf("chart %d: %d colours in its box %v of the screenshot, want a drawn chart", i, n, r)
		}
	}

	// Printing: the code inside a collapsed <details> becomes visible.
	if !st.CodeCollapsed || st.CodeHeight != 0 {
		t.Fatalf("on screen, want collapsed, invisible code; got collapsed %v, visible height %.0f", st.CodeCollapsed, st.CodeHeight)
	}
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"}); err != nil {
		t.Fatalf("emulating print: %v", err)
	}
	printed, err := chromedp.Run(ctx, chromedp.Evaluate[pageState](pageStateJS, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("reading the printed page: %v", err)
	}
	if printed.CodeHeight <= 0 {
		t.Errorf("printed, the collapsed code has visible height %.0f, want it shown", printed.CodeHeight)
	}
	if shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
		_ = os.WriteFile("/tmp/report-print.png", shot, 0o644)
	}

	mu.Lock()
	defer mu.Unlock()
	for _, u := range requests {
		if u != pageURL && !strings.HasPrefix(u, "data:") {
			t.Errorf("the page requested %s", u)
		}
	}
	if len(requests) == 0 {
		t.Errorf("no request seen at all: the listener is not working")
	}
	for _, e := range consoleErrors {
		t.Errorf("console error: %s", e)
	}
	for _, e := range exceptions {
		t.Errorf("uncaught exception: %s", e)
	}
	for _, e := range logErrors {
		t.Errorf("browser log error: %s", e)
	}
}

// colours counts the distinct colours in r of img (up to 1000).
func colours(img image.Image, r image.Rectangle) int {
	r = r.Intersect(img.Bounds())
	seen := map[[4]uint32]bool{}
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			c0, c1, c2, c3 := img.At(x, y).RGBA()
			seen[[4]uint32{c0, c1, c2, c3}] = true
			if len(seen) >= 1000 {
				return len(seen)
			}
		}
	}
	return len(seen)
}
