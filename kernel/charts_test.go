package kernel_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/kernel/kerneltest"
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
	setup := fmt.Sprintf(`import types
mod = types.ModuleType("test_analyst_charts")
exec(compile(%q, "test_analyst_charts.py", "exec"), mod.__dict__)`, string(src))
	run := kerneltest.Unittest(t, k, setup, "_unittest.defaultTestLoader.loadTestsFromModule(mod)", 5*time.Minute)
	if run < 30 {
		t.Errorf("chart suite: %d tests run, want at least 30", run)
	}
	t.Logf("chart suite: %d tests passed", run)
}
