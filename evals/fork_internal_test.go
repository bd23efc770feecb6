package evals

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// closeCounter makes parents that count their closes.
type closeCounter struct {
	mu     sync.Mutex
	closed map[string]int
}

func (cc *closeCounter) parent(dataset string) *parent {
	return &parent{dataset: dataset, cd: &caseData{done: func() {
		cc.mu.Lock()
		cc.closed[dataset]++
		cc.mu.Unlock()
	}}}
}

func (cc *closeCounter) count(dataset string) int {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.closed[dataset]
}

// Two workers on one dataset share its parent: the second waits while the
// first starts it, then forks from the same one; a full pool closes the
// least recently used parent no case uses; a discarded parent is closed
// with its last user, not before.
func TestParentPoolSharesParents(t *testing.T) {
	ctx := context.Background()
	cc := &closeCounter{closed: map[string]int{}}
	p := &parentPool{max: 2}

	a, start, err := p.take(ctx, "a")
	if err != nil || !start {
		t.Fatalf("first take: start %v, %v", start, err)
	}
	second := make(chan *parentSlot)
	go func() {
		sl, start, err := p.take(ctx, "a")
		if err != nil || start {
			t.Errorf("second take: start %v, %v (want the first's parent)", start, err)
		}
		second <- sl
	}()
	select {
	case <-second:
		t.Fatal("the second take returned before the parent was started")
	case <-time.After(50 * time.Millisecond):
	}
	p.started("a", a, cc.parent("a"))
	if sl := <-second; sl != a || sl.pa == nil {
		t.Fatalf("the second take got another slot or no parent")
	}

	// Both use a; b fills the pool; c then evicts b, the only one unused.
	b, _, _ := p.take(ctx, "b")
	p.started("b", b, cc.parent("b"))
	p.put("b", b)
	c, start, _ := p.take(ctx, "c")
	if !start || cc.count("b") != 1 || cc.count("a") != 0 {
		t.Fatalf("a full pool: start %v, closed b %d a %d; want b closed, a kept (in use)", start, cc.count("b"), cc.count("a"))
	}
	p.started("c", c, cc.parent("c"))
	p.put("c", c)

	// a cannot fork for one user: it leaves the pool, closed once the
	// other is done with it.
	p.discard("a", a)
	if cc.count("a") != 0 {
		t.Fatal("a discarded parent was closed while a case still used it")
	}
	p.put("a", a)
	if cc.count("a") != 1 {
		t.Fatalf("a discarded parent closed %d times after its last user, want 1", cc.count("a"))
	}
	if next, start, _ := p.take(ctx, "a"); !start || next == a {
		t.Fatal("the dataset of a discarded parent did not get a new one")
	}

	// A start that failed: the waiter starts one itself.
	f, _, _ := p.take(ctx, "f")
	go func() { time.Sleep(20 * time.Millisecond); p.started("f", f, nil); p.put("f", f) }()
	if sl, start, err := p.take(ctx, "f"); err != nil || !start || sl == f {
		t.Fatalf("after a failed start: start %v, same slot %v, %v", start, sl == f, err)
	}
	p.close()
	if cc.count("c") != 1 {
		t.Errorf("close: c closed %d times", cc.count("c"))
	}
}

// Workers keep to a dataset's jobs, start a dataset no worker has begun
// when theirs has none left, and only then help with the one that has the
// most left.
func TestJobQueueKeepsWorkersToTheirDataset(t *testing.T) {
	var jobs []job
	for _, ds := range []string{"a", "b", "a", "a", "b", "c", "a"} {
		jobs = append(jobs, job{c: Case{ID: ds + "-" + string(rune('0'+len(jobs))), Dataset: ds}, solver: specSolver("m")})
	}
	q := newJobQueue(jobs)
	var one, two *jobGroup
	take := func(g **jobGroup) string {
		j, ng, ok := q.next(*g)
		if !ok {
			return ""
		}
		*g = ng
		return j.c.Dataset
	}
	var got []string
	for _, g := range []**jobGroup{&one, &two, &one, &two, &two, &two, &one, &one, &one} {
		got = append(got, take(g))
	}
	// a has 4 jobs, b 2, c 1. one: a a; two: b b, then c (not begun),
	// then helps with a; one takes a's last.
	want := []string{"a", "b", "a", "b", "c", "a", "a", "", ""}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("datasets taken %v, want %v", got, want)
	}
}

// specSolver is a Solver that only has a model spec.
type specSolver string

func (s specSolver) Model() Model                                  { return Model{Spec: string(s)} }
func (s specSolver) Solve(context.Context, Case) (*Attempt, error) { return nil, nil }
