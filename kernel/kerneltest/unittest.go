package kerneltest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/kernel"
)

// unittestRun runs a unittest suite (%[2]s, a Python expression) after
// setup (%[1]s), with deprecations as errors (one in the code under test
// would print into notebooks), and prints the runner's report and a result
// line.
const unittestRun = `
import io as _io, unittest as _unittest, warnings as _warnings
_warnings.simplefilter("error", FutureWarning)
_warnings.simplefilter("error", DeprecationWarning)
%[1]s
_buf = _io.StringIO()
_result = _unittest.TextTestRunner(stream=_buf, verbosity=2).run(%[2]s)
print(_buf.getvalue()[-30000:])
print("RESULT", _result.testsRun, len(_result.failures), len(_result.errors), len(_result.skipped))
`

// Unittest runs the Python unittest suite the expression suite makes, after
// the code setup, in k, and returns how many tests ran. It fails t unless
// every test passed and none was skipped.
func Unittest(t testing.TB, k *kernel.Kernel, setup, suite string, timeout time.Duration) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Minute)
	defer cancel()
	ex, err := k.Execute(ctx, fmt.Sprintf(unittestRun, setup, suite), kernel.ExecOptions{Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	out := ex.Stdout()
	if testing.Verbose() { // what the tests print, figures among them (docs/benchmarks.md)
		t.Log(out)
	}
	if ex.Status != kernel.StatusOK {
		t.Fatalf("the tests did not run: %s %v\n%s", ex.Status, ex.Error, out)
	}
	i := strings.LastIndex(out, "RESULT ")
	if i < 0 {
		t.Fatalf("no result line:\n%s", out)
	}
	var run, failures, errors, skipped int
	if _, err := fmt.Sscanf(out[i:], "RESULT %d %d %d %d", &run, &failures, &errors, &skipped); err != nil {
		t.Fatal(err)
	}
	if run == 0 || failures+errors+skipped > 0 {
		t.Errorf("unittest: %d run, %d failures, %d errors, %d skipped\n%s", run, failures, errors, skipped, out)
	}
	return run
}
