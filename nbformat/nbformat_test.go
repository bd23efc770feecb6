package nbformat_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/analyst-cli/analyst/nbformat"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// A 1x1 PNG.
const tinyPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

func count(n int) *int { return &n }

// sampleNotebook is a small notebook with every kind of content a run
// writes: markdown with a formula, a code cell with stream, execute_result
// and display_data (PNG plus a chart description), and a failed cell.
func sampleNotebook() *nbformat.Notebook {
	nb := nbformat.New()
	nb.Metadata.LanguageInfo.Version = "3.11.2"
	nb.SetProvenance("tool_version", "0.1.0")
	nb.SetProvenance("data_sha256", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")
	nb.SetProvenance("limits", map[string]any{"memory": "2 GiB", "pids": 256})

	nb.AddMarkdown("# Revenue by month\n\nThe mean is\n\n$$\\bar{x} = \\frac{1}{n}\\sum x_i$$\n\nQuoted \"text\", a tab\there, and non-ASCII: café – ü.")
	outputs := nbformat.CopyOutputs([]nbformat.Output{
		{OutputType: "stream", Name: "stdout", Text: "rows: 3\ncolumns: 2\n"},
		{OutputType: "stream", Name: "stderr", Text: "warning: no trailing newline"},
		{OutputType: "execute_result", ExecutionCount: count(1), Data: map[string]json.RawMessage{
			"text/plain": json.RawMessage(`"  month  revenue\n0   Jan     10.0\n1   Feb     30.0"`),
			"text/html":  json.RawMessage(`"<table>\n<tr><td>Jan</td><td>10.0</td></tr>\n</table>\n"`),
		}, Metadata: map[string]json.RawMessage{}},
		{OutputType: "display_data", Data: map[string]json.RawMessage{
			"text/plain":                         json.RawMessage(`"<Figure size 640x480 with 1 Axes>"`),
			"image/png":                          json.RawMessage(`"` + tinyPNG + `\n"`),
			"application/vnd.analyst.chart+json": json.RawMessage(`{"kind":"bar","title":"Revenue by month","axes":[{"x_label":"month","series":[{"label":"revenue","x":["Jan","Feb"],"y":[10.0,30.0]}]}],"ratio":1e-05}`),
		}, Metadata: map[string]json.RawMessage{"image/png": json.RawMessage(`{"width":1,"height":1}`)}},
	})
	nb.AddCode("df = pd.read_csv('/data/sales.csv')\nprint('rows:', len(df))\ndf", outputs, 1)
	nb.AddCode("df['revenue'].mean() / 0", []nbformat.Output{
		nbformat.Error("ZeroDivisionError", "float division by zero", []string{
			"Traceback (most recent call last):",
			"  File \"<cell-2>\", line 1, in <module>",
			"\x1b[0;31mZeroDivisionError\x1b[0m: float division by zero",
		}),
	}, 2, nbformat.TagFailedAttempt, nbformat.TagCollapsed).HideOutputs()
	nb.AddCode("", nil, 0)
	return nb
}

func mustMarshal(t *testing.T, nb *nbformat.Notebook) []byte {
	t.Helper()
	b, err := nbformat.Marshal(nb)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	return b
}

func TestGolden(t *testing.T) {
	got := mustMarshal(t, sampleNotebook())
	golden := filepath.Join("testdata", "sample.ipynb")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./nbformat -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("Marshal differs from %s (-want +got); if the change is intended, run with -update:\n%s", golden, diff)
	}
}

// The compact notebook is the indented one without its insignificant
// whitespace, and reads back as the same notebook.
func TestMarshalCompact(t *testing.T) {
	indented := mustMarshal(t, sampleNotebook())
	got, err := nbformat.MarshalCompact(sampleNotebook())
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := json.Compact(&want, indented); err != nil {
		t.Fatal(err)
	}
	want.WriteByte('\n')
	if diff := cmp.Diff(want.String(), string(got)); diff != "" {
		t.Errorf("MarshalCompact is not the indented notebook compacted (-want +got):\n%s", diff)
	}
	nb, err := nbformat.Read(bytes.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	if again := mustMarshal(t, nb); !bytes.Equal(again, indented) {
		t.Errorf("the compact notebook read back marshals to other bytes:\n%s", cmp.Diff(string(indented), string(again)))
	}
	if len(got) >= len(indented) {
		t.Errorf("compact %d bytes, indented %d", len(got), len(indented))
	}
}

func TestRoundTrip(t *testing.T) {
	first := mustMarshal(t, sampleNotebook())
	nb, err := nbformat.Read(bytes.NewReader(first))
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	second := mustMarshal(t, nb)
	if diff := cmp.Diff(string(first), string(second)); diff != "" {
		t.Fatalf("Marshal(Read(Marshal(nb))) differs (-first +second):\n%s", diff)
	}
	// What was read is what was built.
	code := nb.Cells[1]
	if code.CellType != nbformat.Code || *code.ExecutionCount != 1 || len(code.Outputs) != 4 {
		t.Fatalf("code cell read back as %+v", code)
	}
	if got, _ := code.Outputs[2].DataString("text/html"); got != "<table>\n<tr><td>Jan</td><td>10.0</td></tr>\n</table>\n" {
		t.Errorf("text/html read back as %q", got)
	}
	if got, _ := code.Outputs[3].DataString("image/png"); got != tinyPNG {
		t.Errorf("image/png read back as %q, want the base64 without its newline", got)
	}
	if got := nb.Cells[0].Source; !strings.Contains(got, `$$\bar{x} = \frac{1}{n}\sum x_i$$`) {
		t.Errorf("formula lost: %q", got)
	}
	failed := nb.Cells[2]
	if !failed.HasTag(nbformat.TagFailedAttempt) || !failed.Metadata.OutputsHidden {
		t.Errorf("failed cell metadata read back as %+v", failed.Metadata)
	}
	if nb.Metadata.Analyst["tool_version"] != "0.1.0" {
		t.Errorf("provenance read back as %v", nb.Metadata.Analyst)
	}
}

// TestWrittenForm checks the shape of the JSON: what Jupyter writes.
func TestWrittenForm(t *testing.T) {
	b := mustMarshal(t, sampleNotebook())
	s := string(b)
	for _, want := range []string{
		"{\n \"cells\": [\n  {\n   \"cell_type\": \"markdown\",",        // 1-space indent, sorted keys
		`"$$\\bar{x} = \\frac{1}{n}\\sum x_i$$\n",`,                     // LaTeX, one line of an array
		`non-ASCII: café – ü.`,                                          // no \u escapes
		`"image/png": "` + tinyPNG + `"`,                                // one string, newline stripped
		"\"application/vnd.analyst.chart+json\": {\n       \"axes\": [", // JSON stays JSON
		`"ratio": 1e-05`, // numbers as written
		"\"text/plain\": [\n       \"  month  revenue\\n\",", // text/plain as lines
		`"\u001b[0;31mZeroDivisionError\u001b[0m: float division by zero"`,
		"\"execution_count\": null,\n   \"id\":",
		"\"outputs\": [],\n   \"source\": []",
		"\"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n",
		"\"kernelspec\": {\n   \"display_name\": \"Python 3\",\n   \"language\": \"python\",\n   \"name\": \"python3\"\n  }",
		"\"tags\": [\n     \"failed-attempt\",\n     \"collapsed\"\n    ]",
		"\"jupyter\": {\n     \"outputs_hidden\": true\n    }",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("written notebook lacks %q", want)
		}
	}
	if !strings.HasSuffix(s, "}\n") || strings.HasSuffix(s, "\n\n") {
		t.Errorf("want exactly one trailing newline")
	}
}

func TestReadAcceptsStringAndListForms(t *testing.T) {
	const asLists = `{"cells": [
	  {"cell_type": "markdown", "id": "a", "metadata": {}, "source": ["# T\n", "body"]},
	  {"cell_type": "code", "id": "b", "metadata": {}, "execution_count": 3, "source": ["x = 1\n", "x"],
	   "outputs": [
	    {"output_type": "stream", "name": "stdout", "text": ["one\n", "two\n"]},
	    {"output_type": "execute_result", "execution_count": 3, "metadata": {},
	     "data": {"text/plain": ["1"], "text/html": ["<b>\n", "1</b>"], "image/png": "` + tinyPNG + `\n",
	              "application/json": ["not", "joined"]}}]}],
	 "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`
	const asStrings = `{"cells": [
	  {"cell_type": "markdown", "id": "a", "metadata": {}, "source": "# T\nbody"},
	  {"cell_type": "code", "id": "b", "metadata": {}, "execution_count": 3, "source": "x = 1\nx",
	   "outputs": [
	    {"output_type": "stream", "name": "stdout", "text": "one\ntwo\n"},
	    {"output_type": "execute_result", "execution_count": 3, "metadata": {},
	     "data": {"text/plain": "1", "text/html": "<b>\n1</b>", "image/png": "` + tinyPNG + `",
	              "application/json": ["not", "joined"]}}]}],
	 "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`
	var out [2][]byte
	for i, src := range []string{asLists, asStrings} {
		nb, err := nbformat.Read(strings.NewReader(src))
		if err != nil {
			t.Fatalf("Read form %d: %v", i, err)
		}
		if nb.Cells[1].Source != "x = 1\nx" || nb.Cells[1].Outputs[0].Text != "one\ntwo\n" {
			t.Errorf("form %d: source %q stream %q", i, nb.Cells[1].Source, nb.Cells[1].Outputs[0].Text)
		}
		if s, _ := nb.Cells[1].Outputs[1].DataString("text/html"); s != "<b>\n1</b>" {
			t.Errorf("form %d: text/html %q", i, s)
		}
		if got := string(nb.Cells[1].Outputs[1].Data["application/json"]); got != `["not", "joined"]` {
			t.Errorf("form %d: application/json %s, want the list kept as JSON", i, got)
		}
		out[i] = mustMarshal(t, nb)
	}
	if diff := cmp.Diff(string(out[0]), string(out[1])); diff != "" {
		t.Errorf("list and string forms write differently:\n%s", diff)
	}
}

func TestReadUpgradesOlderNotebooks(t *testing.T) {
	const v44 = `{"cells": [{"cell_type": "markdown", "metadata": {}, "source": "hi"},
	  {"cell_type": "markdown", "metadata": {}, "source": "hi"}],
	  "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}, "title": "kept"},
	  "nbformat": 4, "nbformat_minor": 4}`
	nb, err := nbformat.Read(strings.NewReader(v44))
	if err != nil {
		t.Fatal(err)
	}
	if nb.NBFormatMinor != 5 {
		t.Errorf("nbformat_minor = %d, want 5", nb.NBFormatMinor)
	}
	if nb.Cells[0].ID == "" || nb.Cells[0].ID == nb.Cells[1].ID {
		t.Errorf("ids %q %q: want two distinct ids", nb.Cells[0].ID, nb.Cells[1].ID)
	}
	b := mustMarshal(t, nb)
	if !bytes.Contains(b, []byte(`"title": "kept"`)) {
		t.Errorf("unknown metadata was dropped:\n%s", b)
	}
	if _, err := nbformat.Read(strings.NewReader(`{"nbformat": 3, "worksheets": []}`)); err == nil {
		t.Errorf("Read accepted an nbformat 3 notebook")
	}
	if _, err := nbformat.Read(strings.NewReader(`{"cells": [{"cell_type": "heading"}], "nbformat": 4}`)); err == nil {
		t.Errorf("Read accepted an unknown cell type")
	}
}

func TestDeterministic(t *testing.T) {
	a, b := mustMarshal(t, sampleNotebook()), mustMarshal(t, sampleNotebook())
	if !bytes.Equal(a, b) {
		t.Fatalf("two builds of the same notebook differ")
	}
	// Map iteration order must not leak: marshal the same value many times.
	nb := sampleNotebook()
	for range 20 {
		if c := mustMarshal(t, nb); !bytes.Equal(a, c) {
			t.Fatalf("marshalling the same notebook twice differs")
		}
	}
	var raw struct {
		Cells []struct {
			ID string `json:"id"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(a, &raw); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, c := range raw.Cells {
		if !nbformat.ValidID(c.ID) {
			t.Errorf("cell %d: id %q is not a valid 4.5 id", i, c.ID)
		}
		if seen[c.ID] {
			t.Errorf("cell %d: id %q repeats", i, c.ID)
		}
		seen[c.ID] = true
	}
}

func TestCellIDs(t *testing.T) {
	nb := nbformat.New()
	a := nb.AddMarkdown("---")
	b := nb.AddMarkdown("---")
	if a.ID == b.ID {
		t.Errorf("equal cells at different positions share id %q", a.ID)
	}
	if a.ID != nbformat.CellID(0, nbformat.Markdown, "---") {
		t.Errorf("id %q is not CellID(0, markdown, ---)", a.ID)
	}
	if nbformat.CellID(0, nbformat.Markdown, "x") == nbformat.CellID(0, nbformat.Raw, "x") {
		t.Errorf("cell type does not enter the id")
	}
	// Cells built by hand get their id at Marshal, without changing the notebook.
	nb.Cells = append(nb.Cells, &nbformat.Cell{CellType: nbformat.Raw, Source: "r"})
	b1 := mustMarshal(t, nb)
	if nb.Cells[2].ID != "" {
		t.Errorf("Marshal changed the notebook")
	}
	if !bytes.Contains(b1, []byte(nbformat.CellID(2, nbformat.Raw, "r"))) {
		t.Errorf("hand-built cell did not get CellID")
	}
	for _, tt := range []struct {
		id   string
		want bool
	}{
		{"a", true}, {"A-b_9", true}, {strings.Repeat("x", 64), true},
		{"", false}, {strings.Repeat("x", 65), false}, {"a b", false}, {"a.b", false}, {"é", false},
	} {
		if got := nbformat.ValidID(tt.id); got != tt.want {
			t.Errorf("ValidID(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestTags(t *testing.T) {
	nb := nbformat.New()
	c := nb.AddCode("1", nil, 1, "a", "b", "a")
	if diff := cmp.Diff([]string{"a", "b"}, c.Metadata.Tags); diff != "" {
		t.Errorf("tags: %s", diff)
	}
	c.AddTags("b", "c")
	if !c.HasTag("c") || len(c.Metadata.Tags) != 3 {
		t.Errorf("AddTags: %v", c.Metadata.Tags)
	}
	c.HideSource()
	b := string(mustMarshal(t, nb))
	if !strings.Contains(b, `"source_hidden": true`) {
		t.Errorf("HideSource not written")
	}
}

func TestValidateRejects(t *testing.T) {
	tests := []struct {
		name string
		mod  func(nb *nbformat.Notebook)
		want string
	}{
		{"bad id", func(nb *nbformat.Notebook) { nb.Cells[0].ID = "a b" }, "id"},
		{"long id", func(nb *nbformat.Notebook) { nb.Cells[0].ID = strings.Repeat("a", 65) }, "id"},
		{"duplicate id", func(nb *nbformat.Notebook) { nb.Cells[1].ID = nb.Cells[0].ID }, "also the id of cell 0"},
		{"tag with comma", func(nb *nbformat.Notebook) { nb.Cells[0].Metadata.Tags = []string{"a,b"} }, "commas"},
		{"duplicate tag", func(nb *nbformat.Notebook) { nb.Cells[0].Metadata.Tags = []string{"a", "a"} }, "twice"},
		{"cell type", func(nb *nbformat.Notebook) { nb.Cells[0].CellType = "heading" }, "cell_type"},
		{"outputs on markdown", func(nb *nbformat.Notebook) { nb.Cells[0].Outputs = []nbformat.Output{nbformat.Stream("stdout", "x")} }, "no outputs"},
		{"output type", func(nb *nbformat.Notebook) { nb.Cells[1].Outputs[0].OutputType = "pager" }, "output_type"},
		{"stream name", func(nb *nbformat.Notebook) { nb.Cells[1].Outputs[0].Name = "" }, "name"},
		{"invalid json data", func(nb *nbformat.Notebook) {
			nb.Cells[1].Outputs[2].Data["application/json"] = json.RawMessage(`{"a":`)
		}, "invalid JSON"},
		{"text data not a string", func(nb *nbformat.Notebook) {
			nb.Cells[1].Outputs[2].Data["text/plain"] = json.RawMessage(`42`)
		}, "want a string"},
		{"version", func(nb *nbformat.Notebook) { nb.NBFormatMinor = 4 }, "nbformat 4.4"},
		{"kernelspec", func(nb *nbformat.Notebook) { nb.Metadata.KernelSpec.Name = "" }, "kernelspec"},
		{"negative count", func(nb *nbformat.Notebook) { nb.Cells[1].ExecutionCount = count(-1) }, "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nb := sampleNotebook()
			tt.mod(nb)
			_, err := nbformat.Marshal(nb)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Marshal error = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
	if err := nbformat.Validate(sampleNotebook()); err != nil {
		t.Errorf("the sample is invalid: %v", err)
	}
}

func TestCopyOutputs(t *testing.T) {
	ko := []nbformat.Output{{
		OutputType: "execute_result", ExecutionCount: count(7),
		Data:     map[string]json.RawMessage{"text/plain": json.RawMessage(`"42"`)},
		Metadata: map[string]json.RawMessage{},
	}, {OutputType: "error", EName: "E", EValue: "v", Traceback: []string{"tb"}}}
	got := nbformat.CopyOutputs(ko)
	want := []nbformat.Output{
		nbformat.ExecuteResult(7, nbformat.MimeBundle{"text/plain": nbformat.Text("42")}, map[string]json.RawMessage{}),
		nbformat.Error("E", "v", []string{"tb"}),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CopyOutputs (-want +got):\n%s", diff)
	}
	ko[0].Data["text/plain"][1] = 'X'
	*ko[0].ExecutionCount = 8
	ko[1].Traceback[0] = "changed"
	if s, _ := got[0].DataString("text/plain"); s != "42" || *got[0].ExecutionCount != 7 || got[1].Traceback[0] != "tb" {
		t.Errorf("CopyOutputs shares memory with the original outputs")
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.ipynb")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	nb := sampleNotebook()
	if err := nbformat.WriteFile(path, nb); err != nil {
		t.Fatalf("WriteFile: %v", err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, mustMarshal(t, nb)) {
		t.Errorf("file content is not Marshal's")
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("folder holds %d entries, want only the notebook (temporary file left?)", len(entries))
	}
	// An invalid notebook is not written and leaves the old file alone.
	bad := sampleNotebook()
	bad.Cells[0].ID = "no spaces allowed"
	if err := nbformat.WriteFile(path, bad); err == nil {
		t.Errorf("WriteFile wrote an invalid notebook")
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, got) {
		t.Errorf("failed WriteFile changed the file")
	}
	if err := nbformat.WriteFile(filepath.Join(dir, "missing", "x.ipynb"), nb); err == nil {
		t.Errorf("WriteFile into a missing folder succeeded")
	}
	back, err := nbformat.ReadFile(path)
	if err != nil || len(back.Cells) != len(nb.Cells) {
		t.Errorf("ReadFile: %v", err)
	}
}

func TestPNGStaysOneString(t *testing.T) {
	nb := nbformat.New()
	png, _ := base64.StdEncoding.DecodeString(tinyPNG)
	b64 := base64.StdEncoding.EncodeToString(png)
	nb.AddCode("fig", []nbformat.Output{nbformat.DisplayData(nbformat.MimeBundle{
		"image/png":  nbformat.Text(b64 + "\n"),
		"text/plain": nbformat.Text("<Figure>"),
	}, nil)}, 1)
	s := string(mustMarshal(t, nb))
	if !strings.Contains(s, `"image/png": "`+b64+`",`) {
		t.Errorf("image/png not written as one string without newline:\n%s", s)
	}
	if !strings.Contains(s, "\"metadata\": {},\n     \"output_type\": \"display_data\"") {
		t.Errorf("display_data without metadata should get {}:\n%s", s)
	}
}
