package pipeline

import (
	"fmt"
	"strings"
	"time"

	"github.com/analyst-cli/analyst/dataset"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/runrecord"
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

// readsOutOfCore is the one rule for how a run reads its data, applied
// before any kernel starts (by Preflight) and again when the run chooses
// its stages, so both agree:
//   - --out-of-core=true reads a CSV or TSV file out of core; any other
//     format is a *UsageError (the chunked reader reads delimited text only);
//   - data whose frame fits in limit bytes (0: the default limit) is loaded
//     whole under auto and false;
//   - data that will not fit is read out of core under auto when it is a
//     CSV or TSV file, and is otherwise a *MemoryError that says what to do.
func readsOutOfCore(in *dataset.Input, mode string, limit int64) (bool, error) {
	if limit == 0 {
		limit = kernel.DefaultMemoryBytes()
	}
	if in.Folder != nil {
		return false, folderFits(in, mode, limit)
	}
	delimited := in.Format == "csv"
	if mode == OutOfCoreOn {
		if !delimited {
			return false, &dataset.UsageError{Err: fmt.Errorf("%s: --out-of-core reads CSV and TSV files only (optionally gzip, bz2 or xz compressed), and this file is %s; "+
				"load it whole (--out-of-core=auto, raising --memory if it will not fit), or export it as CSV", in.Path, in.Format)}
		}
		return true, nil
	}
	est := in.Estimate()
	switch {
	case est.Fits(limit):
		return false, nil
	case delimited && mode != OutOfCoreOff:
		return true, nil
	}
	return false, &dataset.MemoryError{Path: in.Path, Bytes: in.Bytes, Estimate: est, Limit: limit, Delimited: delimited}
}

// folderFits: a folder's tables are loaded whole, together; --out-of-core
// is a *UsageError, tables that will not fit a *MemoryError.
func folderFits(in *dataset.Input, mode string, limit int64) error {
	if mode == OutOfCoreOn {
		return &dataset.UsageError{Err: fmt.Errorf("%s: --out-of-core reads one CSV or TSV file, and this is a folder, whose tables are loaded whole; "+
			"analyse its big table alone out of core (analyst run FOLDER/TABLE.csv --out-of-core)", in.Path)}
	}
	est := in.Estimate()
	if est.Fits(limit) {
		return nil
	}
	return &dataset.MemoryError{Path: in.Path, Bytes: in.Bytes, Estimate: est, Limit: limit, Folder: true}
}

// outOfCore says whether this run reads the data out of core, and how.
// Preflight has applied readsOutOfCore already, so it cannot fail here.
func (r *runner) outOfCore() (eda.OutOfCore, bool) {
	limit := r.opts.Kernel.Limits.MemoryBytes
	if limit == 0 {
		limit = kernel.DefaultMemoryBytes()
	}
	o := r.opts.OutOfCoreOptions
	o.Limit = limit
	on, _ := readsOutOfCore(r.in, r.opts.OutOfCore, limit)
	if on && r.opts.OutOfCore != OutOfCoreOn {
		o.Estimate = r.in.Estimate().PeakBytes()
	}
	return o, on
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

// outOfCoreNotice is the report's note on a run of data (run.json's
// "data") that read it out of core; "" for other runs.
func outOfCoreNotice(profile *eda.Profile, data runrecord.Data) string {
	return eda.OutOfCoreNotice(profile, eda.OutOfCore{Estimate: data.MemoryEstimate, Limit: data.MemoryLimit})
}
