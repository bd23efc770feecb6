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

// A case report loads KaTeX only when it may show a formula, and then
// typesets it as MathML as it is written: KaTeX's script is never on the page.
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
		{"parens", "The mean is $\\left(\\bar{x}\\right)$.", true},
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
		if got := strings.Contains(string(page), "<math "); got != tt.katex {
			t.Errorf("%s (%q): formula typeset as MathML = %v, want %v (%d bytes)", tt.id, tt.markdown, got, tt.katex, len(page))
		}
		if strings.Contains(string(page), "renderMathInElement") {
			t.Errorf("%s: KaTeX's script is on the page (%d bytes); formulas are typeset as it is written", tt.id, len(page))
		}
	}
}
