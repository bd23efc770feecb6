package eda

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

// pyTestsRun runs eda/py/tests in one kernel, with the image's own Python
// and libraries: the stage files and their tests are copied to a folder
// mounted as the kernel's /data, and unittest discovers the tests there.
const pyTestsRun = `
import io, sys, unittest, warnings
sys.dont_write_bytecode = True  # /data is read-only
sys.path.insert(0, "/data/tests")
# A deprecation in the stage files' use of the libraries would print into
# notebooks: fail on it.
warnings.simplefilter("error", FutureWarning)
warnings.simplefilter("error", DeprecationWarning)
suite = unittest.defaultTestLoader.discover("/data/tests", pattern="test_*.py", top_level_dir="/data/tests")
buf = io.StringIO()
result = unittest.TextTestRunner(stream=buf, verbosity=2).run(suite)
print(buf.getvalue()[-30000:])
print("RESULT", result.testsRun, len(result.failures), len(result.errors), len(result.skipped))
`

// The Python of the stages has its own unit tests (eda/py/tests/test_*.py):
// the loader's rules, the profile's statistics, the sketches, the
// comparisons, the relationships, the chart helpers. They run in one
// kernel, so the numbers are the image's pandas' and numpy's.
func TestPythonUnitTests(t *testing.T) {
	dir := t.TempDir()
	for _, pattern := range []string{"py/*.py", "py/tests/*.py"} {
		files, err := filepath.Glob(pattern)
		if err != nil || len(files) == 0 {
			t.Fatalf("no %s: %v", pattern, err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			to := filepath.Join(dir, strings.TrimPrefix(f, "py/"))
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(to, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil { // the sandbox's user reads it
		t.Fatal(err)
	}
	k := kerneltest.Start(t, func(o *kernel.Options) { o.Data = dir })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	ex, err := k.Execute(ctx, pyTestsRun, kernel.ExecOptions{Timeout: 4 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	out := ex.Stdout()
	if ex.Status != "ok" {
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
		t.Errorf("Python unit tests: %d run, %d failures, %d errors, %d skipped\n%s", run, failures, errors, skipped, out)
	}
	t.Logf("Python unit tests: %d passed", run)
}
