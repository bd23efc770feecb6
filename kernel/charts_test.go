package kernel_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// The chart description module has its own unittest suite (one test per
// chart kind and source: matplotlib, pandas, seaborn, plotly). Run it inside
// a real kernel, against the image's library versions.
func TestChartDescriptionSuiteInKernel(t *testing.T) {
	src, err := os.ReadFile("driver/test_analyst_charts.py")
	if err != nil {
		t.Fatal(err)
	}
	k := startKernel(t, nil)
	code := fmt.Sprintf(`
import io, sys, types, unittest, warnings
# A deprecation in the driver's or the tests' own use of the libraries
# would print into notebooks: fail on it.
warnings.simplefilter("error", FutureWarning)
warnings.simplefilter("error", DeprecationWarning)
mod = types.ModuleType("test_analyst_charts")
exec(compile(%q, "test_analyst_charts.py", "exec"), mod.__dict__)
buf = io.StringIO()
result = unittest.TextTestRunner(stream=buf, verbosity=2).run(unittest.defaultTestLoader.loadTestsFromModule(mod))
print(buf.getvalue()[-20000:])
print("RESULT", result.testsRun, len(result.failures), len(result.errors), len(result.skipped))
`, string(src))
	ex := runTimeout(t, k, code, 5*time.Minute)
	if ex.Status != "ok" {
		t.Fatalf("suite did not run: %s %v\n%s", ex.Status, ex.Error, ex.Stdout())
	}
	out := ex.Stdout()
	i := strings.LastIndex(out, "RESULT ")
	if i < 0 {
		t.Fatalf("no result line:\n%s", out)
	}
	var run, failures, errors, skipped int
	if _, err := fmt.Sscanf(out[i:], "RESULT %d %d %d %d", &run, &failures, &errors, &skipped); err != nil {
		t.Fatal(err)
	}
	if run < 30 || failures+errors > 0 || skipped > 0 {
		t.Errorf("chart suite: %d run, %d failures, %d errors, %d skipped\n%s", run, failures, errors, skipped, out)
	}
	t.Logf("chart suite: %d tests passed", run)
}
