package report

import (
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/nbformat"
)

// With the kernel image's KaTeX, formulas are MathML in the page as it is
// written: no KaTeX script; a formula KaTeX cannot parse is its source in
// red; \href stays text (untrusted); the same bytes each time.
func TestFormulasTypesetAsThePageIsWritten(t *testing.T) {
	dir := imageKaTeXDir(t)
	nb := nbformat.New()
	nb.AddMarkdown("The mean is $\\bar{x} = \\frac{1}{n}\\sum_i x_i$.\n\n$$s^2 = \\frac{1}{n-1}\\sum_i (x_i-\\bar{x})^2$$\n\n"+
		"Broken: $\\frac{1$. Link: $\\href{https://example.com}{x}$.", nbformat.StageTag("question-1"))
	in := Input{Notebook: nb, KaTeXDir: dir}
	out := render(t, in)
	if strings.Contains(out, "renderMathInElement") || strings.Contains(out, "katex.min") {
		t.Error("KaTeX's script is on the page")
	}
	for _, want := range []string{
		`<span class="math math-inline"><span class="katex"><math xmlns="http://www.w3.org/1998/Math/MathML">`,
		`<span class="math math-display"><span class="katex"><math xmlns="http://www.w3.org/1998/Math/MathML" display="block">`,
		`<mfrac>`, `<annotation encoding="application/x-tex">\bar{x} = \frac{1}{n}\sum_i x_i</annotation>`,
		`class="katex-error"`, `<mtext>\href</mtext>`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(out, `href="https://example.com"`) {
		t.Error("an untrusted formula made a link")
	}
	if again := render(t, in); again != out {
		t.Error("two renderings differ")
	}
}
