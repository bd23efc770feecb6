package pipeline_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/pipeline"
)

// A run forced out of core (small chunks and sample, so both are used)
// writes a notebook that Jupyter re-runs to the same outputs: the sample
// and every streamed statistic come out the same, byte for byte; the report
// says at the top that the data was read out of core.
func TestOutOfCoreNotebookReexecutesInJupyter(t *testing.T) {
	dir := t.TempDir()
	data := salesCSV(t, dir, 5000)
	res := reexecuteWith(t, dir, data, nil, true, func(o *pipeline.Options) {
		o.OutOfCore = pipeline.OutOfCoreOn
		o.OutOfCoreOptions = eda.OutOfCore{ChunkRows: 1500, SampleRows: 1000}
	})
	ooc := res.Profile.OutOfCore
	if ooc == nil || ooc.Rows != 5000 || ooc.Chunks != 4 || ooc.SampleRows != 1000 || res.Profile.Rows != 5000 {
		t.Fatalf("profile: %d rows, out_of_core %+v", res.Profile.Rows, ooc)
	}
	// An identifier is recognised exactly out of core too (its values only increase).
	found := false
	for _, a := range res.Profile.Alerts {
		found = found || (a.Type == eda.AlertUniqueID && a.Column == "order_id")
	}
	if !found {
		t.Errorf("no unique_id alert on order_id: %+v", res.Profile.Alerts)
	}
	html, err := os.ReadFile(res.Files.Report)
	if err != nil {
		t.Fatal(err)
	}
	notice := `<div class="banner banner-notice" role="note">`
	i, j := bytes.Index(html, []byte(notice)), bytes.Index(html, []byte(`id="overview"`))
	if i < 0 || j < i || !bytes.Contains(html[i:j], []byte("uniform sample of 1,000 rows")) {
		t.Errorf("the report has no out-of-core notice before the data overview")
	}
}

// With the default mode (auto), data too big for the kernel's memory is read
// out of core instead of killing the kernel: a 1,000,000-row file (66 MB,
// about 300 MB as a DataFrame) under a 300 MiB limit.
func TestOutOfCoreAutoPastMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	data := salesCSV(t, dir, 1_000_000)
	opts := options(t, data, filepath.Join(dir, "out"))
	if !opts.Kernel.CgroupLimits {
		// Rootless on cgroup v1 the limit is the driver's RLIMIT_AS, which
		// counts address space, not memory: Python with pandas reserves
		// more than 300 MiB of it before any data is read. The decision to
		// go out of core is the same either way (TestFitsInMemory).
		t.Skip("needs the memory limit enforced by a cgroup (this kernel enforces it by rlimit)")
	}
	opts.Kernel.Limits.MemoryBytes = 300 << 20
	res := run(t, opts)
	ooc := res.Profile.OutOfCore
	if ooc == nil || ooc.Rows != 1_000_000 || ooc.SampleRows != eda.SampleRowsFor(300<<20) {
		t.Fatalf("profile: %d rows, out_of_core %+v", res.Profile.Rows, ooc)
	}
	html, err := os.ReadFile(res.Files.Report)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`this data did not fit in memory \(estimate [0-9]+ MiB, limit 300 MiB\)`).Match(html) {
		t.Errorf("the report does not say why the data was read out of core")
	}
	for _, s := range res.Stages {
		if s.Status != "ok" {
			t.Errorf("stage %s: %s", s.Name, s.Status)
		}
	}
}
