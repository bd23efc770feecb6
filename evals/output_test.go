package evals_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/evals"
)

func TestWilsonInterval(t *testing.T) {
	for _, tt := range []struct {
		k, n   int
		lo, hi float64
	}{
		{4, 4, 0.5101, 1}, // n/(n+z²) for p = 1
		{0, 4, 0, 0.4899},
		{5, 10, 0.2366, 0.7634},
		{0, 0, 0, 1},
	} {
		lo, hi := evals.Wilson(tt.k, tt.n)
		if math.Abs(lo-tt.lo) > 5e-5 || math.Abs(hi-tt.hi) > 5e-5 {
			t.Errorf("Wilson(%d, %d) = %.4f–%.4f, want %.4f–%.4f", tt.k, tt.n, lo, hi, tt.lo, tt.hi)
		}
	}
}

func TestReportTablesByLevelConceptAndFailureClass(t *testing.T) {
	s, err := evals.LoadDABench(miniDABench(t, 12))
	if err != nil {
		t.Fatal(err)
	}
	// Levels cycle easy, medium, hard: right are every easy case and
	// medium case 1; the others are near misses.
	f := &fakeSolver{model: evals.Model{Spec: "ollama:m"}, answers: answersFor(12, func(i int) bool { return i%3 == 0 || i == 1 })}
	out := t.TempDir()
	if _, err := evals.Run(context.Background(), options(t, s, out, f)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(out, evals.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	md := string(data)
	row := func(key string, k, n int) string {
		lo, hi := evals.Wilson(k, n)
		return fmt.Sprintf("| %s | %.2f%% | %.2f%%–%.2f%% | %d/%d |", key, 100*float64(k)/float64(n), 100*lo, 100*hi, k, n)
	}
	levels := strings.Join([]string{"| level | score | 95% CI | right |", "|---|---:|---:|---:|", row("easy", 4, 4), row("medium", 1, 4), row("hard", 0, 4)}, "\n")
	// Concepts: 0 Summary Statistics; 1 Correlation Analysis and Summary
	// Statistics; 2 Outlier Detection.
	concepts := strings.Join([]string{"| concept | score | 95% CI | right |", "|---|---:|---:|---:|", row("Summary Statistics", 5, 8),
		row("Correlation Analysis", 1, 4), row("Outlier Detection", 0, 4)}, "\n")
	classes := "| class | cases | share of cases |\n|---|---:|---:|\n| near-miss | 7 | 58.33% |"
	for what, want := range map[string]string{"level": levels, "concept": concepts, "failure class": classes} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md has no %s table\n%s\n---\n%s", what, want, md)
		}
	}
	page, err := os.ReadFile(filepath.Join(out, evals.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<td>easy</td>\n<td style=\"text-align:right\">100.00%</td>", "<h2>Cases</h2>", `<a href="cases/ollama_m/33.html">html</a>`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(md, "cases/ollama_m/") {
		t.Errorf("report.md (for a pull request comment) links to case files")
	}
}
