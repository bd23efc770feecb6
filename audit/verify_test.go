package audit_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/audit"
	"github.com/analyst-cli/analyst/examples"
	"github.com/analyst-cli/analyst/internal/modeltest"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/llm/llmtest"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/pipeline"
)

// A real run in the real kernel, then the tampering an auditor must catch:
// one character of an output, one byte of a chart (in the notebook and in
// the chart file), a cell removed, one value of the data. Each is named; the
// untouched run verifies clean.
func TestVerifyCatchesTampering(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "sales.csv")
	var b bytes.Buffer
	if err := examples.WriteSales(&b, 200, 3); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(data, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	out := filepath.Join(dir, "out")
	kopts := kerneltest.Options(t)
	if _, err := pipeline.Run(ctx, pipeline.Options{Data: data, OutDir: out, Kernel: kopts,
		AnalystVersion: "test", ImageID: "test-image", Versions: map[string]string{"python": "3"}}); err != nil {
		t.Fatalf("run: %v", err)
	}
	verify := func(runDir string, o audit.Options) (*audit.Report, error) {
		t.Helper()
		run, err := audit.Open(runDir)
		if err != nil {
			t.Fatal(err)
		}
		o.Kernel = kopts
		o.Render = func(nb *nbformat.Notebook) (map[string][]byte, error) { return pipeline.Render(run.Manifest, nb, "") }
		return audit.Verify(ctx, run, o)
	}

	t.Run("unchanged", func(t *testing.T) {
		rep, err := verify(out, audit.Options{})
		if err != nil || !rep.OK {
			var text strings.Builder
			rep.WriteText(&text)
			t.Fatalf("an untouched run does not verify: %v\n%s", err, text.String())
		}
		code := 0
		for _, c := range rep.Cells {
			if c.Code {
				code++
			}
		}
		if code < 5 || len(rep.Files) < 4 {
			t.Errorf("verified only %d code cells and %d files", code, len(rep.Files))
		}
	})

	t.Run("output, chart and chart file", func(t *testing.T) {
		tampered := copyRun(t, out, filepath.Join(dir, "t1"))
		nbPath := filepath.Join(tampered, "sales.ipynb")
		nb, err := nbformat.ReadFile(nbPath)
		if err != nil {
			t.Fatal(err)
		}
		textCell, pngCell := -1, -1
		for i, c := range nb.Cells {
			for j, o := range c.Outputs {
				if s, ok := o.DataString("text/plain"); ok && textCell < 0 && strings.Contains(s, "North") {
					nb.Cells[i].Outputs[j].Data["text/plain"] = nbformat.Text(strings.Replace(s, "North", "Nerth", 1))
					textCell = i
				} else if s, ok := o.DataString("image/png"); ok && pngCell < 0 && textCell != i {
					png, _ := base64.StdEncoding.DecodeString(s)
					png[len(png)/2] ^= 1
					nb.Cells[i].Outputs[j].Data["image/png"] = nbformat.Text(base64.StdEncoding.EncodeToString(png))
					pngCell = i
				}
			}
		}
		if textCell < 0 || pngCell < 0 {
			t.Fatalf("no output to tamper with (text cell %d, chart cell %d)", textCell, pngCell)
		}
		if err := nbformat.WriteFile(nbPath, nb); err != nil {
			t.Fatal(err)
		}
		chart := filepath.Join(tampered, "sales_files", "chart-1.png")
		png, _ := os.ReadFile(chart)
		png[100] ^= 0x20
		os.WriteFile(chart, png, 0o644)

		rep, err := verify(tampered, audit.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.OK {
			t.Fatal("tampered run verified")
		}
		files := fileStatus(rep)
		for _, f := range []string{"sales.ipynb", "sales_files/chart-1.png"} {
			if files[f] != "changed" {
				t.Errorf("%s: %q, want changed", f, files[f])
			}
		}
		if files["sales.html"] != "ok" {
			t.Errorf("sales.html: %q, want ok", files["sales.html"])
		}
		text := cellAt(t, rep, textCell+1)
		if text.Status != audit.CellEdited || !containsAll(text.Diffs, `Nerth`, `North`, "text/plain") {
			t.Errorf("cell with the edited output: %s %q", text.Status, text.Diffs)
		}
		img := cellAt(t, rep, pngCell+1)
		if img.Status != audit.CellEdited || !containsAll(img.Diffs, "image/png bytes differ", "first difference at byte") {
			t.Errorf("cell with the edited chart: %s %q", img.Status, img.Diffs)
		}
		for _, c := range rep.Cells {
			if c.Index != textCell+1 && c.Index != pngCell+1 && c.Status != audit.CellOK && c.Status != audit.CellSkipped {
				t.Errorf("untouched cell %d: %s %q", c.Index, c.Status, c.Diffs)
			}
		}
	})

	// An attacker who edits a file recomputes its sha256 in run.json: the
	// file is then what the notebook and run.json do not render. run.json's
	// own facts are what the re-run does not find.
	t.Run("chart file and run.json's rows, sha256 recomputed", func(t *testing.T) {
		tampered := copyRun(t, out, filepath.Join(dir, "t3"))
		chart := filepath.Join(tampered, "sales_files", "chart-1.png")
		png, _ := os.ReadFile(chart)
		png[len(png)/2] ^= 0x20
		os.WriteFile(chart, png, 0o644)
		manifest := filepath.Join(tampered, "sales.run.json")
		b, _ := os.ReadFile(manifest)
		os.WriteFile(manifest, bytes.Replace(b, []byte(`"rows": 200,`), []byte(`"rows": 2000,`), 1), 0o644)
		rehash(t, tampered)
		rep, err := verify(tampered, audit.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for f, status := range fileStatus(rep) {
			if status != "ok" {
				t.Errorf("%s: %s, want ok (its sha256 was recomputed)", f, status)
			}
		}
		got := rendered(rep)
		if rep.OK || !strings.Contains(got["sales_files/chart-1.png"], "differs: not the chart the notebook shows: first difference at byte") {
			t.Errorf("the edited chart file is not named (ok=%v): %q", rep.OK, got)
		}
		if got["sales.html"] != "ok" || got["sales_files/chart-1.json"] != "ok" {
			t.Errorf("untouched files: %q", got)
		}
		var text strings.Builder
		rep.WriteText(&text)
		if !strings.Contains(text.String(), "fact     differs  run.json data.rows: 2000; the re-run: 200\n") {
			t.Errorf("run.json's edited rows are not named:\n%s", text.String())
		}
	})

	t.Run("cell removed", func(t *testing.T) {
		tampered := copyRun(t, out, filepath.Join(dir, "t2"))
		nbPath := filepath.Join(tampered, "sales.ipynb")
		nb, _ := nbformat.ReadFile(nbPath)
		gone := -1
		for i, c := range nb.Cells {
			if c.CellType == nbformat.Code && strings.TrimSpace(c.Source) == "df.head()" {
				gone = i
			}
		}
		if gone < 0 {
			t.Fatal("no df.head() cell")
		}
		id := nb.Cells[gone].ID
		nb.Cells = append(nb.Cells[:gone], nb.Cells[gone+1:]...)
		if err := nbformat.WriteFile(nbPath, nb); err != nil {
			t.Fatal(err)
		}
		rep, err := verify(tampered, audit.Options{})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, c := range rep.Cells {
			if c.Status == audit.CellRemoved && c.ID == id {
				found = containsAll(c.Diffs, "is gone")
			}
		}
		if rep.OK || !found {
			t.Errorf("removed cell %s not named (ok=%v): %+v", id, rep.OK, rep.Cells)
		}
	})

	t.Run("data value", func(t *testing.T) {
		orig, _ := os.ReadFile(data)
		i := bytes.IndexByte(orig, '\n') + 1 // a value in the first data row
		for orig[i] < '0' || orig[i] > '9' {
			i++
		}
		changed := append([]byte(nil), orig...)
		changed[i] = '0' + (changed[i]-'0'+1)%10
		other := filepath.Join(dir, "other", "sales-november.csv")
		os.MkdirAll(filepath.Dir(other), 0o755)
		os.WriteFile(other, changed, 0o644)
		rep, err := verify(out, audit.Options{Data: other})
		var de *audit.DataError
		if !errors.As(err, &de) || !strings.Contains(de.Msg, "is not the run's data") || rep.Data.Status != "changed" {
			t.Fatalf("changed data: %v (data %+v)", err, rep.Data)
		}
		// The same bytes under another name are the run's data.
		os.WriteFile(other, orig, 0o644)
		if rep, err := verify(out, audit.Options{Data: other}); err != nil || rep.Data.Status != "ok" {
			t.Errorf("the data under another name: %v %+v", err, rep.Data)
		}
	})
}

// rehash recomputes, as an attacker would, the sha256 and size of every
// file run.json lists.
func rehash(t *testing.T, runDir string) {
	t.Helper()
	manifests, _ := filepath.Glob(filepath.Join(runDir, "*.run.json"))
	if len(manifests) != 1 {
		t.Fatalf("run.json files in %s: %v", runDir, manifests)
	}
	b, err := os.ReadFile(manifests[0])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, f := range m["files"].([]any) {
		f := f.(map[string]any)
		p := filepath.Join(runDir, f["path"].(string))
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			f["sha256"], _ = audit.FileSHA256(p)
			f["bytes"] = fi.Size()
		}
	}
	if b, err = json.MarshalIndent(m, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifests[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// rendered is each rendered file's status, with its difference.
func rendered(rep *audit.Report) map[string]string {
	m := map[string]string{}
	for _, f := range rep.Rendered {
		m[f.Path] = f.Status
		if f.Diff != "" {
			m[f.Path] += ": " + f.Diff
		}
	}
	return m
}

func copyRun(t *testing.T, from, to string) string {
	t.Helper()
	err := filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return to
}

func fileStatus(rep *audit.Report) map[string]string {
	m := map[string]string{}
	for _, f := range rep.Files {
		m[f.Path] = f.Status
	}
	return m
}

func cellAt(t *testing.T, rep *audit.Report, index int) audit.CellCheck {
	t.Helper()
	for _, c := range rep.Cells {
		if c.Index == index {
			return c
		}
	}
	t.Fatalf("no cell %d in the report", index)
	return audit.CellCheck{}
}

func containsAll(diffs []string, subs ...string) bool {
	all := strings.Join(diffs, "\n")
	for _, s := range subs {
		if !strings.Contains(all, s) {
			return false
		}
	}
	return true
}

// A run with a model (a question answered with code, named values inline in
// the narrative, a traced number, a reflection that accepts the chart)
// verifies untouched: its report renders again, byte for byte, from the
// notebook and run.json. A number of the answer edited in the report, the
// report's sha256 in run.json recomputed as an attacker would, is named.
func TestVerifyRunWithModelCatchesAnEditedAnswer(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "sales.csv")
	if err := os.WriteFile(data, []byte("date,region,revenue\n2024-01-01,East,10\n2024-02-01,West,20\n2024-03-01,East,30\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cell := "top = df.groupby(\"region\")[\"revenue\"].sum().sort_values(ascending=False)\nprint(top)\n" +
		"top.plot.bar(title=\"Revenue by region\", xlabel=\"region\", ylabel=\"revenue\")\nplt.show()"
	model := modeltest.New(t, "ollama",
		llmtest.Turn{Text: "```python\n" + cell + "\n```"},
		llmtest.Turn{Text: "@top_region[East] The top region is @top_region[East], with 40 in revenue."},
		llmtest.Turn{Text: "VERDICT: ACCEPT\nThe bar chart shows East ahead."},
	)
	model.Caps = `["completion"]`
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	kopts := kerneltest.Options(t)
	out := filepath.Join(dir, "out")
	if _, err := pipeline.Run(ctx, pipeline.Options{Data: data, OutDir: out, Kernel: kopts,
		AnalystVersion: "test", ImageID: "test-image", Versions: map[string]string{"python": "3"},
		Questions: []string{"Which region has the most revenue?"}, NoExplore: true,
		Model: audit.NewRecorder(model.Client(t, false)), ModelSpec: "ollama:qwen2.5-coder:7b"}); err != nil {
		t.Fatalf("run: %v", err)
	}
	verify := func(runDir string) *audit.Report {
		t.Helper()
		run, err := audit.Open(runDir)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := audit.Verify(ctx, run, audit.Options{Kernel: kopts,
			Render: func(nb *nbformat.Notebook) (map[string][]byte, error) { return pipeline.Render(run.Manifest, nb, "") }})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	if rep := verify(out); !rep.OK || len(rep.Rendered) < 3 || len(rep.Answers) == 0 {
		var text strings.Builder
		rep.WriteText(&text)
		t.Fatalf("the untouched run with a model does not verify (%d files rendered):\n%s", len(rep.Rendered), text.String())
	}

	tampered := copyRun(t, out, filepath.Join(dir, "edited"))
	page := filepath.Join(tampered, "sales.html")
	html, _ := os.ReadFile(page)
	box := bytes.Index(html, []byte(`<section id="answer"`))
	forty := bytes.Index(html[max(box, 0):], []byte(">40<"))
	if box < 0 || forty < 0 {
		t.Fatalf("no 40 in the report's answer box")
	}
	html[box+forty+2] = '1'
	os.WriteFile(page, html, 0o644)
	rehash(t, tampered)
	rep := verify(tampered)
	got := rendered(rep)
	if rep.OK || !strings.Contains(got["sales.html"], "differs: not what the notebook and run.json render: line ") ||
		!strings.Contains(got["sales.html"], ">41<") || !strings.Contains(got["sales.html"], ">40<") {
		t.Errorf("the edited answer is not named (ok=%v): %q", rep.OK, got)
	}
}
