package evals

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/pipeline"
	"github.com/analyst-cli/analyst/report"
)

// Root kernels: most of a parent's cost is its container's start and the
// setup's imports, not its data (DABench: 52 tables of about 5 cases each).
// When the run's datasets are plain files with distinct names, a root
// kernel holds them all under /data, each at /data/NAME as a kernel of its
// own would, runs setup once, and then loads one dataset at a time: the
// parent of that dataset's cases. Before the next load, the globals go back
// to what setup made (_analyst_root_reset), so the load and profile cells
// run as in a fresh kernel and every case notebook shows the same cells
// and outputs as with a parent of its own (BenchmarkEvalDABench compares
// them with --no-fork's).

// rootResetPy defines the reset, in the root, after setup: it is no cell
// of any case's notebook.
const rootResetPy = `def _analyst_root_reset(keep=frozenset(globals()) | {"_analyst_root_reset"}):
    """analyst eval: the globals back to what setup made, before the next dataset's load."""
    import gc
    g = globals()
    for name in [n for n in g if n not in keep]:
        del g[name]
    plt.close("all")
    gc.collect()`

// rootKernel is a kernel with the run's files under /data and setup run.
type rootKernel struct {
	k   *kernel.Kernel
	out string
	// setup's cells (with their outputs) and stage entry, for each case's
	// notebook.
	cells  []*nbformat.Cell
	stages []report.StageInfo
}

func (rk *rootKernel) close() {
	rk.k.Close()
	os.RemoveAll(rk.out)
}

// rootPool keeps the root kernels: those free to load a dataset, and all
// of them (closed at the end).
type rootPool struct {
	mu    sync.Mutex
	files []kernel.DataFile // the datasets a root holds; none: no roots
	free  []*rootKernel
	all   []*rootKernel
}

// hold makes the pool's roots hold datasets, if they all are plain files
// (not folders, not Parquet, which is converted first) with distinct names;
// else the cases get parents of their own.
func (p *rootPool) hold(datasets []string) {
	var files []kernel.DataFile
	seen := map[string]bool{}
	for _, ds := range datasets {
		name := filepath.Base(ds)
		if seen[name] {
			if !slices.ContainsFunc(files, func(f kernel.DataFile) bool { return f.Source == ds }) {
				return // two files of one name
			}
			continue
		}
		fi, err := os.Stat(ds)
		if err != nil || !fi.Mode().IsRegular() || strings.EqualFold(filepath.Ext(name), ".parquet") {
			return
		}
		seen[name] = true
		files = append(files, kernel.DataFile{Path: name, Source: ds})
	}
	p.mu.Lock()
	p.files = files
	p.mu.Unlock()
}

// holds says whether dataset is loaded in a root.
func (p *rootPool) holds(dataset string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.ContainsFunc(p.files, func(f kernel.DataFile) bool { return f.Source == dataset })
}

// get returns a free root, reset, or a new one.
func (p *rootPool) get(ctx context.Context, ck caseKernel) (*rootKernel, error) {
	for {
		p.mu.Lock()
		n := len(p.free)
		if n == 0 {
			p.mu.Unlock()
			break
		}
		rk := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		if err := rk.reset(ctx, ck); err == nil {
			return rk, nil
		}
		p.drop(rk) // it died (out of memory in a case's load): another
	}
	rk, err := p.start(ctx, ck)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &SolveError{ClassSandboxError, fmt.Errorf("starting the kernel: %w", err)}
	}
	return rk, nil
}

// start starts a root: its kernel, setup, and the reset's definition.
func (p *rootPool) start(ctx context.Context, ck caseKernel) (*rootKernel, error) {
	out, err := os.MkdirTemp(ck.tempDir, caseTempPrefix)
	if err != nil {
		return nil, err
	}
	opts := ck.opts
	p.mu.Lock()
	opts.Data, opts.DataFiles, opts.OutputDir = "", p.files, out
	p.mu.Unlock()
	k, err := kernel.Start(ctx, opts)
	if err != nil {
		os.RemoveAll(out)
		return nil, err
	}
	rk := &rootKernel{k: k, out: out}
	rec := newCaseRecord(Case{})
	st := eda.Setup()
	sr := &pipeline.StageRunner{Kernel: k, Notebook: rec.Notebook, CellTimeout: ck.cellTimeout}
	res, err := sr.Run(ctx, st)
	if err == nil {
		err = rk.exec(ctx, ck, rootResetPy)
	}
	if err != nil {
		rk.close()
		return nil, fmt.Errorf("the setup stage: %w", err)
	}
	rec.addStage(st, res.Info.Status)
	rk.cells, rk.stages = rec.Notebook.Cells[1:], rec.Stages
	p.mu.Lock()
	p.all = append(p.all, rk)
	p.mu.Unlock()
	return rk, nil
}

// exec runs harness code in the root, which no notebook shows.
func (rk *rootKernel) exec(ctx context.Context, ck caseKernel, code string) error {
	ex, err := rk.k.Execute(ctx, code, kernel.ExecOptions{Timeout: ck.cellTimeout})
	if err != nil {
		return err
	}
	if ex.Status != kernel.StatusOK {
		return fmt.Errorf("%s: %s", ex.Status, ex.Cause)
	}
	return nil
}

// reset takes the root's globals back to what setup made.
func (rk *rootKernel) reset(ctx context.Context, ck caseKernel) error {
	return rk.exec(ctx, ck, "_analyst_root_reset()")
}

// release gives a root back, free to load another dataset.
func (p *rootPool) release(rk *rootKernel) {
	p.mu.Lock()
	p.free = append(p.free, rk)
	p.mu.Unlock()
}

// drop closes a root that is of no more use.
func (p *rootPool) drop(rk *rootKernel) {
	p.mu.Lock()
	p.all = slices.DeleteFunc(p.all, func(r *rootKernel) bool { return r == rk })
	p.mu.Unlock()
	rk.close()
}

// close ends every root.
func (p *rootPool) close() {
	p.mu.Lock()
	all := p.all
	p.all, p.free = nil, nil
	p.mu.Unlock()
	for _, rk := range all {
		rk.close()
	}
}

// loadInRoot makes c's dataset the parent of its cases in a root: the
// root's setup cells, then load and profile run there (newParent).
func (s *AgentSolver) loadInRoot(ctx context.Context, ck caseKernel, c Case, a *Attempt) (*parent, error) {
	rk, err := s.roots.get(ctx, ck)
	if err != nil {
		return nil, err
	}
	ds, err := openCaseData(c.Dataset)
	if err != nil {
		s.roots.release(rk)
		return nil, err
	}
	pa := &Attempt{Record: newCaseRecord(c)}
	for _, cell := range rk.cells {
		cp := *cell
		cp.Outputs = nbformat.CopyOutputs(cell.Outputs)
		pa.Record.Notebook.Cells = append(pa.Record.Notebook.Cells, &cp)
	}
	pa.Record.Stages = append(pa.Record.Stages, rk.stages...)
	ck.setupDone = true
	cd := &caseData{k: rk.k, ds: ds, done: func() {
		ds.Close()
		s.roots.release(rk)
	}}
	cd.loaded, err = prepare(ctx, rk.k, ds, ck, pa)
	if err != nil {
		cd.done()
	}
	return newParent(c, pa, cd, a, err)
}
