package pipeline_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bytes"

	"github.com/analyst-cli/analyst/dataset"
	"github.com/analyst-cli/analyst/examples"
	"github.com/analyst-cli/analyst/internal/parquetnpy"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/pipeline"
)

// The notebook alone reproduces the report: Jupyter (nbconvert --execute,
// ipykernel) re-running it in the same image gives the same text outputs and
// the same chart bytes.
func TestNotebookReexecutesInJupyter(t *testing.T) {
	dir := t.TempDir()
	reexecute(t, dir, salesCSV(t, dir, 2000), nil, true)
}

// A Parquet run's notebook re-runs from what is mounted: the file and the
// columns analyst converted it into, next to it.
func TestParquetNotebookReexecutesInJupyter(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "sales.parquet")
	f, err := os.Create(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := examples.WriteSalesParquet(f, 2000, 3); err != nil {
		t.Fatal(err)
	}
	f.Close()
	reexecute(t, dir, data, func(share string) {
		conv := filepath.Join(share, "sales.parquet"+dataset.ConvertedSuffix)
		os.Mkdir(conv, 0o755)
		if _, err := parquetnpy.Convert(data, conv); err != nil {
			t.Fatal(err)
		}
	}, true)
}

// A folder of several tables: its notebook defines the profile's code
// once, as functions each table's cells call, and re-runs under Jupyter
// to the same outputs.
func TestFolderNotebookReexecutesInJupyter(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "shop")
	os.Mkdir(data, 0o755)
	for name, content := range map[string]string{
		"orders.csv":    "id,customer_id,amount,status\n1,10,100,paid\n2,11,50,paid\n3,10,25,refunded\n4,12,75,paid\n",
		"customers.csv": "id,name,city\n10,Ada,Oslo\n11,Bo,Rome\n12,Cy,Lyon\n",
		"tags.json":     `[{"id": 1, "tags": ["a", "b"]}, {"id": 2, "tags": []}]`,
	} {
		if err := os.WriteFile(filepath.Join(data, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := reexecute(t, dir, data, nil, true)
	calls := 0
	for _, c := range res.Notebook.Cells {
		if strings.HasSuffix(c.Source, "\nrun_profile_columns()") {
			calls++
		}
	}
	if calls != 3 {
		t.Errorf("%d tables' profiles call the profile's functions, want 3", calls)
	}
}

// A messy export (numbers as text, markers, offsets, Unix times): the
// notebook's loader converts it the same way under Jupyter.
func TestMessyNotebookReexecutesInJupyter(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	if _, err := examples.WriteMessy(&b, 300, 4); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "messy.csv")
	if err := os.WriteFile(data, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	res := reexecute(t, dir, data, nil, false)
	loader := ""
	for _, c := range res.Notebook.Cells {
		if c.HasTag("load-data") {
			loader = c.Source
		}
	}
	if !strings.Contains(loader, "def convert_number_text") || !strings.Contains(loader, "NA_VALUES = [") {
		t.Errorf("the notebook's load cell does not hold the conversions")
	}
	for _, want := range []string{"numbers as text", "missing-value markers", "converted to UTC", "Unix times"} {
		found := false
		for _, n := range res.Profile.Load.Notes {
			found = found || strings.Contains(n, want)
		}
		if !found {
			t.Errorf("no load note on %s: %q", want, res.Profile.Load.Notes)
		}
	}
}

// reexecute runs analyst on data, then nbconvert on its notebook in a kernel
// whose /data holds the data file and the notebook (and what prepare adds),
// and compares every output.
func reexecute(t *testing.T, dir, data string, prepare func(share string), wantCharts bool) *pipeline.Result {
	return reexecuteWith(t, dir, data, prepare, wantCharts, nil)
}

// reexecuteWith is reexecute with the run's options changed by set first.
func reexecuteWith(t *testing.T, dir, data string, prepare func(share string), wantCharts bool, set func(*pipeline.Options)) *pipeline.Result {
	opts := options(t, data, filepath.Join(dir, "out"))
	opts.CellTimeout = 5 * time.Minute // a shared CI machine can be slow; a timeout is not what this tests
	if set != nil {
		set(&opts)
	}
	res := run(t, opts)

	// /data holds the dataset and the notebook, as the notebook expects.
	share := filepath.Join(dir, "share")
	os.Mkdir(share, 0o755)
	files := []string{data, res.Files.Notebook}
	if fi, err := os.Stat(data); err == nil && fi.IsDir() {
		// A folder's tables are /data's files (flat folders only here).
		tables, err := filepath.Glob(filepath.Join(data, "*"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(tables, res.Files.Notebook)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(share, filepath.Base(p)), b, 0o644)
	}
	if prepare != nil {
		prepare(share)
	}
	nbName := filepath.Base(res.Files.Notebook)
	theirs := kerneltest.Nbconvert(t, share, nbName)
	if len(theirs.Cells) != len(res.Notebook.Cells) {
		t.Fatalf("re-run has %d cells, ours %d", len(theirs.Cells), len(res.Notebook.Cells))
	}
	code, images := 0, 0
	for i, ours := range res.Notebook.Cells {
		if ours.CellType != nbformat.Code {
			continue
		}
		code++
		for _, o := range ours.Outputs {
			for _, mime := range []string{nbformat.MimePNG, nbformat.MimeSVG} {
				if _, ok := o.Data[mime]; ok {
					images++
				}
			}
		}
		for _, d := range nbformat.CompareOutputs(ours.Outputs, theirs.Cells[i].Outputs) {
			t.Errorf("cell %d (%s): %s", i, firstLine(ours.Source), d)
		}
	}
	t.Logf("Jupyter re-ran %d code cells; outputs and %d chart images identical", code, images)
	if wantCharts && images == 0 {
		t.Errorf("no charts compared")
	}
	return res
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
