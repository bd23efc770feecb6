package kernel_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/nbformat"
)

func TestAddToNotebook(t *testing.T) {
	nb := nbformat.New()
	ex := &kernel.Execution{Code: "print(1)", ExecutionCount: 4, Outputs: []nbformat.Output{{OutputType: "stream", Name: "stdout", Text: "1\n"}}}
	c := ex.AddToNotebook(nb, "profile")
	if c.Source != "print(1)" || *c.ExecutionCount != 4 || c.Outputs[0].Text != "1\n" || !c.HasTag("profile") {
		t.Errorf("AddToNotebook gave %+v", c)
	}
	ex.Outputs[0].Text = "changed"
	if c.Outputs[0].Text != "1\n" {
		t.Errorf("the cell shares its outputs with the execution")
	}
}

func TestChartWriteFiles(t *testing.T) {
	dir := t.TempDir()
	c := kernel.Chart{PNG: []byte("\x89PNG"), Description: []byte(`{"kind":"bar"}`)}
	if err := c.WriteFiles(filepath.Join(dir, "chart-1")); err != nil {
		t.Fatal(err)
	}
	if err := (kernel.Chart{Description: []byte(`{"kind":"line"}`)}).WriteFiles(filepath.Join(dir, "chart-2")); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"chart-1.png": "\x89PNG", "chart-1.json": "{\"kind\":\"bar\"}\n", "chart-2.json": "{\"kind\":\"line\"}\n"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", name, b, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "chart-2.png")); !os.IsNotExist(err) {
		t.Errorf("a chart without PNG wrote chart-2.png (%v)", err)
	}
}
