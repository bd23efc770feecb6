package evals_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/analyst-cli/analyst/evals"
	"github.com/analyst-cli/analyst/examples"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

// shippedSuite loads evals/sales.yaml over the data shipped beside it.
func shippedSuite(t *testing.T) *evals.Suite {
	t.Helper()
	s, err := evals.LoadYAML("sales.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The shipped data is what `go generate ./evals` writes, byte for byte, so
// the suite's sha256 holds for either.
func TestShippedDataIsGenerated(t *testing.T) {
	shipped, err := os.ReadFile(filepath.Join("data", "sales.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := examples.WriteSales(&b, 2000, 7); err != nil {
		t.Fatal(err)
	}
	if b.String() != string(shipped) {
		t.Errorf("evals/data/sales.csv is not what go generate ./evals writes (%d bytes, generated %d): run go generate ./evals", len(shipped), b.Len())
	}
}

// The oracle (each case's reference code) scores 100% on the shipped
// suite: every gold value is what its reference computes, in the kernel.
func TestShippedSuiteReproducesItsGold(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a kernel per case (about 30)")
	}
	s := shippedSuite(t)
	if len(s.Cases) < 30 {
		t.Errorf("the shipped suite has %d cases, want about 30", len(s.Cases))
	}
	solver := &evals.ReferenceSolver{Kernel: kerneltest.Options(t)}
	sum, err := evals.Run(context.Background(), evals.Options{Suite: s, Solvers: []evals.Solver{solver}, Out: t.TempDir(),
		Jobs: 2, Timeout: 3 * time.Minute, ImageID: "test"})
	if err != nil {
		t.Fatal(err)
	}
	m := sum.Models[0]
	if m.Passed != len(s.Cases) || m.Official.ABQ != 1 {
		t.Errorf("oracle: %d of %d cases pass (%+v)", m.Passed, len(s.Cases), m)
	}
}

// The CI example parses and shards the way the CLI reads shards (the
// Kubernetes and Slurm examples have tests of their own, beside them).
func TestShardingExamplesParse(t *testing.T) {
	for _, name := range []string{"github-actions-matrix.yml"} {
		data, err := os.ReadFile(filepath.Join("..", "examples", "eval", name))
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(strings.NewReader(string(data)))
		for {
			var doc map[string]any
			if err := dec.Decode(&doc); err != nil {
				if err.Error() == "EOF" {
					break
				}
				t.Fatalf("%s: %v", name, err)
			}
		}
		if !strings.Contains(string(data), "analyst eval merge") || !strings.Contains(string(data), "--shard") {
			t.Errorf("%s does not shard and merge", name)
		}
	}
}
