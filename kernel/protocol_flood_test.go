package kernel_test

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/kernel"
)

// Issue 32 item 3: a cell that finds the driver's protocol stream (the
// driver is __main__; the request is a local of a frame above the cell)
// and writes output replies to it in a loop cannot grow the Go process:
// past the bytes the driver's caps allow for a cell, the cell ends with
// the kernel stopped, saying why, and the heap stays bounded.
func TestProtocolFloodIsBounded(t *testing.T) {
	k := startKernel(t, func(o *kernel.Options) {
		o.Limits.StreamBytes, o.Limits.ImageBytes, o.Limits.HTMLBytes, o.Limits.MaxDisplays = 16<<10, 64<<10, 16<<10, 2
		o.Limits.CellTimeout = 20 * time.Second
	})
	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	ex := run(t, k, `
import sys, __main__ as driver
f = sys._getframe()
while f is not None and not isinstance(f.f_locals.get("req"), dict):
    f = f.f_back
rid = f.f_locals["req"]["id"]
out = {"output_type": "stream", "name": "stdout", "text": "x" * (4 << 20)}
while True:
    driver.send({"type": "output", "id": rid, "output": out})
`)
	close(stop)
	if ex.Status != kernel.StatusDied || !ex.StateLost || !strings.Contains(ex.Cause, "the cell wrote to the kernel's protocol channel itself") {
		t.Errorf("flooding cell: status %s, state lost %v, cause %q; want the kernel stopped for the protocol flood", ex.Status, ex.StateLost, ex.Cause)
	}
	const bound = 128 << 20
	t.Logf("peak heap in use: %d MiB", peak.Load()>>20)
	if p := peak.Load(); p > bound {
		t.Errorf("the Go heap reached %d MiB during the flood; want under %d MiB", p>>20, bound>>20)
	}
	if _, err := k.Execute(t.Context(), "1", kernel.ExecOptions{}); err == nil {
		t.Errorf("the kernel still runs cells after the flood")
	}
}
