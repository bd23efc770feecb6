package evals

import "sync"

// jobQueue hands the workers their jobs grouped by model and dataset, the
// groups in the order they first appear: a worker keeps to its group while
// it has jobs, then starts a group no worker has begun, and only then helps
// with the group that has the most left. So with forks, two workers load
// two datasets at once rather than one waiting for the other's load of
// the same one, and a dataset is loaded once, not again after an eviction.
type jobQueue struct {
	mu     sync.Mutex
	groups []*jobGroup
}

type jobGroup struct {
	jobs  []job
	begun bool
}

func newJobQueue(jobs []job) *jobQueue {
	q := &jobQueue{}
	index := map[groupKey]*jobGroup{}
	for _, j := range jobs {
		k := groupKey{j.solver.Model().Spec, j.c.Dataset}
		g := index[k]
		if g == nil {
			g = &jobGroup{}
			index[k] = g
			q.groups = append(q.groups, g)
		}
		g.jobs = append(g.jobs, j)
	}
	return q
}

// groupKey is a model, by its spec (a run's solvers are told apart by it,
// as its results are; a Solver need not be comparable), and a dataset.
type groupKey struct {
	model   string
	dataset string
}

// next is the next job of a worker whose last job's group was g (nil at
// first), and its group; ok is false when no job is left.
func (q *jobQueue) next(g *jobGroup) (j job, group *jobGroup, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if g == nil || len(g.jobs) == 0 {
		g = nil
		for _, c := range q.groups {
			if !c.begun && len(c.jobs) > 0 {
				g = c
				break
			}
		}
	}
	if g == nil {
		for _, c := range q.groups {
			if len(c.jobs) > 0 && (g == nil || len(c.jobs) > len(g.jobs)) {
				g = c
			}
		}
	}
	if g == nil {
		return job{}, nil, false
	}
	g.begun = true
	j, g.jobs = g.jobs[0], g.jobs[1:]
	return j, g, true
}
