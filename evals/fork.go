package evals

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/report"
)

// Forked cases: the cases over one dataset share a loaded kernel, a
// "parent" that has run setup, load and profile once; each case runs in a
// session forked from it (kernel.Fork), which sees the loaded data and
// nothing another case did. The workers share the parents: two cases on
// one dataset fork from the same parent at once, and a worker that needs a
// parent another is starting waits for it. At most as many are alive as
// there are workers (parentPool.max): a case on other data first closes the
// least recently used parent no case is using.

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

// parentSlot is a dataset's parent in the pool: being started until ready
// is closed, then pa (nil if it could not be started), and the cases using
// it.
type parentSlot struct {
	pa    *parent
	ready chan struct{}
	users int
	used  int64 // when a case last took it (the pool's clock)
}

// parentPool keeps the parents by dataset: at most max alive (one per
// worker).
type parentPool struct {
	mu    sync.Mutex
	max   int
	slots map[string]*parentSlot
	clock int64
}

// take returns the slot of dataset's parent for a case to fork from,
// waiting while another case starts it. With none (or when its start
// failed) it returns a new slot and start: the caller starts the parent and
// tells started; the least recently used parent no case uses has been
// closed first if the pool was full. Every take is followed by a put.
func (p *parentPool) take(ctx context.Context, dataset string) (sl *parentSlot, start bool, err error) {
	p.mu.Lock()
	if p.slots == nil {
		p.slots = map[string]*parentSlot{}
	}
	p.clock++
	if sl := p.slots[dataset]; sl != nil {
		sl.users++
		sl.used = p.clock
		p.mu.Unlock()
		select {
		case <-sl.ready:
		case <-ctx.Done():
			p.put(dataset, sl)
			return nil, false, ctx.Err()
		}
		if sl.pa != nil {
			return sl, false, nil
		}
		p.put(dataset, sl)
		return p.take(ctx, dataset) // its start failed: start one again
	}
	evicted := p.evictLocked()
	sl = &parentSlot{ready: make(chan struct{}), users: 1, used: p.clock}
	p.slots[dataset] = sl
	p.mu.Unlock()
	if evicted != nil {
		evicted.cd.done()
	}
	return sl, true, nil
}

// evictLocked takes the least recently used parent no case uses out of a
// full pool, for the caller to close (p.mu held).
func (p *parentPool) evictLocked() *parent {
	if len(p.slots) < max(p.max, 1) {
		return nil
	}
	var lru string
	for ds, sl := range p.slots {
		if sl.users == 0 && (lru == "" || sl.used < p.slots[lru].used) {
			lru = ds
		}
	}
	if lru == "" {
		return nil
	}
	pa := p.slots[lru].pa
	delete(p.slots, lru)
	return pa
}

// started ends a slot's start with its parent; nil (it failed) takes the
// slot out of the pool, so the next case starts one again.
func (p *parentPool) started(dataset string, sl *parentSlot, pa *parent) {
	p.mu.Lock()
	sl.pa = pa
	if pa == nil && p.slots[dataset] == sl {
		delete(p.slots, dataset)
	}
	close(sl.ready)
	p.mu.Unlock()
}

// put says a case that took the slot is done with it. A parent out of the
// pool (discarded) is closed with its last user.
func (p *parentPool) put(dataset string, sl *parentSlot) {
	p.mu.Lock()
	sl.users--
	var end *parent
	if sl.users == 0 && p.slots[dataset] != sl {
		end, sl.pa = sl.pa, nil
	}
	p.mu.Unlock()
	if end != nil {
		end.cd.done()
	}
}

// discard takes a parent that could not fork out of the pool and puts the
// caller's use of it; the cases forked from it go on, and it is closed
// with the last.
func (p *parentPool) discard(dataset string, sl *parentSlot) {
	p.mu.Lock()
	if p.slots[dataset] == sl {
		delete(p.slots, dataset)
	}
	p.mu.Unlock()
	p.put(dataset, sl)
}

// close ends every parent.
func (p *parentPool) close() {
	p.mu.Lock()
	slots := p.slots
	p.slots = nil
	p.mu.Unlock()
	for _, sl := range slots {
		if isClosed(sl.ready) && sl.pa != nil {
			sl.pa.cd.done()
		}
	}
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// startParent starts a kernel on c's data and runs setup, load and profile
// in it, recorded in a notebook of its own.
// A stage that failed is recorded in a, the case that started it, as a
// kernel of its own would have recorded it.
func startParent(ctx context.Context, ck caseKernel, c Case, a *Attempt) (*parent, error) {
	pa := &Attempt{Record: newCaseRecord(c)}
	cd, err := startCase(ctx, ck, c, pa)
	return newParent(c, pa, cd, a, err)
}

// newParent is the parent of c's dataset whose stages pa recorded, in cd;
// when they failed (err), they go into a, the case that started it, as a
// kernel of its own would have recorded them.
func newParent(c Case, pa *Attempt, cd *caseData, a *Attempt, err error) (*parent, error) {
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

// forkCase runs case c's setup in a session forked from the parent on its
// data (started if the pool has none): the parent's stage cells go into the
// case's notebook, as the cells a kernel of the case's own would have run,
// and the case's result records the parent's digest. done gives the parent back.
func (s *AgentSolver) forkCase(ctx context.Context, ck caseKernel, c Case, a *Attempt) (*caseData, error) {
	out, err := os.MkdirTemp(ck.tempDir, caseTempPrefix)
	if err != nil {
		return nil, &SolveError{ClassSandboxError, err}
	}
	sl, k, err := s.fork(ctx, ck, c, a, out)
	if err != nil {
		os.RemoveAll(out)
		return nil, err
	}
	pa := sl.pa
	for _, cell := range pa.cells {
		cp := *cell
		cp.Outputs = nbformat.CopyOutputs(cell.Outputs) // each case's notebook is its own
		a.Record.Notebook.Cells = append(a.Record.Notebook.Cells, &cp)
	}
	a.Record.Stages = append(a.Record.Stages, pa.stages...)
	a.ForkOf = pa.digest
	return &caseData{k: k, ds: pa.cd.ds, loaded: pa.cd.loaded, done: func() {
		k.Close()
		os.RemoveAll(out)
		s.parents.put(c.Dataset, sl)
	}}, nil
}

// fork forks c's session, named and seeded after the case and its repeat,
// from the parent on its data or, when there is none or it cannot fork (it
// died), from a new one; the slot returned is the case's to put.
func (s *AgentSolver) fork(ctx context.Context, ck caseKernel, c Case, a *Attempt, out string) (*parentSlot, *kernel.Kernel, error) {
	id := c.ID + "/" + strconv.Itoa(c.Repeat)
	sum := sha256.Sum256([]byte(id))
	fo := kernel.ForkOptions{Name: "case-" + hex.EncodeToString(sum[:6]), Seed: ptr(kernel.ForkSeed(id)), OutputDir: out}
	for {
		waited := time.Now()
		sl, start, err := s.parents.take(ctx, c.Dataset)
		if !start {
			a.WaitMS += ms(time.Since(waited))
		}
		if err != nil {
			return nil, nil, err
		}
		if start {
			pa, err := s.startParent(ctx, ck, c, a)
			s.parents.started(c.Dataset, sl, pa)
			if err != nil {
				s.parents.put(c.Dataset, sl)
				return nil, nil, err
			}
			a.KernelMS += pa.kernelMS
		}
		fctx, cancel := phase(ctx)
		k, err := sl.pa.cd.k.Fork(fctx, fo)
		timedOut := fctx.Err() != nil
		cancel()
		if err == nil {
			return sl, k, nil
		}
		s.parents.discard(c.Dataset, sl) // a parent that cannot fork is of no more use
		switch {
		case ctx.Err() != nil:
			return nil, nil, ctx.Err()
		case timedOut:
			return nil, nil, fmt.Errorf("forking the case's session: %w", err)
		case start:
			return nil, nil, &SolveError{ClassSandboxError, fmt.Errorf("forking the case's session: %w", err)}
		}
	}
}

// startParent starts the parent of c's dataset, in a root kernel when one
// holds it, bounded by c's timeout: the cases that wait for it are not.
func (s *AgentSolver) startParent(ctx context.Context, ck caseKernel, c Case, a *Attempt) (*parent, error) {
	ctx, cancel := phase(ctx)
	defer cancel()
	if s.roots.holds(c.Dataset) {
		return s.loadInRoot(ctx, ck, c, a)
	}
	return startParent(ctx, ck, c, a)
}

func ptr[T any](v T) *T { return &v }

// keepsKernels is a solver that keeps loaded kernels between cases: Run
// tells it how many workers share them and the datasets of the cases it
// will be given, and closes it at the end.
type keepsKernels interface {
	keepParents(workers int, datasets []string)
	Close() error
}

// keepParents keeps at most one parent per worker alive, in root kernels
// that hold all the datasets when they can (rootPool.hold).
func (s *AgentSolver) keepParents(workers int, datasets []string) {
	s.parents.mu.Lock()
	s.parents.max = workers
	s.parents.mu.Unlock()
	if !s.NoFork {
		s.roots.hold(datasets)
	}
}

// Close ends the parents and root kernels the solver keeps (forked cases).
func (s *AgentSolver) Close() error {
	s.parents.close()
	s.roots.close()
	return nil
}
