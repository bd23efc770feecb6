package evals

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/report"
)

// Forked cases: the cases over one dataset share a loaded kernel, a
// "parent" that has run setup, load and profile once; each case runs in a
// session forked from it (kernel.Fork), which sees the loaded data and
// nothing another case did. A worker holds one parent at a time; a parent
// is kept for the next case on its data, and at most as many are alive as
// there are workers (parentPool.max): a case on other data first closes
// the least recently used idle one.

// parent is a loaded kernel cases fork from, with the record of its
// stages: their cells (with the outputs they got in the parent), copied
// into each case's notebook, and their report entries.
type parent struct {
	dataset string
	cd      *caseData
	cells   []*nbformat.Cell
	stages  []report.StageInfo
	// kernelMS is the time its stages took in the kernel, counted once, in
	// the case that started it.
	kernelMS float64
	digest   string // of its stages' cells: what every fork of it saw
}

// parentPool keeps the parents: at most max alive (one per worker), the
// idle ones the most recently used last.
type parentPool struct {
	mu   sync.Mutex
	max  int
	live int
	idle []*parent
}

// take returns an idle parent of dataset, or nil: then the caller starts
// one (and tells started), the least recently used idle parent of other
// data having been closed first if the pool is full.
func (p *parentPool) take(dataset string) *parent {
	p.mu.Lock()
	for i := len(p.idle) - 1; i >= 0; i-- {
		if pa := p.idle[i]; pa.dataset == dataset {
			p.idle = append(p.idle[:i], p.idle[i+1:]...)
			p.mu.Unlock()
			return pa
		}
	}
	var evicted *parent
	if p.live >= max(p.max, 1) && len(p.idle) > 0 {
		evicted, p.idle = p.idle[0], p.idle[1:]
		p.live--
	}
	p.mu.Unlock()
	if evicted != nil {
		evicted.cd.done()
	}
	return nil
}

func (p *parentPool) started() {
	p.mu.Lock()
	p.live++
	p.mu.Unlock()
}

// put gives back a parent for the next case on its data.
func (p *parentPool) put(pa *parent) {
	p.mu.Lock()
	p.idle = append(p.idle, pa)
	p.mu.Unlock()
}

// discard ends a parent that is of no more use.
func (p *parentPool) discard(pa *parent) {
	p.mu.Lock()
	p.live--
	p.mu.Unlock()
	pa.cd.done()
}

// close ends every idle parent.
func (p *parentPool) close() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.live -= len(idle)
	p.mu.Unlock()
	for _, pa := range idle {
		pa.cd.done()
	}
}

// startParent starts a kernel on c's data and runs setup, load and profile
// in it, recorded in a notebook of its own.
// A stage that failed is recorded in a, the case that started it, as a
// kernel of its own would have recorded it.
func startParent(ctx context.Context, ck caseKernel, c Case, a *Attempt) (*parent, error) {
	pa := &Attempt{Record: newCaseRecord(c, false)}
	cd, err := startCase(ctx, ck, c, pa)
	cells := pa.Record.Notebook.Cells[1:] // not the title: each case has its own
	if err != nil {
		a.Record.Notebook.Cells = append(a.Record.Notebook.Cells, cells...)
		a.Record.Stages = append(a.Record.Stages, pa.Record.Stages...)
		a.KernelMS += pa.KernelMS
		return nil, err
	}
	return &parent{dataset: c.Dataset, cd: cd, cells: cells, stages: pa.Record.Stages,
		kernelMS: pa.KernelMS, digest: cellsDigest(cells)}, nil
}

// cellsDigest is the SHA-256 of the cells' digests (nbformat.CellDigest:
// type, source, tags and outputs) in order.
func cellsDigest(cells []*nbformat.Cell) string {
	h := sha256.New()
	for _, c := range cells {
		h.Write([]byte(nbformat.CellDigest(c) + "\n"))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// forkCase runs case c's setup in a session forked from a parent on its
// data (one started if the pool has none): the parent's stage cells go into
// the case's notebook, tagged as the parent's, and the case's result
// records the parent's digest. done gives the parent back.
func (s *AgentSolver) forkCase(ctx context.Context, ck caseKernel, c Case, a *Attempt) (*caseData, error) {
	out, err := os.MkdirTemp(ck.tempDir, "analyst-eval-")
	if err != nil {
		return nil, &SolveError{ClassSandboxError, err}
	}
	pa, k, err := s.fork(ctx, ck, c, a, out)
	if err != nil {
		os.RemoveAll(out)
		return nil, err
	}
	for _, cell := range pa.cells {
		cp := *cell
		cp.Outputs = nbformat.CopyOutputs(cell.Outputs) // each case's notebook is its own
		cp.Metadata.Tags = append(append([]string(nil), cell.Metadata.Tags...), nbformat.TagForkParent)
		a.Record.Notebook.Cells = append(a.Record.Notebook.Cells, &cp)
	}
	a.Record.Stages = append(a.Record.Stages, pa.stages...)
	a.ForkOf = pa.digest
	return &caseData{k: k, ds: pa.cd.ds, loaded: pa.cd.loaded, done: func() {
		k.Close()
		os.RemoveAll(out)
		s.parents.put(pa)
	}}, nil
}

// fork forks c's session, named and seeded after the case and its repeat,
// from an idle parent on its data or, when there is none or it cannot fork
// (it died), from a new one.
func (s *AgentSolver) fork(ctx context.Context, ck caseKernel, c Case, a *Attempt, out string) (*parent, *kernel.Kernel, error) {
	id := c.ID + "/" + strconv.Itoa(c.Repeat)
	sum := sha256.Sum256([]byte(id))
	fo := kernel.ForkOptions{Name: "case-" + hex.EncodeToString(sum[:6]), Seed: ptr(kernel.ForkSeed(id)), OutputDir: out}
	for {
		pa := s.parents.take(c.Dataset)
		started := pa == nil
		if started {
			var err error
			if pa, err = startParent(ctx, ck, c, a); err != nil {
				return nil, nil, err
			}
			s.parents.started()
			a.KernelMS += pa.kernelMS
		}
		k, err := pa.cd.k.Fork(ctx, fo)
		if err == nil {
			return pa, k, nil
		}
		s.parents.discard(pa) // a parent that cannot fork is of no more use
		switch {
		case ctx.Err() != nil:
			return nil, nil, ctx.Err()
		case started:
			return nil, nil, &SolveError{ClassSandboxError, fmt.Errorf("forking the case's session: %w", err)}
		}
	}
}

func ptr[T any](v T) *T { return &v }

// keepsKernels is a solver that keeps loaded kernels between cases: Run
// tells it how many workers share them and closes it at the end.
type keepsKernels interface {
	keepParents(workers int)
	Close() error
}

// keepParents keeps at most one parent per worker.
func (s *AgentSolver) keepParents(workers int) {
	s.parents.mu.Lock()
	s.parents.max = workers
	s.parents.mu.Unlock()
}

// Close ends the parents the solver keeps (forked cases).
func (s *AgentSolver) Close() error {
	s.parents.close()
	return nil
}
