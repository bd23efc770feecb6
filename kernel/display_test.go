package kernel_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

// Model code displays rich objects with IPython's display(): the notebook
// output carries each MIME bundle and its metadata as Jupyter's would (the
// IPython formatter's precedence: _repr_mimebundle_ first, the _repr_*_
// methods for the types it leaves; metadata merged), not their repr.
func TestIPythonDisplayProtocol(t *testing.T) {
	k := startKernel(t, nil)
	images := strings.Fields(mustOK(t, k, kerneltest.DisplaySetup).Stdout())
	if len(images) != 2 {
		t.Fatalf("setup printed %q", images)
	}
	png, jpeg := images[0], images[1]
	plain := func(class string) string { return fmt.Sprintf("%q", "<IPython.core.display."+class+" object>") }
	tests := []struct {
		code string
		want string // the outputs: [{output_type, data, metadata}]
	}{
		{`display(HTML("<b>bold</b>"))`,
			`[{"output_type":"display_data","data":{"text/html":"<b>bold</b>","text/plain":` + plain("HTML") + `},"metadata":{}}]`},
		{`display(Markdown("# Title"))`,
			`[{"output_type":"display_data","data":{"text/markdown":"# Title","text/plain":` + plain("Markdown") + `},"metadata":{}}]`},
		{`display(SVG('<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="20" height="10" fill="teal"/></svg>'))`,
			`[{"output_type":"display_data","data":{"image/svg+xml":"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"20\" height=\"10\"><rect width=\"20\" height=\"10\" fill=\"teal\"/></svg>","text/plain":` + plain("SVG") + `},"metadata":{}}]`},
		{`display(Image(PNG))`,
			`[{"output_type":"display_data","data":{"image/png":"` + png + `","text/plain":` + plain("Image") + `},"metadata":{}}]`},
		{`display(Image(JPEG, width=40))`,
			`[{"output_type":"display_data","data":{"image/jpeg":"` + jpeg + `","text/plain":` + plain("Image") + `},"metadata":{"image/jpeg":{"width":40}}}]`},
		{`display(JSON({"a": [1, 2]}))`,
			`[{"output_type":"display_data","data":{"application/json":{"a":[1,2]},"text/plain":` + plain("JSON") + `},"metadata":{"application/json":{"expanded":false,"root":"root"}}}]`},
		{`display(Latex(r"$x^2$"))`,
			`[{"output_type":"display_data","data":{"text/latex":"$x^2$","text/plain":` + plain("Latex") + `},"metadata":{}}]`},
		{`display(Bundled())`,
			`[{"output_type":"display_data","data":{"text/html":"<i>from the bundle</i>","text/markdown":"*markdown*","text/plain":"bundled"},"metadata":{"text/html":{"isolated":true}}}]`},
		{`display(RawPNG(), metadata={"image/png": {"height": 2}})`,
			`[{"output_type":"display_data","data":{"image/png":"` + png + `","text/plain":"RawPNG()"},"metadata":{"image/png":{"width":8,"height":2}}}]`},
		{`display(HTML("<b>x</b>"), include=["text/html"])`,
			`[{"output_type":"display_data","data":{"text/html":"<b>x</b>"},"metadata":{}}]`},
		{`display_markdown("**raw**", raw=True)`,
			`[{"output_type":"display_data","data":{"text/markdown":"**raw**"},"metadata":{}}]`},
		{`publish_display_data({"text/plain": "p", "text/html": "<u>p</u>"}, metadata={"text/html": {"k": 1}})`,
			`[{"output_type":"display_data","data":{"text/html":"<u>p</u>","text/plain":"p"},"metadata":{"text/html":{"k":1}}}]`},
		{`h = display(HTML("<b>1</b>"), display_id=True)
h.update(HTML("<b>2</b>"))`,
			`[{"output_type":"display_data","data":{"text/html":"<b>2</b>","text/plain":` + plain("HTML") + `},"metadata":{}}]`},
		{`from IPython.display import clear_output
print("gone")
clear_output()
display(HTML("<b>3</b>"))
print("kept")
clear_output(wait=True)
print("last")`,
			`[{"output_type":"stream","name":"stdout","text":"last\n"}]`},
		{`HTML("<p>last</p>")`,
			`[{"output_type":"execute_result","data":{"text/html":"<p>last</p>","text/plain":` + plain("HTML") + `},"metadata":{}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			ex := mustOK(t, k, tt.code)
			if got := outputsJSON(t, ex); !jsonSame(t, got, tt.want) {
				t.Errorf("outputs\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// outputsJSON is ex's outputs as JSON, without execution counts.
func outputsJSON(t *testing.T, ex *kernel.Execution) string {
	t.Helper()
	type shape struct {
		OutputType string                     `json:"output_type"`
		Name       string                     `json:"name,omitempty"`
		Text       string                     `json:"text,omitempty"`
		Data       map[string]json.RawMessage `json:"data,omitempty"`
		Metadata   any                        `json:"metadata,omitempty"` // {} when none, but for streams
	}
	var out []shape
	for _, o := range ex.Outputs {
		s := shape{OutputType: o.OutputType, Name: o.Name, Text: o.Text, Data: o.Data}
		if o.OutputType != "stream" {
			s.Metadata = map[string]json.RawMessage{}
			if o.Metadata != nil {
				s.Metadata = o.Metadata
			}
		}
		out = append(out, s)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// jsonSame reports whether a and b are the same JSON value.
func jsonSame(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatalf("not JSON: %v: %s", err, a)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatalf("not JSON: %v: %s", err, b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
