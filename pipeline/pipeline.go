// Package pipeline runs an analysis as stages — setup, load, profile,
// distributions, visualization, then with a model the exploration and the
// questions — against one kernel, and writes the run out: a notebook, an
// HTML report, the chart files and a run manifest. A run that fails or is
// interrupted still writes what it has, with the failure shown.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/analyst-cli/analyst/dataset"
	"github.com/analyst-cli/analyst/eda"
)

// Run runs the analysis and writes its outputs. The error says why a run
// failed (an *InputError, *DataError, *SandboxError, *StageError, or the
// context's error); the Result is non-nil whenever outputs were written.
func Run(ctx context.Context, opts Options) (*Result, error) {
	ds, name, err := openDataset(opts)
	if err != nil {
		return nil, err
	}
	if opts.Dataset == nil {
		defer ds.Close()
	}
	if err := removeLeftovers(opts); err != nil {
		return nil, err
	}
	in := ds.In
	out, err := newStaging(opts.OutDir, name)
	if err != nil {
		return nil, err
	}
	defer out.discard()

	if len(opts.Questions) > 0 && opts.Model == nil {
		return nil, errors.New("questions need a model: set one with --model, ANALYST_MODEL, or `model:` in the config file")
	}
	if opts.RunTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.RunTimeout)
		defer cancel()
	}
	r := &runner{opts: opts, in: in, ds: ds, name: name, out: out, started: time.Now(), progressMu: &sync.Mutex{}, tokens: &atomic.Int64{}}
	runErr := r.run(ctx)
	if ctx.Err() == nil {
		// The kernel is gone: nothing reads the file any more.
		if err := in.Unchanged(true); err != nil {
			runErr = errors.Join(err, runErr)
		}
	}
	res, writeErr := r.finish(runErr)
	if writeErr != nil {
		return res, errors.Join(runErr, writeErr)
	}
	return res, runErr
}

// removeLeftovers removes the staging folders killed runs left in the
// output folder, with a notice for each.
func removeLeftovers(opts Options) error {
	removed, err := removeLeftoverStaging(opts.OutDir)
	for _, l := range removed {
		if opts.Progress != nil {
			opts.Progress(Event{Time: time.Now(), Type: EventNotice, Stage: eda.StageSetup,
				Message: fmt.Sprintf("removed %s, left by analyst process %d, which is gone (killed during a run)", l.path, l.ownerPID)})
		}
	}
	return err
}

// openDataset is opts.Dataset with opts.Name, or else the dataset
// Preflight checks, opened (before anything is written: a bad sheet, table
// or Parquet file is bad input), and the outputs' name.
func openDataset(opts Options) (*dataset.Dataset, string, error) {
	if opts.Dataset != nil {
		return opts.Dataset, opts.Name, nil
	}
	in, name, err := Preflight(opts)
	if err != nil {
		return nil, "", err
	}
	ds, err := dataset.Open(in, opts.Sheet, opts.Table, opts.Load)
	return ds, name, err
}

// Preflight checks what a run can check before anything slow starts: the
// dataset (an *InputError), the outputs' name, that the outputs would
// replace nothing but a previous run (an *OutputConflictError, unless
// opts.Force), and last that the data will fit in the kernel's memory
// (a *MemoryError, returned with the input and name, so that a caller can
// choose another way to analyse it) unless the run may read it out of core,
// and that --out-of-core can read the file (a *UsageError; see
// readsOutOfCore). It returns the checked input and the outputs' name.
func Preflight(opts Options) (*dataset.Input, string, error) {
	in := opts.Input
	if in == nil {
		var err error
		paths := opts.DataPaths
		if len(paths) == 0 {
			paths = []string{opts.Data}
		}
		if in, err = dataset.CheckSet(paths, opts.SkipUnreadable); err != nil {
			return nil, "", err
		}
	}
	name := opts.Name
	if name == "" {
		name = defaultName(in.Name)
	} else if !validName.MatchString(name) {
		return nil, "", &dataset.UsageError{Err: fmt.Errorf("invalid --name %q: use letters, digits, '.', '_' and '-'", name)}
	}
	if !opts.Force {
		if err := CheckOutputs(opts.OutDir, name); err != nil {
			return nil, "", err
		}
	}
	if _, err := readsOutOfCore(in, opts.OutOfCore, opts.Kernel.Limits.MemoryBytes); err != nil {
		return in, name, err
	}
	return in, name, nil
}

var (
	validName       = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	unsafeNameChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)
)

// defaultName is the data file's name without its extensions, made safe.
func defaultName(file string) string {
	base := strings.ToLower(file)
	for _, ext := range []string{".gz", ".gzip"} {
		base = strings.TrimSuffix(base, ext)
	}
	base = file[:len(base)]
	base = strings.TrimSuffix(base, filepath.Ext(base))
	safe := unsafeNameChars.ReplaceAllString(base, "_")
	safe = strings.Trim(safe, "._-")
	if safe == "" {
		return "analysis"
	}
	return safe
}
