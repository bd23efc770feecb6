package pipeline_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/analyst-cli/analyst/internal/browsertest"
	kimage "github.com/analyst-cli/analyst/kernel/image"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/report"
)

// firstScreen is what the first screen of a report shows.
type firstScreen struct {
	ViewWidth    float64 `json:"viewWidth"`
	ViewHeight   float64 `json:"viewHeight"`
	PageWidth    float64 `json:"pageWidth"`
	OverviewTop  float64 `json:"overviewTop"`
	AlertsBottom float64 `json:"alertsBottom"`
	Alerts       int     `json:"alerts"`
	Open         int     `json:"open"`
	Methods      int     `json:"methods"`
	// Wider are the elements drawn past the window's right edge (tag and
	// class), Scrolling the boxes of the first screen that scroll sideways.
	Wider     []string `json:"wider"`
	Scrolling []string `json:"scrolling"`
}

const firstScreenJS = `(async () => {
  await document.fonts.ready;
  const vw = document.documentElement.clientWidth;
  const name = el => el.tagName.toLowerCase() + (el.className && typeof el.className === "string" ? "." + el.className.trim().replace(/\s+/g, ".") : "");
  const alerts = document.querySelector("#overview ul.alerts");
  return {
    viewWidth: vw,
    viewHeight: window.innerHeight,
    pageWidth: document.documentElement.scrollWidth,
    overviewTop: document.getElementById("overview").getBoundingClientRect().top,
    alertsBottom: alerts ? alerts.getBoundingClientRect().bottom : -1,
    alerts: alerts ? alerts.children.length : 0,
    open: document.querySelectorAll("details[open]").length,
    methods: document.querySelectorAll("details.method").length,
    // Past the window's right edge and not inside a box that scrolls
    // sideways: drawn off the page.
    wider: Array.from(document.querySelectorAll("main *")).filter(el => {
      if (!el.checkVisibility()) return false;
      const b = el.getBoundingClientRect();
      if (b.width === 0 || b.right <= vw + 0.5) return false;
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        if (getComputedStyle(p).overflowX !== "visible") return false;
      }
      return true;
    }).map(name),
    // Boxes of the first screen that scroll sideways (a wide table further
    // down scrolls inside its box, by design).
    scrolling: Array.from(document.querySelectorAll("main *")).filter(el =>
      el.checkVisibility() && el.getBoundingClientRect().top < window.innerHeight &&
      el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== "visible").map(name),
  };
})()`

// TestReportFirstScreen opens the report of a run of the sales data, as
// the demo writes it (no model, KaTeX from the kernel image), in Chromium
// 1280 px wide, as a new reader would: the first screen shows the overview
// and every alert, every disclosure (code, methods) is closed, nothing is
// drawn past the window's right edge, and nothing on the first screen
// scrolls sideways. The first screen is kept
// as /tmp/report-first-screen.png.
func TestReportFirstScreen(t *testing.T) {
	ctx := browsertest.Start(t, 1280, 800, nil)
	cacheDir, err := kerneltest.CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	img, err := kimage.Lookup(cacheDir, kimage.DefaultRecipe())
	if err != nil {
		browsertest.Needs(t, "needs the kernel image for KaTeX (make kernel): %v", err)
	}
	dir := t.TempDir()
	opts := options(t, salesCSV(t, dir, 3000), filepath.Join(dir, "out"))
	opts.KaTeXDir, opts.NoExplore = report.KaTeXDirIn(img.RootFS), true
	res := run(t, opts)

	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	page := (&url.URL{Scheme: "file", Path: res.Files.Report}).String()
	if err := chromedp.Do(ctx, chromedp.Navigate(page), chromedp.WaitReady("body")); err != nil {
		t.Fatalf("opening %s: %v", page, err)
	}
	st, err := chromedp.Run(ctx, chromedp.Evaluate[firstScreen](firstScreenJS, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("reading the page: %v", err)
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	_ = os.WriteFile("/tmp/report-first-screen.png", shot, 0o644) // to look at; not checked
	if st.ViewWidth < 1200 {
		t.Fatalf("the window is %.0f px wide, want about 1280", st.ViewWidth)
	}
	if st.Alerts == 0 {
		t.Errorf("the sales data has alerts (order_id is an identifier), the report shows none")
	}
	if st.OverviewTop < 0 || st.OverviewTop >= st.ViewHeight || st.AlertsBottom > st.ViewHeight {
		t.Errorf("first screen (%.0f px high): the overview starts at %.0f, its alerts end at %.0f; want both on it",
			st.ViewHeight, st.OverviewTop, st.AlertsBottom)
	}
	if st.Open != 0 || st.Methods == 0 {
		t.Errorf("%d disclosures open as the page opens, want none (of them %d methods)", st.Open, st.Methods)
	}
	if st.PageWidth > st.ViewWidth || len(st.Wider) > 0 || len(st.Scrolling) > 0 {
		t.Errorf("at %.0f px: page %.0f px wide; wider than the window: %v; scrolling sideways: %v",
			st.ViewWidth, st.PageWidth, st.Wider, st.Scrolling)
	}
}

// diagramState is what Chromium makes of the relationships diagram.
type diagramState struct {
	Found   bool   `json:"found"`
	Src     string `json:"src"` // the data URI's start
	Alt     string `json:"alt"`
	Decoded bool   `json:"decoded"`
	// The image's own width, the width it is shown at and the section's.
	Natural float64 `json:"natural"`
	Width   float64 `json:"width"`
	Section float64 `json:"section"`
	// Pixels of the image drawn on a canvas: dark (text, boxes' edges) and
	// red (the broken relationship's arrow and label).
	Dark int `json:"dark"`
	Red  int `json:"red"`
}

const diagramJS = `(async () => {
  const img = document.querySelector("#relationships figure.chart img");
  if (!img) return {found: false};
  let decoded = true;
  try { await img.decode(); } catch (e) { decoded = false; }
  const c = document.createElement("canvas");
  c.width = img.naturalWidth; c.height = img.naturalHeight;
  const g = c.getContext("2d");
  g.drawImage(img, 0, 0);
  let dark = 0, red = 0;
  if (c.width > 0) {
    const px = g.getImageData(0, 0, c.width, c.height).data;
    for (let i = 0; i < px.length; i += 4) {
      const [r, gr, b, a] = [px[i], px[i + 1], px[i + 2], px[i + 3]];
      if (a > 200 && r < 90 && gr < 90 && b < 90) dark++;
      if (a > 200 && r > 150 && gr < 100 && b < 100) red++;
    }
  }
  return {found: true, src: img.src.slice(0, 26), alt: img.alt, decoded, natural: img.naturalWidth,
    width: img.getBoundingClientRect().width, section: document.getElementById("relationships").getBoundingClientRect().width,
    dark, red};
})()`

// The relationships diagram of a folder's run, as Chromium shows it in
// the report: an SVG image (matplotlib's, cleaned) that decodes, fits its
// section at 1280 px and draws its text and the broken relationship's red
// arrow.
func TestRelationshipsDiagramInChromium(t *testing.T) {
	ctx := browsertest.Start(t, 1280, 800, nil)
	dir := t.TempDir()
	data := filepath.Join(dir, "shop")
	must(t, os.Mkdir(data, 0o755))
	orders, customers := "order_id,customer_id,amount\n", "id,name\n"
	for i := range 10 {
		customers += fmt.Sprintf("%d,c%d\n", 10+i, i)
		orders += fmt.Sprintf("%d,%d,%d\n", i, 10+i, 5*i)
		orders += fmt.Sprintf("%d,%d,%d\n", 10+i, 10+(i*3)%10, 7*i)
	}
	orders += "20,99,1\n" // an orphan: the relationship is broken
	must(t, os.WriteFile(filepath.Join(data, "orders.csv"), []byte(orders), 0o644))
	must(t, os.WriteFile(filepath.Join(data, "customers.csv"), []byte(customers), 0o644))
	opts := options(t, data, filepath.Join(dir, "out"))
	opts.NoExplore = true
	res := run(t, opts)

	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	page := (&url.URL{Scheme: "file", Path: res.Files.Report}).String()
	if err := chromedp.Do(ctx, chromedp.Navigate(page), chromedp.WaitReady("body")); err != nil {
		t.Fatalf("opening %s: %v", page, err)
	}
	st, err := chromedp.Run(ctx, chromedp.Evaluate[diagramState](diagramJS, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("reading the page: %v", err)
	}
	t.Logf("diagram: %+v", st)
	if !st.Found || st.Src != "data:image/svg+xml;base64," || st.Alt != "Diagram: Tables and their relationships" {
		t.Fatalf("the report's diagram: %+v, want an SVG image with its title", st)
	}
	if !st.Decoded || st.Natural == 0 || st.Width > st.Section+0.5 {
		t.Errorf("the diagram does not decode or does not fit its section: %+v", st)
	}
	if st.Dark < 500 || st.Red < 50 {
		t.Errorf("the diagram draws %d dark and %d red pixels: want its text and the broken relationship's arrow", st.Dark, st.Red)
	}
}
