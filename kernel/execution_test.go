package kernel_test

import (
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
