// Command gensales writes the synthetic sales CSV used by the demo and the
// benchmarks: go run ./examples/gensales -rows 1000000 -o sales.csv
// (-o sales.parquet writes the same orders as Parquet).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/analyst-cli/analyst/examples"
)

func main() {
	rows := flag.Int("rows", 1000, "number of orders")
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("o", "", "output file (default: standard output)")
	flag.Parse()
	if err := run(*rows, *seed, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gensales:", err)
		os.Exit(1)
	}
}

func run(rows int, seed uint64, out string) error {
	if out == "" {
		return examples.WriteSales(os.Stdout, rows, seed)
	}
	// go generate ./evals writes into evals/data, which a fresh clone may lack.
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".gensales-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	write := examples.WriteSales
	if strings.HasSuffix(out, ".parquet") {
		write = examples.WriteSalesParquet
	}
	if err := write(tmp, rows, seed); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}
