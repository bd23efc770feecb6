package evals

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
)

// Comparison pairs two runs case by case.
type Comparison struct {
	A, B         string   // the models compared
	BothRight    int      `json:"both_right"`
	BothWrong    int      `json:"both_wrong"`
	Regressions  []string `json:"regressions"`  // right in A, wrong in B
	Improvements []string `json:"improvements"` // wrong in A, right in B
	Unpaired     int      `json:"unpaired"`     // in one run only
	// P is McNemar's exact two-sided p-value over the discordant pairs.
	P float64 `json:"p"`
}

// Compare pairs the results of folder a (the baseline) and folder b by
// case. Each folder must hold the results of one model.
func Compare(a, b string) (*Comparison, error) {
	ra, ma, err := oneModel(a)
	if err != nil {
		return nil, err
	}
	rb, mb, err := oneModel(b)
	if err != nil {
		return nil, err
	}
	c := &Comparison{A: ma, B: mb}
	for id, x := range ra {
		y, ok := rb[id]
		if !ok {
			c.Unpaired++
			continue
		}
		switch xr, yr := x.Right(), y.Right(); {
		case xr && yr:
			c.BothRight++
		case !xr && !yr:
			c.BothWrong++
		case xr:
			c.Regressions = append(c.Regressions, id)
		default:
			c.Improvements = append(c.Improvements, id)
		}
	}
	for id := range rb {
		if _, ok := ra[id]; !ok {
			c.Unpaired++
		}
	}
	sort.Strings(c.Regressions)
	sort.Strings(c.Improvements)
	c.P = McNemarExact(len(c.Regressions), len(c.Improvements))
	return c, nil
}

func oneModel(dir string) (map[string]Result, string, error) {
	rs, err := ReadResults(filepath.Join(dir, ResultsFile))
	if err != nil {
		return nil, "", err
	}
	out := map[string]Result{}
	model := ""
	for _, r := range rs {
		if r.Repeat != 0 {
			continue
		}
		if model != "" && r.Model != model {
			return nil, "", fmt.Errorf("%s holds results of %s and %s: compare folders of one model each", dir, model, r.Model)
		}
		model = r.Model
		out[r.Case] = r
	}
	if len(out) == 0 {
		return nil, "", fmt.Errorf("%s has no results", dir)
	}
	return out, model, nil
}

// McNemarExact is the exact two-sided McNemar test: with b and c the two
// kinds of discordant pairs, p = min(1, 2·P(X ≤ min(b, c))), X ~ Bin(b+c, ½).
func McNemarExact(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	k := min(b, c)
	// Sum the binomial terms in log space: n can be in the thousands.
	sum := 0.0
	for i := 0; i <= k; i++ {
		lg := lchoose(n, i) - float64(n)*math.Ln2
		sum += math.Exp(lg)
	}
	return math.Min(1, 2*sum)
}

func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// Write prints the paired table.
func (c *Comparison) Write(w io.Writer) {
	fmt.Fprintf(w, "A: %s\nB: %s\n\n", c.A, c.B)
	fmt.Fprintf(w, "both right     %d\nboth wrong     %d\nregressions    %d (right in A, wrong in B)\nimprovements   %d (wrong in A, right in B)\n",
		c.BothRight, c.BothWrong, len(c.Regressions), len(c.Improvements))
	if c.Unpaired > 0 {
		fmt.Fprintf(w, "unpaired       %d (in one run only, left out)\n", c.Unpaired)
	}
	fmt.Fprintf(w, "McNemar exact p = %.4g\n", c.P)
	for _, id := range c.Regressions {
		fmt.Fprintf(w, "regression:  %s\n", id)
	}
	for _, id := range c.Improvements {
		fmt.Fprintf(w, "improvement: %s\n", id)
	}
}
