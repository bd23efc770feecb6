package nbformat_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/nbformat"
)

// richCells display rich objects the way model code does, through
// IPython's display functions.
var richCells = []string{
	kerneltest.DisplaySetup,
	`display(HTML("<b>bold</b> and <table><tr><td>1</td></tr></table>"))
display(Markdown("# Title\n\nSome *text*."))`,
	`display(SVG('<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="20" height="10" fill="teal"/></svg>'))`,
	`display(Image(PNG))
display(Image(JPEG, width=40))`,
	`display(JSON({"a": [1, 2], "b": {"c": "d"}}))
display(Latex(r"$\bar{x} = \frac{1}{n}\sum x_i$"))`,
	`display(Bundled())
display(RawPNG(), metadata={"image/png": {"height": 2}})
display_markdown("**raw**", raw=True)
publish_display_data({"text/plain": "p", "text/html": "<u>p</u>"}, metadata={"text/html": {"k": 1}})`,
	`h = display(HTML("<b>1</b>"), display_id=True)
h.update(HTML("<b>2</b>"))`,
	`from IPython.display import clear_output
print("gone")
clear_output()
display(HTML("<b>3</b>"))
print("kept")
clear_output(wait=True)
print("last")`,
	`HTML("<p>the last value</p>")`,
}

// The notebook of a run whose code displays rich objects is valid for
// Jupyter's nbformat, and Jupyter (nbconvert --execute, ipykernel)
// re-running it gives the same outputs: every MIME type of every bundle,
// and their metadata.
func TestJupyterReexecutesRichDisplays(t *testing.T) {
	opts := kerneltest.Options(t)
	outDir := filepath.Join(t.TempDir(), "out")
	opts.OutputDir = outDir
	k := startKernel(t, opts)
	nb := nbformat.New()
	nb.Metadata.LanguageInfo.Version = k.Python()
	for _, code := range richCells {
		mustRun(t, k, code, time.Minute).AddToNotebook(nb)
	}
	b := mustMarshal(t, nb)
	mustRun(t, k, fmt.Sprintf("import base64\nopen('/tmp/rich.ipynb', 'wb').write(base64.b64decode(%q))", base64.StdEncoding.EncodeToString(b)), time.Minute)
	validateInSandbox(t, k, "/tmp/rich.ipynb")
	ours, err := nbformat.Read(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	_, theirs := rerunInJupyter(t, k, "/tmp/rich.ipynb", outDir)
	if len(theirs.Cells) != len(ours.Cells) {
		t.Fatalf("Jupyter's notebook has %d cells, ours %d", len(theirs.Cells), len(ours.Cells))
	}
	displays := 0
	for i, c := range ours.Cells {
		got, want := outputShapes(t, c.Outputs), outputShapes(t, theirs.Cells[i].Outputs)
		if got != want {
			t.Errorf("cell %d: outputs differ from Jupyter's\n ours:    %s\n Jupyter: %s", i, got, want)
		}
		for _, o := range c.Outputs {
			if len(o.Data) > 1 {
				displays++
			}
		}
	}
	if displays != 12 {
		t.Errorf("%d rich outputs compared, want 12", displays)
	}
}

// outputShapes is outputs as normalised JSON: type, stream text, every
// MIME type's data, metadata (none is {}).
func outputShapes(t *testing.T, outs []nbformat.Output) string {
	t.Helper()
	type shape struct {
		Type     string                     `json:"type"`
		Text     string                     `json:"text,omitempty"`
		Data     map[string]any             `json:"data,omitempty"`
		Metadata map[string]json.RawMessage `json:"metadata"`
	}
	var all []shape
	for _, o := range outs {
		s := shape{Type: o.OutputType, Text: o.Text, Data: map[string]any{}, Metadata: o.Metadata}
		for mime, raw := range o.Data {
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			s.Data[mime] = v
		}
		if s.Metadata == nil {
			s.Metadata = map[string]json.RawMessage{}
		}
		all = append(all, s)
	}
	b, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	json.Unmarshal(b, &v)
	b, _ = json.Marshal(v)
	return string(b)
}
