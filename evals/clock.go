package evals

import (
	"context"
	"time"
)

// A case's --timeout bounds the work that is the case's own, each phase
// with the whole budget: loading its data (a kernel of its own, or the
// parent it starts for the cases on its data), then its session (the fork,
// the model's conversation and the cells, their files copied out). Waiting
// while another case starts the parent it forks from is not the case's
// work: counting it made a case time out or not by the schedule (-j,
// shards), and the parent's load is bounded by the clock of the case that
// starts it.

type caseTimeoutKey struct{}

// phasedSolver is a solver that bounds each phase of a case itself (with
// phase), so the runner does not put one clock over the whole.
type phasedSolver interface {
	Solver
	boundsPhases()
}

// withCaseTimeout gives the phases of the case run under ctx a budget of d
// each.
func withCaseTimeout(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, caseTimeoutKey{}, d)
}

// phase is the context of one phase of a case: bounded by the case's
// timeout, when it has one.
func phase(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Value(caseTimeoutKey{}).(time.Duration); ok && d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return context.WithCancel(ctx)
}
