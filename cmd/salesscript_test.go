package cmd_test

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/examples"
)

// salesChange reads gensales' optional arguments: seed=N (default 1) and
// the changes of a later export: price=FACTOR, region=NEW, missing=FACTOR,
// drop=COLUMN, units-as-text, rename=OLD=NEW, gap=YYYY-MM.
func salesChange(args []string) (uint64, examples.SalesChange, error) {
	seed := uint64(1)
	var ch examples.SalesChange
	for _, a := range args {
		key, value, _ := strings.Cut(a, "=")
		var err error
		switch key {
		case "seed":
			seed, err = strconv.ParseUint(value, 10, 64)
		case "price":
			ch.PriceFactor, err = strconv.ParseFloat(value, 64)
		case "missing":
			ch.MissingFactor, err = strconv.ParseFloat(value, 64)
		case "region":
			ch.NewRegion = value
		case "drop":
			ch.DropColumn = value
		case "units-as-text":
			ch.UnitsAsText = true
		case "rename":
			ch.RenameFrom, ch.RenameTo, _ = strings.Cut(value, "=")
		case "gap":
			ch.GapMonth = value
		default:
			err = fmt.Errorf("gensales: unknown argument %q", a)
		}
		if err != nil {
			return 0, ch, err
		}
	}
	return seed, ch, nil
}
