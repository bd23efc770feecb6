package eda

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

// pyTestsSetup finds eda/py/tests in the folder mounted as the kernel's
// /data (read-only: no bytecode written).
const pyTestsSetup = `import sys
sys.dont_write_bytecode = True
sys.path.insert(0, "/data/tests")`

// pyTestsSuite is every test_*.py of eda/py/tests.
const pyTestsSuite = `_unittest.defaultTestLoader.discover("/data/tests", pattern="test_*.py", top_level_dir="/data/tests")`

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
	run := kerneltest.Unittest(t, k, pyTestsSetup, pyTestsSuite, 4*time.Minute)
	t.Logf("Python unit tests: %d run", run)
}
