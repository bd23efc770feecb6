package agent_test

import (
	"context"
	"encoding/json"
	"github.com/analyst-cli/analyst/nbformat"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/kernel"
)

// chartOutput is a cell output holding a chart description (no PNG).
func chartOutput(desc string) nbformat.Output {
	return nbformat.Output{OutputType: "display_data", Data: map[string]json.RawMessage{nbformat.MimeChart: json.RawMessage(desc)}}
}

// scriptedAgent is an agent of the fake model f running its code in k,
// with a context that ends with the test (or after a minute).
func scriptedAgent(t *testing.T, f *fakeModel, k agent.Executor, system string) (*agent.Agent, context.Context) {
	t.Helper()
	c := f.Client(t, false)
	info, err := c.Model(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return &agent.Agent{Client: c, Info: info, Kernel: k, System: system, Seed: 42}, ctx
}

// A chart without a title goes back to the model with what is wrong, at
// most MaxChartRejections times per question; the next ones are recorded
// but not sent. Both wire formats, no kernel.
func TestChartChecksGoBackBounded(t *testing.T) {
	both(t, func(t *testing.T, provider string) {
		untitled := `{"kind":"bar","title":"","x_label":"region","y_label":"revenue","axes":[{"kind":"bar","title":"","x_label":"region","y_label":"revenue",` +
			`"x_tick_labels":["East","West"],"series":[{"label":"","categories":["East","West"],"values":[1,2],"orientation":"vertical"}]}],"truncated":false}`
		k := &scriptedKernel{execs: []*kernel.Execution{{Status: kernel.StatusOK, Outputs: []nbformat.Output{chartOutput(untitled)}}}}
		f := newFakeModel(t, provider,
			turn{Calls: []call{code("draw()")}}, turn{Calls: []call{code("draw()")}}, turn{Calls: []call{code("draw()")}},
			turn{Calls: []call{final(map[string]any{"top": "West"}, "West sells most.")}},
		)
		a, ctx := scriptedAgent(t, f, k, "You are a test analyst.")
		ans, err := a.Ask(ctx, "question-1", "Which region sells most?")
		if err != nil || !ans.Answered {
			t.Fatalf("answered %v, err %v", ans.Answered, err)
		}
		for i, want := range []bool{true, true, false} {
			fb := f.LastText(t, i+1, "tool")
			if got := strings.Contains(fb, "chart check: chart 1 (bar \"(no title)\""); got != want {
				t.Errorf("cell %d: chart check sent %v, want %v:\n%s", i+1, got, want, fb)
			}
			if want && !strings.Contains(fb, "no title (set one with ax.set_title") {
				t.Errorf("cell %d: the problem is not named:\n%s", i+1, fb)
			}
		}
		if ans.ChartRejections != agent.MaxChartRejections || len(ans.ChartChecks) != 3 || ans.ChartChecks[2].Told || !ans.ChartChecks[0].Told {
			t.Errorf("rejections %d, checks %+v", ans.ChartRejections, ans.ChartChecks)
		}
		f.CheckProtocol(t)
	})
}
