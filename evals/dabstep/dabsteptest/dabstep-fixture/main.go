// Command dabstep-fixture writes a generated DABstep-shaped snapshot, to try
// `analyst eval` and `analyst eval score --dabstep` without the real data:
//
//	go run ./evals/dabstep/dabsteptest/dabstep-fixture -o /tmp/dabstep-fixture
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/analyst-cli/analyst/evals/dabstep/dabsteptest"
)

func main() {
	out := flag.String("o", "dabstep-fixture", "folder to write the snapshot into")
	seed := flag.Int64("seed", 1, "seed: the same seed writes the same bytes")
	payments := flag.Int("payments", 3000, "rows of payments.csv")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "dabstep-fixture takes no arguments; see -h")
		os.Exit(2)
	}
	f, err := dabsteptest.Write(*out, dabsteptest.Options{Seed: *seed, Payments: *payments})
	if err != nil {
		fmt.Fprintln(os.Stderr, "dabstep-fixture:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote a DABstep-shaped snapshot to %s: %d tasks, %d payments\n", f.Dir, len(f.Tasks), *payments)
}
