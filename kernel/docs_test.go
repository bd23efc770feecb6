package kernel

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/internal/docscheck"
	"github.com/analyst-cli/analyst/internal/units"
)

// The user guide states these constants: each sentence is formatted from
// the constant, so a changed constant fails here until the page says so.
func TestDocsStateTheKernelsLimits(t *testing.T) {
	d := DefaultLimits()
	if d.TmpBytes != d.OutputBytes {
		t.Fatalf("docs/sandbox.md gives /tmp and /output one default size; DefaultLimits has %s and %s", units.Bytes(d.TmpBytes), units.Bytes(d.OutputBytes))
	}
	docscheck.Says(t, "docs/sandbox.md",
		fmt.Sprintf("(uid %d when podman runs as root", sandboxUID),
		fmt.Sprintf("(`kernel.tmp-size`, `kernel.output-size`, %s each by default)", units.Bytes(d.TmpBytes)),
		fmt.Sprintf(`"output folder full (limit %s)"`, units.Bytes(d.OutputBytes)),
		fmt.Sprintf("(a path longer than %s bytes) and every file past the %sth", docscheck.Thousands(maxOutputName), docscheck.Thousands(maxOutputFiles)),
		fmt.Sprintf("`kernel.output-size` in total and %s in number", docscheck.Thousands(maxOutputFiles)),
		fmt.Sprintf("the error names the first %s and counts the rest", map[int]string{5: "five"}[maxNotCopiedShown]),
		fmt.Sprintf("(half the host's RAM × %d by default", d.Pids),
		fmt.Sprintf("past %s of copies the kernel does not start", units.Bytes(maxStageCopy)),
		fmt.Sprintf("from the interrupt the kernel has %d seconds to end the cell", DefaultInterruptGrace/time.Second),
	)
	docscheck.Says(t, "docs/models.md",
		fmt.Sprintf("(`text/...`, SVG and JSON at %s, images at %s)", units.Bytes(int64(d.HTMLBytes)), units.Bytes(int64(d.ImageBytes))))
	docscheck.Says(t, "docs/big-files.md",
		fmt.Sprintf("rounded down to %s, at least %s; %s where `/proc/meminfo` cannot be read",
			units.Bytes(memoryStep), units.Bytes(minMemoryBytes), units.Bytes(FallbackMemoryBytes)),
		DefaultMemoryHelp[:len("half of the host's")])
	docscheck.Says(t, "docs/configuration.md",
		fmt.Sprintf("pids: %d ", d.Pids),
		fmt.Sprintf("cpus: %s ", strconv.FormatFloat(d.CPUs, 'g', -1, 64)),
		fmt.Sprintf("tmp-size: %s ", units.Flag(d.TmpBytes)),
		fmt.Sprintf("output-size: %s ", units.Flag(d.OutputBytes)),
		fmt.Sprintf("cell-timeout: %ds ", d.CellTimeout/time.Second),
	)
}
