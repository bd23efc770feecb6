package pipeline_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/nbformat"
)

// richCell is model code that displays rich objects through IPython, as
// models write it.
const richCell = `from IPython.display import display, HTML, Markdown, SVG
import io
top = df.groupby("region")["revenue"].sum().sort_values(ascending=False)
display(Markdown(f"**{top.index[0]}** leads with {top.iloc[0]:.2f}"))
display(HTML(top.to_frame().to_html()))
buf = io.BytesIO()
fig, ax = plt.subplots(figsize=(3, 2))
top.plot.barh(ax=ax, title="Revenue by region")
fig.savefig(buf, format="svg")
plt.close(fig)
display(SVG(buf.getvalue()))`

// A question whose code displays Markdown, HTML and an SVG through
// IPython (Ollama, tools): the model hears what was displayed, the
// notebook carries each MIME bundle, the report shows them (not their
// repr).
func TestRunRichDisplays(t *testing.T) {
	dir := t.TempDir()
	f := newFakeModel(t, "ollama",
		turn{Calls: []call{code(richCell)}},
		turn{Calls: []call{final(map[string]any{"top_region": "West"}, "West leads.")}},
	)
	opts := options(t, salesCSV(t, dir, 400), filepath.Join(dir, "out"))
	opts.Questions = []string{"Which region leads on revenue?"}
	opts.Model, opts.ModelSpec, opts.NoExplore = f.Client(t, false), "ollama:qwen2.5-coder:7b", true
	res := run(t, opts)

	// What the model was told of the cell.
	fb := f.LastText(t, 1, "tool")
	for _, want := range []string{"displayed [text/markdown; shown in the report]:\n<IPython.core.display.Markdown object>",
		"displayed [text/html; shown in the report]:", "displayed [image/svg+xml; shown in the report]:"} {
		if !strings.Contains(fb, want) {
			t.Errorf("feedback lacks %q:\n%s", want, fb)
		}
	}
	// The notebook: the model's cell carries the bundles.
	nb, err := nbformat.ReadFile(res.Files.Notebook)
	if err != nil {
		t.Fatal(err)
	}
	var mimes []string
	for _, c := range nb.Cells {
		if c.HasTag(nbformat.TagModel) {
			for _, o := range c.Outputs {
				for m := range o.Data {
					if m != nbformat.MimePlain {
						mimes = append(mimes, o.OutputType+" "+m)
					}
				}
			}
		}
	}
	if got := strings.Join(mimes, ","); got != "display_data text/markdown,display_data text/html,display_data image/svg+xml" {
		t.Errorf("the model's cell outputs: %s", got)
	}
	// The report: Markdown rendered, the table, the SVG as an image.
	html, _ := os.ReadFile(res.Files.Report)
	page := string(html)
	for _, want := range []string{`<div class="output-markdown"><p><strong>`, `<div class="output-html"><table`} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if !regexp.MustCompile(`<figure class="output-image"><img src="data:image/svg\+xml;base64,[A-Za-z0-9+/=]+" alt="Image"></figure>`).MatchString(page) {
		t.Errorf("report does not show the SVG as an image")
	}
	if strings.Contains(page, "IPython.core.display") {
		t.Errorf("report shows a display object's repr")
	}
	f.CheckProtocol(t)
}
