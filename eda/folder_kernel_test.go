package eda

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/analyst-cli/analyst/internal/mdheadings"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/nbformat"
)

// folderManual is a manual with what headings can be: a closing run of #,
// a '#' in code fenced two ways, the same heading twice, a heading
// indented three spaces and one indented four (code), an empty one.
const folderManual = "# Shop manual\n\nIntro.\n\n## Customers ##\n\nA customer has an id.\n\n```python\n# not a heading\n```\n\n" +
	"## Fees\n\nThe fee is 2% of the amount,\nplus 0.10 EUR.\n\n### Example\n\n~~~~\n## still code\n~~~\n~~~~~\n\n### Example\n\n" +
	"   ## Refunds\n\n    ## code, not a heading\n\nRefunds cost nothing.\n\n#\n\n## Last\nend\n"

// writeShopFolder writes a folder of two tables that join (orders.csv's
// customer_id → customers.json's id, whose tags are lists), a manual and a
// text note, and returns it with the files as the kernel gets them.
func writeShopFolder(t *testing.T) (string, []kernel.DataFile) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"orders.csv":     "id,customer_id,amount,status\n1,10,100,paid\n2,11,50,paid\n3,10,25,refunded\n4,12,75,paid\n",
		"zz/returns.csv": "order_id,why\n3,late\n",
		"crm/customers.json": `[{"id": 10, "name": "Ada", "tags": ["vip", "eu"], "address": {"city": "Oslo"}},` +
			`{"id": 11, "name": "Bo", "tags": [], "address": {"city": "Rome"}},` +
			`{"id": 12, "name": "Cy", "tags": ["eu"], "address": {"city": "Lyon"}}]`,
		"manual.md": folderManual,
		"notes.txt": "Amounts are in EUR.\n",
	}
	var dfs []kernel.DataFile
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		dfs = append(dfs, kernel.DataFile{Path: name, Source: p})
	}
	return dir, dfs
}

// A folder in the kernel: each table read into tables[NAME] with its own
// load_info and profile (a JSON file's list column named in json_columns),
// df the main table, the tables join as the data says, and the
// distributions and charts of the main table run though another table was
// profiled after it (they read what its profile computed).
func TestFolderStages(t *testing.T) {
	_, files := writeShopFolder(t)
	k := kerneltest.Start(t, func(o *kernel.Options) { o.DataFiles = files })
	f := Folder{Dir: kernel.DataMount, Tables: []FolderTable{{Name: "crm/customers", Path: "crm/customers.json"}, {Name: "orders", Path: "orders.csv"},
		{Name: "zz/returns", Path: "zz/returns.csv"}},
		Documents: []string{"manual.md", "notes.txt"}}
	mustRun(t, k, SetupFolder(f))
	mustRun(t, k, LoadFolder(f))
	profiles := map[string]*Profile{}
	for i, tb := range f.Tables {
		mustRun(t, k, LoadTable(tb))
		profiles[tb.Name] = profileOf(t, mustRun(t, k, ProfileTable(tb.Name, i == 0)))
	}
	if p := profiles["orders"]; p.Rows != 4 || p.Columns != 4 {
		t.Errorf("orders: %d × %d, want 4 × 4", p.Rows, p.Columns)
	}
	c := profiles["crm/customers"]
	if c.Rows != 3 || c.Load.JSONColumns["tags"] != "lists" || c.Load.Format != "json" {
		t.Errorf("crm/customers: %d rows, format %s, json_columns %v; want 3 rows of json, tags holding lists", c.Rows, c.Load.Format, c.Load.JSONColumns)
	}
	wantNote(t, c, "flattened")
	mustRun(t, k, MainTable("orders", 4, 3, false))
	mustRun(t, k, Distributions(profiles["orders"], Options{}))
	mustRun(t, k, Visualization(profiles["orders"], Options{}))
	var got struct {
		Rows   int      `json:"rows"`
		Join   int      `json:"join"`
		Tags   []string `json:"tags"`
		Tables []string `json:"tables"`
	}
	pyValue(t, k, `print(json.dumps({"rows": len(df), "tables": sorted(tables), `+
		`"join": len(tables["orders"].merge(tables["crm/customers"], left_on="customer_id", right_on="id")), `+
		`"tags": tables["crm/customers"]["tags"].map(json.loads)[0]}))`, &got)
	if got.Rows != 4 || got.Join != 4 || strings.Join(got.Tags, ",") != "vip,eu" || strings.Join(got.Tables, ",") != "crm/customers,orders,zz/returns" {
		t.Errorf("in the kernel: %+v; want df of 4 rows, a join of 4, tags [vip eu], tables crm/customers and orders", got)
	}
}

// read_doc finds every heading analyst lists for the model (Go's
// mdheadings): the section it prints starts at that heading's line and
// ends before the next heading of its level or higher; a heading that
// matches none lists the headings; no heading prints the whole document.
func TestReadDocAgreesWithHeadings(t *testing.T) {
	_, files := writeShopFolder(t)
	k := kerneltest.Start(t, func(o *kernel.Options) { o.DataFiles = files })
	mustRun(t, k, SetupFolder(Folder{Dir: kernel.DataMount, Documents: []string{"manual.md"}}))
	hs, err := mdheadings.Read(strings.NewReader(folderManual))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, h := range hs.Headings {
		texts = append(texts, fmt.Sprintf("%d:%d:%s", h.Line, h.Level, h.Text))
	}
	if want := "1:1:Shop manual 5:2:Customers 13:2:Fees 18:3:Example 25:3:Example 27:2:Refunds 33:1: 35:2:Last"; strings.Join(texts, " ") != want {
		t.Fatalf("Go's headings: %s\nwant %s", strings.Join(texts, " "), want)
	}
	lines := strings.Split(folderManual, "\n")
	for i, h := range hs.Headings {
		if h.Text == "" {
			continue
		}
		out := execOut(t, k, fmt.Sprintf("read_doc(%s, %s)", pyString("manual.md"), pyString(strings.ToUpper(h.Text))))
		end := len(lines)
		for _, n := range hs.Headings[i+1:] {
			if n.Level <= h.Level {
				end = n.Line - 1
				break
			}
		}
		if h.Text == "Example" && h.Line == 25 { // a repeated heading: the first is printed
			continue
		}
		want := fmt.Sprintf("manual.md, lines %d-%d:\n%s\n", h.Line, end, strings.Join(lines[h.Line-1:end], "\n"))
		if out != want {
			t.Errorf("read_doc of %q printed\n%q\nwant\n%q", h.Text, out, want)
		}
	}
	if out := execOut(t, k, `read_doc("manual.md", "fee")`); !strings.HasPrefix(out, "manual.md, lines 13-26:\n## Fees\n") {
		t.Errorf("a heading's part: %q", out)
	}
	if out := execOut(t, k, `read_doc("manual.md", "e")`); !strings.Contains(out, "manual.md: 5 headings match 'e'; its headings are:\n  line 1: # Shop manual\n") {
		t.Errorf("an ambiguous heading: %q", out)
	}
	if out := execOut(t, k, `read_doc("manual.md", "Taxes")`); !strings.Contains(out, "no heading matches 'Taxes'") || !strings.Contains(out, "  line 35: ## Last") {
		t.Errorf("a missing heading: %q", out)
	}
	if out := execOut(t, k, `read_doc("manual.md")`); out != folderManual+"\n" {
		t.Errorf("the whole manual: %q", out)
	}
}

func execOut(t *testing.T, k *kernel.Kernel, code string) string {
	t.Helper()
	ex, err := k.Execute(context.Background(), code, kernel.ExecOptions{Timeout: time.Minute})
	if err != nil || ex.Status != kernel.StatusOK {
		t.Fatalf("%s: %v %v\n%s", code, err, ex.Error, traceback(ex))
	}
	return ex.Stdout()
}

// A folder table's profile cells call the profile's functions
// (profileFunctions): each tagged cell's outputs are the bytes the profile
// stage's own cell gives on the same table, and the names the stages after
// it read are the same. The first table defines the functions; the second
// calls them again.
func TestProfileFunctionsAsCells(t *testing.T) {
	_, files := writeShopFolder(t)
	k := kerneltest.Start(t, func(o *kernel.Options) { o.DataFiles = files })
	f := Folder{Dir: kernel.DataMount, Tables: []FolderTable{{Name: "crm/customers", Path: "crm/customers.json"}, {Name: "orders", Path: "orders.csv"}}}
	mustRun(t, k, SetupFolder(f))
	mustRun(t, k, LoadFolder(f))
	names := `print(json.dumps({"rows": rows, "column_info": column_info, "alerts": alerts, "sketch": sketch,` +
		` "value_counts": {k: v.to_dict() for k, v in value_counts.items()}}, default=str, sort_keys=True))`
	for i, tb := range f.Tables {
		mustRun(t, k, LoadTable(tb))
		bind := Stage{Name: "bind", Cells: []Cell{Code("df, load_info = tables[" + pyString(tb.Name) + "], load_infos[" + pyString(tb.Name) + "]\n" +
			"for n in ['rows', 'column_info', 'alerts', 'sketch', 'value_counts']:\n    globals().pop(n, None)")}}
		// Called first, with the names gone: the calls must bind them.
		mustRun(t, k, bind)
		st := ProfileTable(tb.Name, i == 0)
		called := tagged(mustRun(t, k, st), st)
		calledNames := pyText(t, k, names)
		mustRun(t, k, bind)
		direct := tagged(mustRun(t, k, ProfileStage()), ProfileStage())
		directNames := pyText(t, k, names)
		if len(called) != 4 {
			t.Fatalf("%s: %d tagged cells, want the profile's 4", tb.Name, len(called))
		}
		for tag, want := range direct {
			if diff := cmp.Diff(want, called[tag]); diff != "" {
				t.Errorf("%s: the outputs of %s differ when called (-direct +called):\n%s", tb.Name, tag, diff)
			}
		}
		if calledNames != directNames {
			t.Errorf("%s: the names after the calls differ:\n%s\n%s", tb.Name, directNames, calledNames)
		}
	}
}

// tagged are the outputs of st's tagged code cells, by tag.
func tagged(r stageRun, st Stage) map[string][]nbformat.Output {
	out := map[string][]nbformat.Output{}
	i := 0
	for _, c := range st.Cells {
		if c.Markdown {
			continue
		}
		if len(c.Tags) > 0 {
			outs := nbformat.CopyOutputs(r.execs[i].Outputs)
			for j := range outs {
				outs[j].ExecutionCount = nil // the kernel's count, not the cell's
			}
			out[c.Tags[0]] = outs
		}
		i++
	}
	return out
}

// pyText is what code prints in the kernel.
func pyText(t *testing.T, k *kernel.Kernel, code string) string {
	t.Helper()
	return mustRun(t, k, Stage{Name: "print", Cells: []Cell{Code(code)}}).execs[0].Stdout()
}
