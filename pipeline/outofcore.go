package pipeline

import (
	"fmt"
	"strings"
	"time"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
)

// Out-of-core modes (--out-of-core, key run.out-of-core).
const (
	OutOfCoreAuto = "auto"  // when the data will not fit in the kernel's memory
	OutOfCoreOn   = "true"  // always (CSV and TSV only)
	OutOfCoreOff  = "false" // never: load the data whole
)

// ParseOutOfCore checks an --out-of-core value; "" is auto.
func ParseOutOfCore(s string) (string, error) {
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case "", OutOfCoreAuto:
		return OutOfCoreAuto, nil
	case OutOfCoreOn, "on", "yes":
		return OutOfCoreOn, nil
	case OutOfCoreOff, "off", "no":
		return OutOfCoreOff, nil
	}
	return "", fmt.Errorf("invalid out-of-core mode %q: use auto, true or false", s)
}

// inMemoryFactor and gzipFactor make the conservative estimate of
// estimateInMemory: a delimited text file takes about 4.5 times its size
// as a DataFrame (text columns as Python strings: the sales example's 66
// bytes a row become 300), and gzip shrinks such text about 4 times.
const (
	inMemoryFactor = 5
	gzipFactor     = 4
	// fitShare is the share of the memory limit the loaded data may take:
	// the rest is for the libraries and the loader's copies.
	fitShare = 0.75
)

// fitsInMemory says whether the data fits in limit bytes loaded whole, with
// the estimate of what it would take: the frame estimated from a sample of
// the file (Input.Frame, what Preflight checks) when there is one, else a
// conservative factor of the file's size.
func fitsInMemory(in *Input, limit int64) (estimate int64, fits bool) {
	if in.Frame != nil {
		return in.Frame.PeakBytes(), in.Frame.Fits(limit)
	}
	estimate = in.Bytes * inMemoryFactor
	if name := strings.ToLower(in.Name); strings.HasSuffix(name, ".gz") || strings.HasSuffix(name, ".gzip") {
		estimate *= gzipFactor
	}
	return estimate, float64(estimate) <= fitShare*float64(limit)
}

// outOfCore says whether this run reads the data out of core, and how.
func (r *runner) outOfCore() (eda.OutOfCore, bool) {
	limit := r.opts.Kernel.Limits.MemoryBytes
	if limit == 0 {
		limit = kernel.DefaultMemoryBytes()
	}
	o := r.opts.OutOfCoreOptions
	o.Limit = limit
	switch r.opts.OutOfCore {
	case OutOfCoreOn:
		return o, true
	case OutOfCoreOff:
		return o, false
	}
	if r.in.Format != "csv" { // the chunked reader reads delimited text only
		return o, false
	}
	estimate, fits := fitsInMemory(r.in, limit)
	o.Estimate = estimate
	return o, !fits
}

// oocTimePerByte is what a cell that reads the whole file out of core may
// take on top of the cell timeout: two minutes per 100 MB. The profile's
// pass over 1 GB took 13.5 minutes on this project's 2-core machine shared
// by a dozen kernels (docs/benchmarks.md).
const oocTimePerByte = 2 * time.Minute / 100e6

// stageCellTimeout is the timeout of a deterministic stage's cells: the
// cell timeout, plus, out of core, time to read the whole file (a model's
// cells keep the cell timeout).
func (r *runner) stageCellTimeout() time.Duration {
	if r.ooc == nil {
		return r.generatedCellTimeout()
	}
	return r.cellTimeout() + time.Duration(r.in.Bytes)*oocTimePerByte
}

// outOfCoreNotice is the report's note on an out-of-core run.
func (r *runner) outOfCoreNotice() string {
	if r.ooc == nil {
		return ""
	}
	return eda.OutOfCoreNotice(r.profile, *r.ooc)
}
