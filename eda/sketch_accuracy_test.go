package eda

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

// sketchAccuracyPy compares, for pairs of samples of 300,000 values, the
// KS statistic, W1/σ and PSI computed from the two sketches (as the What
// changed stage computes them) with the same computed from every value
// (scipy's ks_2samp and wasserstein_distance; PSI on the same decile
// edges): in one part (in memory) and in chunks of 50,000 (out of core).
const sketchAccuracyPy = `
rng = np.random.default_rng(7)
n = 300_000
pairs = {
    "normal, shifted 0.05σ": (rng.normal(0, 1, n), rng.normal(0.05, 1, n)),
    "lognormal σ=1.5, ×1.1": (rng.lognormal(3, 1.5, n), 1.1 * rng.lognormal(3, 1.5, n)),
    "prices in cents, ×1.3": (np.round(rng.gamma(2, 30, n), 2), np.round(1.3 * rng.gamma(2, 30, n), 2)),
    "integers 0-50k, same": (rng.integers(0, 50_000, n).astype(float), rng.integers(0, 50_000, n).astype(float)),
    "heavy tail (t, 2 df), same": (rng.standard_t(2, n), rng.standard_t(2, n)),
    "mixture, one mode moved": (np.concatenate([rng.normal(0, 1, n // 2), rng.normal(10, 1, n // 2)]),
                                np.concatenate([rng.normal(0, 1, n // 2), rng.normal(11, 1, n // 2)])),
}


def sketched(values, chunk):
    parts = NumberParts()
    for start in range(0, len(values), chunk):
        parts.add(pd.Series(values[start:start + chunk]))
    points, weights, exact = parts.finish()
    return Distribution({"points": points, "weights": weights, "exact": exact, "mean": values.mean(), "std": values.std(ddof=1)})


errors = {}
for name, (a, b) in pairs.items():
    edges = np.concatenate([[-np.inf], np.unique(np.quantile(a, np.arange(1, 10) / 10, method="inverted_cdf")), [np.inf]])
    shares = lambda x: np.histogram(x, edges)[0] / len(x)
    exact = (stats.ks_2samp(a, b).statistic, stats.wasserstein_distance(a, b) / a.std(ddof=1), psi(shares(a), shares(b)))
    for chunk, how in ((n, "in memory"), (50_000, "out of core")):
        da, db = sketched(a, chunk), sketched(b, chunk)
        got = (ks_statistic(da, db), wasserstein(da, db) / da.std, psi(da.shares(psi_edges(da)), db.shares(psi_edges(da))))
        errors[f"{name} ({how})"] = [exact[i] for i in range(3)] + [abs(got[i] - exact[i]) for i in range(3)]
print(json.dumps(errors))
`

// The sketch's accuracy against every value, measured: the bounds the
// method notes state hold, and the figures are logged (docs/benchmarks.md).
func TestSketchAccuracy(t *testing.T) {
	k := kerneltest.Start(t, nil)
	mustRun(t, k, Stage{Name: "setup", Cells: []Cell{Code(setupPy)}})
	var errs map[string][6]float64
	ex, err := k.Execute(context.Background(), sketchParts()+"\n"+compareHelpersPy+"\n"+sketchAccuracyPy, kernel.ExecOptions{Timeout: cellTimeout})
	if err != nil || ex.Status != kernel.StatusOK {
		t.Fatalf("%v %v\n%s", err, ex.Error, traceback(ex))
	}
	if err := json.Unmarshal([]byte(ex.Stdout()), &errs); err != nil {
		t.Fatalf("printed %q: %v", ex.Stdout(), err)
	}
	// Each sketch's F is within π/(2K) of the data's: D within twice that;
	// a PSI bin's share too, with PSI's terms near 0 where shares agree.
	boundF := math.Pi / (2 * quantilePoints)
	t.Logf("%-52s %9s %9s %9s   %9s %9s %9s", "pair", "KS", "W1/σ", "PSI", "|ΔKS|", "|ΔW1/σ|", "|ΔPSI|")
	for _, name := range sortedKeys(errs) {
		e := errs[name]
		t.Logf("%-52s %9.5f %9.5f %9.5f   %9.2g %9.2g %9.2g", name, e[0], e[1], e[2], e[3], e[4], e[5])
		if e[3] > 2*boundF {
			t.Errorf("%s: KS from the sketches is %g off, more than 2π/(2K) = %g", name, e[3], 2*boundF)
		}
		if e[4] > 0.005 {
			t.Errorf("%s: W1/σ from the sketches is %g off, more than 0.005 (a twentieth of the warn threshold)", name, e[4])
		}
		if e[5] > 0.005+0.05*e[2] {
			t.Errorf("%s: PSI from the sketches is %g off, more than 0.005 + 5%% of %g", name, e[5], e[2])
		}
	}
	if len(errs) != 12 {
		t.Errorf("%d measurements, want 12", len(errs))
	}
}
