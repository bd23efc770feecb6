// Command gensales writes the synthetic sales CSV used by the demo and the
// benchmarks: go run ./examples/gensales -rows 1000000 -o sales.csv
// (-o sales.parquet writes the same orders as Parquet). The change flags
// write a later export that differs (CSV only): -price-factor 1.3,
// -new-region Islands, -missing-factor 2, -drop channel, -units-as-text,
// -rename product=item, -gap-month 2024-03.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/analyst-cli/analyst/examples"
)

func main() {
	rows := flag.Int("rows", 1000, "number of orders")
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("o", "", "output file (default: standard output)")
	var ch examples.SalesChange
	flag.Float64Var(&ch.PriceFactor, "price-factor", 1, "unit prices times this")
	flag.StringVar(&ch.NewRegion, "new-region", "", "a sixth region, as likely as the others")
	flag.Float64Var(&ch.MissingFactor, "missing-factor", 1, "discounts missing this many times as often")
	flag.StringVar(&ch.DropColumn, "drop", "", "a column to leave out")
	flag.BoolVar(&ch.UnitsAsText, "units-as-text", false, "units written as text (\"3 pcs\")")
	rename := flag.String("rename", "", "a column to write under another name: old=new")
	flag.StringVar(&ch.GapMonth, "gap-month", "", "a month without orders (2024-03): they are dated a month later")
	flag.Parse()
	ch.RenameFrom, ch.RenameTo, _ = strings.Cut(*rename, "=")
	if err := run(*rows, *seed, *out, ch); err != nil {
		fmt.Fprintln(os.Stderr, "gensales:", err)
		os.Exit(1)
	}
}

func run(rows int, seed uint64, out string, ch examples.SalesChange) error {
	write := func(w io.Writer, rows int, seed uint64) error { return examples.WriteSalesChanged(w, rows, seed, ch) }
	if out == "" {
		return write(os.Stdout, rows, seed)
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
	if strings.HasSuffix(out, ".parquet") {
		if ch != (examples.SalesChange{PriceFactor: 1, MissingFactor: 1}) {
			return fmt.Errorf("the change flags write CSV only")
		}
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
