// Package dabsteptest generates a DABstep-shaped snapshot for tests: the
// dataset repository's layout (data/tasks/dev.jsonl with answers,
// all.jsonl without, data/context/ with payments.csv, fees.json,
// merchant_data.json, merchant_category_codes.csv, acquirer_countries.csv,
// manual.md and payments-readme.md), filled with our own payments, fee
// rules, merchants and manual, and tasks whose answers reference code
// computes from them. The same seed gives the same bytes.
package dabsteptest

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"

	"github.com/analyst-cli/analyst/evals/dabstep"
)

// Options size the fixture; zero values take the defaults.
type Options struct {
	Seed     int64
	Payments int // rows of payments.csv (default 3000)
	Rules    int // entries of fees.json (default 120)
}

// Fixture is a written snapshot.
type Fixture struct {
	Dir   string
	Tasks []Task
}

// newWorld generates the data of a fixture.
func newWorld(o Options) *world {
	if o.Payments <= 0 {
		o.Payments = 3000
	}
	if o.Rules <= 0 {
		o.Rules = 120
	}
	rng := rand.New(rand.NewSource(o.Seed))
	w := &world{rng: rng}
	w.merchants = genMerchants(rng)
	w.payments = genPayments(rng, w.merchants, o.Payments)
	w.rules = genRules(rng, o.Rules)
	w.stats = monthlyStats(w.payments)
	return w
}

// Write writes a snapshot into dir (created if need be; files of the
// same names are replaced).
func Write(dir string, o Options) (*Fixture, error) {
	w := newWorld(o)
	tasks := w.tasks()
	ctx, tdir := filepath.Join(dir, dabstep.ContextDir), filepath.Join(dir, dabstep.TasksDir)
	for _, d := range []string{ctx, tdir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("writing the DABstep fixture: %w", err)
		}
	}
	files := []struct {
		path  string
		write func(string) error
	}{
		{filepath.Join(ctx, "payments.csv"), func(p string) error { return writePayments(p, w.payments) }},
		{filepath.Join(ctx, "fees.json"), func(p string) error { return writeJSON(p, w.rules) }},
		{filepath.Join(ctx, "merchant_data.json"), func(p string) error { return writeJSON(p, w.merchants) }},
		{filepath.Join(ctx, "merchant_category_codes.csv"), writeMCCs},
		{filepath.Join(ctx, "acquirer_countries.csv"), writeAcquirers},
		{filepath.Join(ctx, "manual.md"), func(p string) error { return os.WriteFile(p, []byte(manual), 0o644) }},
		{filepath.Join(ctx, "payments-readme.md"), func(p string) error { return os.WriteFile(p, []byte(paymentsReadme), 0o644) }},
		{dabstep.TasksFile(dir, dabstep.SplitDev), func(p string) error { return writeTasks(p, tasks, true) }},
		{dabstep.TasksFile(dir, dabstep.SplitAll), func(p string) error { return writeTasks(p, tasks, false) }},
	}
	for _, f := range files {
		if err := f.write(f.path); err != nil {
			return nil, fmt.Errorf("writing the DABstep fixture: %w", err)
		}
	}
	return &Fixture{Dir: dir, Tasks: tasks}, nil
}
