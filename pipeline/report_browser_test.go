package pipeline_test

import (
	"context"
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
