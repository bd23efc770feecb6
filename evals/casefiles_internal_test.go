package evals

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/report"
)

// A case report inlines KaTeX (640 kB) only when it may show a formula.
func TestCaseReportInlinesKaTeXOnlyForFormulas(t *testing.T) {
	katex := report.KaTeXDirIn(kerneltest.Options(t).RootFS)
	dir := t.TempDir()
	for _, tt := range []struct {
		id, markdown string
		katex        bool
	}{
		{"plain", "The mean is 3.5.", false},
		{"code", "Currency symbols (`$ € £`) are stripped; `df['$x']`.\n\n```\nprint('$', '$')\n```", false},
		{"dollars", "The mean is $\\bar{x} = 3.5$.", true},
		{"parens", "The mean is \\(\\bar{x}\\).", true},
	} {
		nb := nbformat.New()
		nb.AddMarkdown(tt.markdown, nbformat.StageTag("question-1"))
		r := &Result{Case: tt.id, Model: "ollama:m", Status: StatusPass}
		if err := writeCaseFiles(dir, r, &CaseRecord{Notebook: nb, DataName: "t.csv"}, katex); err != nil {
			t.Fatal(err)
		}
		page, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.Report)))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(page), "renderMathInElement"); got != tt.katex {
			t.Errorf("%s (%q): KaTeX inlined = %v, want %v (%d bytes)", tt.id, tt.markdown, got, tt.katex, len(page))
		}
	}
}
