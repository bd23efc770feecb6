package agent_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/pipeline"
)

// BenchmarkAgentTurn: the tool's own time per model turn — building the
// request, parsing the reply, recording, formatting the cell's feedback —
// that is, everything but waiting for the (scripted, local) model server
// and running the code. Reported as the median over all turns.
func BenchmarkAgentTurn(b *testing.B) {
	k := agentKernel(b)
	f := newFakeModel(b, "openai", turn{Calls: []call{code("s = df.groupby('region')['revenue'].sum()\nprint(s)")}})
	var overhead []float64
	for i := 0; i < b.N; i++ {
		a := newAgent(b, f, k, false)
		a.MaxTurns = 20
		ans, err := a.Ask(context.Background(), "question-1", "q")
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range ans.Calls {
			overhead = append(overhead, c.OverheadMS)
		}
	}
	slices.Sort(overhead)
	b.ReportMetric(overhead[len(overhead)/2], "overhead-ms/turn")
	b.ReportMetric(overhead[len(overhead)*9/10], "p90-overhead-ms/turn")
}

// BenchmarkPromptSize: the system prompt's size in tokens (chars/4) for the
// example sales dataset (its real profile) and for a 500-column dataset.
func BenchmarkPromptSize(b *testing.B) {
	dir := b.TempDir()
	res, err := pipeline.Run(context.Background(), pipeline.Options{Data: salesCSV(b, dir, 3000), OutDir: filepath.Join(dir, "out"), Kernel: kerneltest.Options(b)})
	if err != nil {
		b.Fatal(err)
	}
	wide := wideProfile(500)
	var small, large string
	for i := 0; i < b.N; i++ {
		small = agent.SystemPrompt(agent.PromptInput{DataName: "sales.csv", Profile: res.Profile, Tools: true,
			Versions: map[string]string{"python": "3.11.2", "pandas": "1.5.3", "matplotlib": "3.6.3"}})
		large = agent.SystemPrompt(agent.PromptInput{DataName: "wide.csv", Profile: wide, Tools: true})
	}
	b.ReportMetric(float64(agent.EstimateTokens(small)), "example-tokens")
	b.ReportMetric(float64(agent.EstimateTokens(large)), "500col-tokens")
}

// wideProfile is a profile of n columns, with alerts on many of them.
func wideProfile(n int) *eda.Profile {
	p := &eda.Profile{Rows: 10000, Columns: n, Load: eda.LoadInfo{Format: "csv", Delimiter: ",", Encoding: "utf-8"}}
	for i := 0; i < n; i++ {
		lo, hi, mean := 0.0, 100.0, 50.0
		c := eda.Column{Name: fmt.Sprintf("measurement_with_a_long_name_%03d", i), Dtype: "float64", Kind: eda.KindNumeric,
			Distinct: 9000, Sample: []string{"1.5", "2.25", "99.125"}, Min: &lo, Max: &hi, Mean: &mean}
		if i%3 == 0 {
			c.Kind, c.Dtype, c.Min, c.Max, c.Mean = eda.KindCategorical, "object", nil, nil, nil
			c.Top = []eda.TopValue{{Value: "some category value", Count: 100}, {Value: "another", Count: 50}}
		}
		p.ColumnInfo = append(p.ColumnInfo, c)
		if i%2 == 0 {
			p.Alerts = append(p.Alerts, eda.Alert{Type: eda.AlertSkewed, Column: c.Name, Message: c.Name + " is highly skewed (skew = 3.2)"})
		}
	}
	return p
}

// The prompt stays bounded however wide the data is, and carries no more
// than three sample values per column.
func TestSystemPromptBounded(t *testing.T) {
	s := agent.SystemPrompt(agent.PromptInput{DataName: "wide.csv", Profile: wideProfile(500), Tools: true})
	if n := agent.EstimateTokens(s); n > 6000 {
		t.Errorf("500-column prompt is %d tokens", n)
	}
	for _, want := range []string{"500 columns", "and 460 more columns", "- skewed, 250 alerts (e.g. measurement_with_a_long_name_000 is highly skewed", "and 242 more\n", "Handle missing values first", "print its formula"} {
		if !strings.Contains(s, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
}
