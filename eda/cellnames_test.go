package eda

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/internal/hostpython"
)

// kernelNames are the names the kernel's namespace holds before the first
// cell: the driver's display, and get_ipython, which setup.py only calls
// inside a NameError guard (it exists in Jupyter, not in analyst's kernel).
var kernelNames = []string{"display", "get_ipython"}

// notebooksForNames are the stage cells of each kind of run, in the order
// the pipeline runs them (dataset/dataset.go; pipeline/runner.go, baseline.go,
// independent.go): a file in memory with a baseline, a file out of core, a
// folder of two tables with documents.
func notebooksForNames() map[string][]Stage {
	p := wideProfile(40)
	ooc := wideProfile(40)
	ooc.OutOfCore = &OutOfCoreInfo{Rows: ooc.Rows, SampleRows: 10, ChunkRows: 100}
	folder := Folder{Dir: "/data", Documents: []string{"README.md"},
		Tables: []FolderTable{{Name: "orders", Path: "orders.csv"}, {Name: "customers", Path: "customers.parquet", Converted: "/converted/c"}}}
	return map[string][]Stage{
		"file": {Setup(), LoadFrom(Source{Path: "/data/x.csv"}), ProfileStage(), changesStage(DefaultChangeRules()),
			Distributions(p, Options{}), Visualization(p, Options{}), IndependentQuestions()},
		"out of core": {Setup(), LoadOutOfCore(Source{Path: "/data/x.csv"}, OutOfCore{}), ProfileOutOfCore(),
			DistributionsOutOfCore(ooc, Options{}), OnSample(Visualization(ooc, Options{}), ooc)},
		"folder": {SetupFolder(folder), LoadFolder(folder), LoadTable(folder.Tables[0]), ProfileTable("orders", true),
			LoadTable(folder.Tables[1]), ProfileTable("customers", false), Relationships([]string{"orders", "customers"}),
			MainTable("orders", 10, 2, false), Distributions(p, Options{}), Visualization(p, Options{})},
	}
}

type cellNames struct {
	Duplicates map[string][]string `json:"duplicates"`
	Undefined  []struct {
		Notebook, Cell, Name string
	} `json:"undefined"`
}

// checkCellNames runs testdata/cell_names.py over the stage files and the
// notebooks' cells.
func checkCellNames(t *testing.T, files map[string]string, runs map[string][]Stage) cellNames {
	notebooks := map[string][][2]string{}
	for name, stages := range runs {
		for _, st := range stages {
			for i, c := range st.Cells {
				if !c.Markdown {
					label := fmt.Sprintf("%s cell %d %s", st.Name, i, strings.Join(c.Tags, ","))
					notebooks[name] = append(notebooks[name], [2]string{label, c.Source})
				}
			}
		}
	}
	out := hostpython.Run(t, map[string]any{"files": files, "notebooks": notebooks, "provided": kernelNames}, "testdata/cell_names.py")
	var got cellNames
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("cell_names.py: %v: %s", err, out)
	}
	return got
}

// stageFiles are eda/py's files, by name.
func stageFiles(t *testing.T) map[string]string {
	files := map[string]string{}
	names, err := fs.Glob(pyFS, "py/*.py")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		b, err := pyFS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		files[strings.TrimPrefix(name, "py/")] = string(b)
	}
	return files
}

// Every stage file runs in the kernel's one namespace: a function or class
// two files define is whichever ran last, for both (load.py's name_words
// and relationships.py's differed).
func TestStageFilesDefineEachNameOnce(t *testing.T) {
	for name, files := range checkCellNames(t, stageFiles(t), nil).Duplicates {
		t.Errorf("%s is defined by %s: rename one", name, strings.Join(files, " and "))
	}
}

// A cell uses only names that a cell before it, or itself, defines: the
// notebook's cell order is the contract between the stage files.
func TestCellsUseNamesEarlierCellsDefine(t *testing.T) {
	got := checkCellNames(t, nil, notebooksForNames())
	for _, u := range got.Undefined {
		t.Errorf("%s notebook, %s: uses %s, which no earlier cell defines", u.Notebook, u.Cell, u.Name)
	}
}

// The check sees a name used before the cell that defines it, in a
// function or at top level, and names defined twice.
func TestCellNamesCheck(t *testing.T) {
	early := Stage{Name: "early", Cells: []Cell{Code("def f():\n    return later + 1\n\nprint(len(df))")}}
	late := Stage{Name: "late", Cells: []Cell{Code("later = 1\ndf = []")}}
	got := checkCellNames(t, map[string]string{"a.py": "def f():\n    pass\n", "b.py": "if True:\n    def f():\n        pass\n"},
		map[string][]Stage{"n": {early, late}})
	var names []string
	for _, u := range got.Undefined {
		names = append(names, u.Name)
	}
	if strings.Join(names, " ") != "df later" {
		t.Errorf("undefined = %v, want df and later", got.Undefined)
	}
	if files := got.Duplicates["f"]; strings.Join(files, " ") != "a.py b.py" {
		t.Errorf("duplicates = %v, want f in a.py and b.py", got.Duplicates)
	}
}
