package evals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/analyst-cli/analyst/internal/meminfo"
)

// ResultsFile is the name of the results file in an output folder.
const ResultsFile = "results.jsonl"

// Options configure an eval run.
type Options struct {
	Suite   *Suite
	Solvers []Solver // one per model, side by side
	Out     string   // the output folder
	Jobs    int      // cases in parallel; 0: DefaultJobs()
	// Timeout bounds each case's own work (clock.go); 0: none.
	Timeout time.Duration
	Limit   int // at most this many cases (after filter and shard); 0: all
	// Repeat runs each case this many times (0 or 1: once); repeat r is
	// asked with seed Seed+r, and the summary gives pass@k and pass^k.
	Repeat int
	Filter []string // case ids or tags; empty: all
	Shard  Shard
	// Force redoes finished cases and drops stale results; RetryErrors
	// redoes cases that ended in an error.
	Force, RetryErrors bool
	ImageID            string
	Seed               int
	// KaTeXDir is inlined into each case's HTML report (report.Input);
	// "": formulas as TeX source.
	KaTeXDir string
	// Progress, if set, hears of the run's start (Result nil), then of
	// every case that ends.
	Progress func(Progress)
}

// Progress is a case that ended, with the run's counts so far.
type Progress struct {
	Result  *Result // nil at the start
	Done    int
	Total   int
	Passed  int
	Errors  int
	Skipped int // finished in an earlier run
	Elapsed time.Duration
}

// Shard is the i-th of n parts of a suite (0-based); Count 0 is all.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// ParseShard reads "i/n" (0 <= i < n), or "n" with i taken from
// $JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs).
func ParseShard(s string, getenv func(string) string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	is, ns, found := strings.Cut(s, "/")
	if !found {
		ns, is = s, getenv("JOB_COMPLETION_INDEX")
		if is == "" {
			return Shard{}, fmt.Errorf("--shard %s: give i/%s, or set JOB_COMPLETION_INDEX", s, s)
		}
	}
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("--shard %q: want i/n with 0 <= i < n", s)
	}
	return Shard{i, n}, nil
}

// Has reports whether the case with id belongs to the shard: a hash of the
// id, so the split is stable when cases are added or reordered.
func (s Shard) Has(id string) bool {
	if s.Count <= 1 {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32()%uint32(s.Count)) == s.Index
}

// DefaultJobs is how many kernels run at once by default: one per two
// cores, and one per 2 GiB of memory, at least one.
func DefaultJobs() int {
	j := runtime.NumCPU() / 2
	if mem := memoryGiB(); mem > 0 && mem/2 < j {
		j = mem / 2
	}
	if j < 1 {
		j = 1
	}
	return j
}

func memoryGiB() int {
	in, err := meminfo.Read()
	if err != nil {
		return 0
	}
	return int(in.Available >> 30)
}

// SelectCases applies the filter, the shard and the limit, in that order.
func SelectCases(cases []Case, filter []string, shard Shard, limit int) []Case {
	var out []Case
	for _, c := range cases {
		if len(filter) > 0 && !matchesFilter(c, filter) {
			continue
		}
		if !shard.Has(c.ID) {
			continue
		}
		out = append(out, c)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out
}

func matchesFilter(c Case, filter []string) bool {
	for _, f := range filter {
		if c.ID == f || c.HasTag(f) {
			return true
		}
	}
	return false
}

// StaleError is an output folder holding results made with another suite,
// model, image or seed.
type StaleError struct {
	Path string
	What string
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("%s holds results made with %s; rerun with --force to replace them, or use another --out", e.Path, e.What)
}

type job struct {
	c      Case
	solver Solver
	repeat int
}

// Run runs the selected cases through every solver, appending each result
// to OUT/results.jsonl as it ends, then writes the summary and reports.
// Finished cases of an earlier run with the same provenance are kept.
func Run(ctx context.Context, o Options) (*Summary, error) {
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("creating the output folder: %w", err)
	}
	path := filepath.Join(o.Out, ResultsFile)
	old, err := ReadResults(path)
	if err != nil {
		return nil, err
	}
	cases := SelectCases(o.Suite.Cases, o.Filter, o.Shard, o.Limit)
	selected := map[string]bool{}
	for _, c := range cases {
		selected[c.ID] = true
	}
	digests := map[string]string{}
	for _, s := range o.Solvers {
		digests[s.Model().Spec] = s.Model().Digest
	}
	var kept []Result
	done := map[key]bool{}
	for _, r := range old {
		if what := o.stale(r, digests); what != "" {
			if !o.Force {
				return nil, &StaleError{path, what}
			}
			continue
		}
		if selected[r.Case] && (o.Force || (o.RetryErrors && r.Status == StatusError)) {
			continue
		}
		kept = append(kept, r)
		done[r.key()] = true
	}
	// Rewrite the file with what is kept, then append as cases end.
	if err := writeResultsFile(path, kept); err != nil {
		return nil, err
	}
	repeats := max(o.Repeat, 1)
	var jobs []job
	for r := 0; r < repeats; r++ {
		for _, c := range cases {
			for _, s := range o.Solvers {
				if !done[key{c.ID, s.Model().Spec, r}] {
					jobs = append(jobs, job{c, s, r})
				}
			}
		}
	}
	subs, err := o.openSubmissions(cases)
	if err != nil {
		return nil, err
	}
	results, runErr := o.runJobs(ctx, path, jobs, len(cases)*len(o.Solvers)*repeats-len(jobs), subs)
	runErr = errors.Join(runErr, subs.close())
	all := append(kept, results...)
	SortResults(all)
	if err := writeResultsFile(path, all); err != nil {
		return nil, errors.Join(runErr, err)
	}
	sum, err := WriteOutputs(o.Out, all, o.Shard)
	return sum, errors.Join(runErr, err)
}

// stale says how r differs from this run, or "".
func (o Options) stale(r Result, digests map[string]string) string {
	switch {
	case r.SuiteHash != o.Suite.Hash:
		return fmt.Sprintf("another version of the suite (%s, now %s)", short(r.SuiteHash), short(o.Suite.Hash))
	case r.ImageID != o.ImageID:
		return fmt.Sprintf("another kernel image (%s, now %s)", r.ImageID, o.ImageID)
	case r.Seed != o.Seed:
		return fmt.Sprintf("another seed (%d, now %d)", r.Seed, o.Seed)
	}
	if d, ok := digests[r.Model]; ok && d != r.ModelDigest {
		return fmt.Sprintf("another build of %s (digest %s, now %s)", r.Model, short(r.ModelDigest), short(d))
	}
	return ""
}

func short(s string) string {
	if len(s) > 19 {
		return s[:19]
	}
	return s
}

// jobDatasets are the datasets of solver's jobs, each once.
func jobDatasets(jobs []job, solver Solver) []string {
	var out []string
	for _, j := range jobs {
		if j.solver.Model().Spec == solver.Model().Spec && !slices.Contains(out, j.c.Dataset) {
			out = append(out, j.c.Dataset)
		}
	}
	return out
}

func (o Options) runJobs(ctx context.Context, path string, jobs []job, skipped int, subs submissions) ([]Result, error) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	defer f.Close()
	n := o.Jobs
	if n <= 0 {
		n = DefaultJobs()
	}
	for _, s := range o.Solvers {
		if kk, ok := s.(keepsKernels); ok {
			kk.keepParents(n, jobDatasets(jobs, s))
			defer kk.Close()
		}
	}
	sink := &resultSink{o: o, f: f, path: path, subs: subs, start: time.Now(),
		prog: Progress{Total: len(jobs) + skipped, Done: skipped, Skipped: skipped}}
	if o.Progress != nil {
		o.Progress(sink.prog)
	}
	queue := newJobQueue(jobs)
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var g *jobGroup
			for ctx.Err() == nil {
				var j job
				var ok bool
				if j, g, ok = queue.next(g); !ok {
					return
				}
				r, a := o.runCase(ctx, j)
				if ctx.Err() != nil && r.Status == StatusError {
					continue // interrupted: not a result, redone next time
				}
				sink.add(r, a)
			}
		}()
	}
	wg.Wait()
	if sink.err != nil {
		return sink.results, sink.err
	}
	return sink.results, ctx.Err()
}

// resultSink takes the workers' results: each case's files, its line in
// results.jsonl and in the submission, and the progress; the first error
// writing them is kept.
type resultSink struct {
	o     Options
	f     *os.File
	path  string
	subs  submissions
	start time.Time

	mu      sync.Mutex
	prog    Progress
	results []Result
	err     error
}

func (s *resultSink) add(r Result, a *Attempt) {
	var fileErr error
	if a != nil && a.Record != nil {
		fileErr = writeCaseFiles(s.o.Out, &r, a.Record, s.o.KaTeXDir)
	}
	line, _ := json.Marshal(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keep(fileErr)
	if _, err := s.f.Write(append(line, '\n')); err != nil {
		s.keep(fmt.Errorf("appending to %s: %w", s.path, err))
	}
	s.keep(s.subs.add(r))
	s.results = append(s.results, r)
	s.prog.Done++
	if r.Right() {
		s.prog.Passed++
	}
	if r.Status == StatusError {
		s.prog.Errors++
	}
	s.prog.Result, s.prog.Elapsed = &r, time.Since(s.start)
	if s.o.Progress != nil {
		s.o.Progress(s.prog)
	}
}

// keep keeps err if it is the first.
func (s *resultSink) keep(err error) {
	if err != nil && s.err == nil {
		s.err = err
	}
}

func (o Options) runCase(ctx context.Context, j job) (Result, *Attempt) {
	start := time.Now()
	cctx := ctx
	if _, phased := j.solver.(phasedSolver); phased {
		cctx = withCaseTimeout(ctx, o.Timeout)
	} else if o.Timeout > 0 {
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	c := j.c
	c.Repeat = j.repeat
	a, err := j.solver.Solve(cctx, c)
	if err == nil && cctx.Err() != nil && ctx.Err() == nil {
		err = &SolveError{ClassTimeout, fmt.Errorf("the case ran past its %s timeout", o.Timeout)}
	}
	if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		err = &SolveError{ClassTimeout, fmt.Errorf("the case ran past its %s timeout: %w", o.Timeout, err)}
	}
	r := scoreCase(c, a, err)
	r.Repeat = j.repeat
	m := j.solver.Model()
	r.Model, r.ModelDigest = m.Spec, m.Digest
	r.Suite, r.SuiteHash, r.ImageID, r.Seed = o.Suite.Name, o.Suite.Hash, o.ImageID, o.Seed
	r.WallMS = float64(time.Since(start).Microseconds()) / 1000
	return r, a
}
