// Package browsertest opens pages in Debian's headless Chromium for tests
// (scripts/install-deps.sh installs it): as a new reader would, with a
// fresh profile, no sandbox (the tests run as root), no GPU and no
// background networking, so every request seen is the page's own.
package browsertest

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// ChromiumPath is Debian's chromium.
const ChromiumPath = "/usr/bin/chromium"

// Needs fails the test, or skips it in -short mode, saying what is missing.
func Needs(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if testing.Short() {
		t.Skip(msg)
	}
	t.Fatal(msg)
}

// Start starts Chromium with a window width × height CSS pixels and a
// fresh profile in a temporary folder, and returns a context for
// chromedp.Run; listen, when not nil, gets every event of the page's
// target. Chromium is stopped when the test ends.
func Start(t testing.TB, width, height int, listen func(ev any)) context.Context {
	t.Helper()
	if _, err := exec.LookPath(ChromiumPath); err != nil {
		Needs(t, "needs Debian's chromium at %s (scripts/install-deps.sh): %v", ChromiumPath, err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(ChromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(t.TempDir(), "chromium-profile")),
		chromedp.WindowSize(width, height),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	var copts []chromedp.ContextOption
	if listen != nil {
		copts = append(copts, chromedp.WithListener(listen))
	}
	ctx, cancel := chromedp.NewContext(actx, copts...)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	return ctx
}
