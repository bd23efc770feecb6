package eda

import (
	"path/filepath"
	"testing"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

// TestLoaderUnitTests runs the loader's Python unit tests
// (eda/py/tests/test_load_corpus.py: each inference rule on its case and
// its counter-case) with the kernel image's python3, in a kernel with
// eda/py mounted at /data, and fails with their report when one fails.
func TestLoaderUnitTests(t *testing.T) {
	py, err := filepath.Abs("py")
	if err != nil {
		t.Fatal(err)
	}
	k := kerneltest.Start(t, func(o *kernel.Options) { o.Data = py })
	var r struct {
		Run    int
		Failed []string
	}
	pyValue(t, k, `import io, json, unittest
suite = unittest.defaultTestLoader.discover("/data/tests", pattern="test_load_corpus.py", top_level_dir="/data/tests")
report = io.StringIO()
result = unittest.TextTestRunner(stream=report, verbosity=2).run(suite)
print(json.dumps({"Run": result.testsRun, "Failed": [f"{test}: {text}" for test, text in result.failures + result.errors]}))`, &r)
	if r.Run < 10 {
		t.Errorf("%d tests ran; the file holds more", r.Run)
	}
	for _, f := range r.Failed {
		t.Error(f)
	}
}
