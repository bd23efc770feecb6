package pipeline_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/dataset"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/examples"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/pipeline"
	"github.com/analyst-cli/analyst/runrecord"
)

func salesCSV(t testing.TB, dir string, rows int) string {
	t.Helper()
	p := filepath.Join(dir, "sales.csv")
	var b bytes.Buffer
	if err := examples.WriteSales(&b, rows, 3); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func options(t testing.TB, data, out string) pipeline.Options {
	return pipeline.Options{
		Data: data, OutDir: out, Kernel: kerneltest.Options(t),
		AnalystVersion: "test", ImageID: "test-image", Versions: map[string]string{"python": "3.11.2"},
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func sha(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func run(t *testing.T, opts pipeline.Options) *pipeline.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := pipeline.Run(ctx, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	recordRoundTrips(t, res.Files.Manifest)
	return res
}

// recordRoundTrips checks that the run.json a run wrote is the schema's,
// whole: read through the one reader, decoded with no field the schema
// lacks (a field added to the writer but not to runrecord fails here), and
// written again to the same JSON (nothing the schema drops or changes; the
// same values, as bytes differ only where the writer escaped a name that
// is not UTF-8).
func recordRoundTrips(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runrecord.Read(path); err != nil {
		t.Fatalf("runrecord.Read(%s): %v", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var rec runrecord.Record
	if err := dec.Decode(&rec); err != nil {
		t.Fatalf("%s has what runrecord.Record does not: %v", path, err)
	}
	again, err := json.MarshalIndent(&rec, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(again, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s decoded into runrecord.Record and written again is other JSON:\n%s", path, firstDiff(b, again))
	}
}

// firstDiff shows where two texts first differ, with some context.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-200)
	return fmt.Sprintf("at byte %d:\n- %s\n+ %s", i, a[from:min(len(a), i+200)], b[from:min(len(b), i+200)])
}

func TestRunWritesNotebookReportChartsAndManifest(t *testing.T) {
	dir := t.TempDir()
	data := salesCSV(t, dir, 3000)
	before := sha(t, data)
	out := filepath.Join(dir, "out")
	opts := options(t, data, out)
	var progress []pipeline.Event
	opts.Progress = func(e pipeline.Event) {
		if e.Type == pipeline.EventProgress {
			progress = append(progress, e)
		}
	}
	res := run(t, opts)

	// The long cells of the distributions and visualization stages say how far
	// they have got; the last step of each is always sent, however fast.
	for _, want := range []struct{ stage, unit, message string }{
		{eda.StageDistributions, "columns", "ranked 4 of 4 columns for Spearman's rho"},
		{eda.StageVisualization, "pairs", "drew 3 of 3 pairs"},
		{eda.StageVisualization, "columns", "drew 4 of 4 columns by product"},
	} {
		found := false
		for _, e := range progress {
			found = found || e.Stage == want.stage && e.Unit == want.unit && e.Message == want.message && e.Done == e.Total && e.Cell > 0
		}
		if !found {
			t.Errorf("no progress %q (%s) in stage %s; got %+v", want.message, want.unit, want.stage, progress)
		}
	}

	for _, p := range []string{res.Files.Notebook, res.Files.Report, res.Files.Manifest} {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
	if filepath.Base(res.Files.Notebook) != "sales.ipynb" {
		t.Errorf("notebook name %s", res.Files.Notebook)
	}
	if after := sha(t, data); after != before {
		t.Errorf("the input changed: %s -> %s", before, after)
	}
	nb, err := nbformat.ReadFile(res.Files.Notebook)
	if err != nil {
		t.Fatal(err)
	}
	stages := map[string]int{}
	for _, c := range nb.Cells {
		for _, tag := range c.Metadata.Tags {
			if s, ok := strings.CutPrefix(tag, "stage:"); ok {
				stages[s]++
			}
		}
		if c.HasTag("error") {
			t.Errorf("cell %s failed: %+v", c.ID, c.Outputs)
		}
	}
	for _, s := range []string{eda.StageSetup, eda.StageLoad, eda.StageProfile, eda.StageDistributions, eda.StageVisualization} {
		if stages[s] == 0 {
			t.Errorf("no cells for stage %s (have %v)", s, stages)
		}
	}
	checkOpensOnResults(t, nb, res.Files.Notebook)
	if res.Profile == nil || res.Profile.Rows != 3000 || res.Profile.Columns != 10 {
		t.Fatalf("profile: %+v", res.Profile)
	}
	if len(res.Files.Charts) < 4 {
		t.Errorf("charts: %v, want histograms, bars, heatmap, time series", res.Files.Charts)
	}
	for _, c := range res.Files.Charts {
		b, err := os.ReadFile(c)
		if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("chart %s: %v", c, err)
		}
		if _, err := os.Stat(strings.TrimSuffix(c, ".png") + ".json"); err != nil {
			t.Errorf("chart description: %v", err)
		}
	}
	var m runrecord.Record
	b, _ := os.ReadFile(res.Files.Manifest)
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Data.SHA256 != before || m.Data.Rows != 3000 || m.Data.Columns != 10 || m.Failure != "" || len(m.Stages) != 5 {
		t.Errorf("manifest: %+v", m)
	}
	if m.Limits.Memory == "" || m.Limits.Output == "" || m.Driver != kernel.DriverHash() {
		t.Errorf("manifest lacks limits or driver: %+v", m)
	}
	// Where memory is limited per process only, manifest and report say so.
	html, _ := os.ReadFile(res.Files.Report)
	if perProcess := strings.Contains(m.Limits.Memory, "per process only"); perProcess == m.Limits.Totals ||
		!bytes.Contains(html, []byte(htmlEscape(m.Limits.Memory))) {
		t.Errorf("memory limit: manifest %q (totals %v); in the report: %v", m.Limits.Memory, m.Limits.Totals, bytes.Contains(html, []byte(htmlEscape(m.Limits.Memory))))
	}
	if !bytes.Contains(html, []byte("sales.csv")) || !bytes.Contains(html, []byte("data:image/png;base64,")) {
		t.Errorf("report lacks the data name or inline charts")
	}
	checkReportShapes(t, string(html), res.Profile)
	// Each generated stage folds its method below its results, closed.
	if n := strings.Count(string(html), `<details class="method">`); n != 5 || strings.Contains(string(html), `<details class="method" open`) {
		t.Errorf("%d closed method disclosures, want one per stage (5)", n)
	}
	// Nothing but the run's files is left in the output folder.
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if want := "sales.html sales.ipynb sales.run.json sales_files"; strings.Join(names, " ") != want {
		t.Errorf("output folder holds %v, want %s", names, want)
	}
}

func TestRunIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	data := salesCSV(t, dir, 1500)
	a := run(t, options(t, data, filepath.Join(dir, "a")))
	b := run(t, options(t, data, filepath.Join(dir, "b")))
	na, _ := os.ReadFile(a.Files.Notebook)
	nb, _ := os.ReadFile(b.Files.Notebook)
	if !bytes.Equal(na, nb) {
		t.Errorf("two runs of the same data gave different notebooks")
	}
	for i := range a.Files.Charts {
		if sha(t, a.Files.Charts[i]) != sha(t, b.Files.Charts[i]) {
			t.Errorf("chart %d differs between runs", i+1)
		}
	}
}

func TestRerunReplacesThePreviousRunWhole(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	wide := filepath.Join(dir, "wide.csv")
	var b strings.Builder
	for i := 0; i < 8; i++ {
		fmt.Fprintf(&b, "c%d,", i)
	}
	b.WriteString("label\n")
	for r := 0; r < 200; r++ {
		for i := 0; i < 8; i++ {
			fmt.Fprintf(&b, "%d,", (r*(i+3))%97)
		}
		fmt.Fprintf(&b, "k%d\n", r%5)
	}
	os.WriteFile(wide, []byte(b.String()), 0o644)
	narrow := filepath.Join(dir, "narrow.csv")
	os.WriteFile(narrow, []byte("x\n1\n2\n3\n4\n"), 0o644)

	o := options(t, wide, out)
	o.Name = "report"
	first := run(t, o)
	o.Data = narrow
	second := run(t, o)
	if len(second.Files.Charts) >= len(first.Files.Charts) {
		t.Fatalf("test needs fewer charts the second time: %d then %d", len(first.Files.Charts), len(second.Files.Charts))
	}
	files, _ := filepath.Glob(filepath.Join(out, "report_files", "*"))
	for _, f := range files {
		if strings.HasSuffix(f, ".png") && !contains(second.Files.Charts, f) {
			t.Errorf("chart %s of the first run is still there", f)
		}
	}
	var m runrecord.Record
	mb, _ := os.ReadFile(filepath.Join(out, "report.run.json"))
	json.Unmarshal(mb, &m)
	if m.Data.Name != "narrow.csv" {
		t.Errorf("manifest is of %s", m.Data.Name)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Every bad-input shape is refused before a kernel starts (the options name
// no image, so reaching kernel.Start would be a SandboxError), with an
// error that names the file.
func TestBadInputIsRejectedBeforeTheKernel(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, content []byte, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, content, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	unreadable := write("secret.csv", []byte("a\n1\n"), 0o000)
	garbage := make([]byte, 4096)
	for i := range garbage {
		garbage[i] = byte(i * 7919 % 251)
	}
	tests := []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "nosuch.csv"), "no such file"},
		{"directory of unreadable tables", dir, "files cannot be read (pass --skip-unreadable to analyse the folder without them)"},
		{"empty", write("empty.csv", nil, 0o644), "the file is empty"},
		{"blank", write("blank.csv", []byte("\n  \r\n\t\n"), 0o644), "only blank space"},
		{"binary", write("garbage.csv", garbage, 0o644), "looks binary (NUL bytes"},
		{"control characters", write("controls.tsv", bytes.Repeat([]byte("a\x01\x02\x03\x04\n"), 100), 0o644), "looks binary (many control characters"},
		{"binary json", write("garbage.json", garbage, 0o644), "looks binary"},
		{"binary gzipped", write("garbage.csv.gz", gz(t, garbage), 0o644), "looks binary"},
		{"not gzip", write("plain.csv.gz", []byte("a,b\n1,2\n"), 0o644), "named .gz but is not gzip-compressed"},
		{"broken gzip", write("broken.csv", []byte("\x1f\x8b\x08\x00garbage"), 0o644), "cannot be decompressed"},
		{"zip named csv", write("zipped.csv", append([]byte("PK\x03\x04"), garbage...), 0o644), "is a zip archive"},
		{"xlsx that is not a workbook", write("sheet.xlsx", []byte("a,b\n1,2\n"), 0o644), "named like an Excel workbook (.xlsx), but the file is not one"},
		{"pdf named csv", write("report.csv", append([]byte("%PDF-1.7\n"), garbage...), 0o644), "a PDF document"},
		{"sqlite named csv", write("db.csv", append([]byte("SQLite format 3\x00"), garbage...), 0o644), "an SQLite database"},
		{"png named json", write("chart.json", append([]byte("\x89PNG\r\n\x1a\n"), garbage...), 0o644), "a PNG image"},
		{"parquet by extension", write("x.parquet", []byte("PAR1...."), 0o644), "x.parquet: not a readable Parquet file"},
		{"parquet by magic", write("x", []byte("PAR1\x00\x00\x00\x00"), 0o644), "x: not a readable Parquet file"},
		{"parquet named wrong", write("y.parquet", []byte("a,b\n1,2\n"), 0o644), "y.parquet: named like a Parquet file, but the file is not one"},
		{"unknown extension", write("x.sas", []byte("data"), 0o644), "unknown file type .sas"},
		{"no extension", write("data", []byte("a\n1\n"), 0o644), "no extension"},
		{"xls not OLE", write("x.xls", []byte("<html><table>"), 0o644), "x.xls: named like an Excel 97-2003 workbook (.xls), but the file is not one"},
		{"ods not zip", write("x.ods", []byte("a,b\n"), 0o644), "named like an OpenDocument spreadsheet (.ods), but"},
		{"sav not SPSS", write("x.sav", []byte("data"), 0o644), "named like an SPSS data file (.sav), but"},
		{"dta not Stata", write("x.dta", []byte("data"), 0o644), "named like a Stata data file (.dta), but"},
		{"sas7bdat not SAS", write("x.sas7bdat", []byte("data"), 0o644), "named like a SAS data set (.sas7bdat), but"},
		{"xpt not SAS", write("x.xpt", []byte("data"), 0o644), "named like a SAS transport file (.xpt), but"},
		{"sqlite not SQLite", write("x.sqlite", []byte("data"), 0o644), "named like an SQLite database, but"},
		{"gzipped sav", write("x.sav.gz", []byte("\x1f\x8b"), 0o644), "cannot be read gzip-compressed"},
		{"feather", write("x.feather", []byte("ARROW1"), 0o644), "need pyarrow"},
	}
	if os.Geteuid() != 0 { // root reads anything
		tests = append(tests, struct{ name, path, want string }{"unreadable", unreadable, "permission denied"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(tt.name, " ", "-"))
			var events []pipeline.Event
			_, err := pipeline.Run(context.Background(), pipeline.Options{Data: tt.path, OutDir: out, Progress: func(e pipeline.Event) { events = append(events, e) }})
			var ie *dataset.InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want an InputError containing %q", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), tt.path+": ") {
				t.Errorf("error %q does not start with the file's name %s", err, tt.path)
			}
			if len(events) > 0 {
				t.Errorf("the run got as far as %+v", events)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("output folder created for input that was rejected up front")
			}
		})
	}
}

// What the kernel's loader reads passes the checks, odd first bytes or not.
func TestGoodInputPassesTheChecks(t *testing.T) {
	dir := t.TempDir()
	utf16 := []byte{0xff, 0xfe}
	for _, r := range "a,b\n1,2\n" {
		utf16 = append(utf16, byte(r), 0)
	}
	for name, content := range map[string][]byte{
		"plain.csv":        []byte("a,b\n1,2\n"),
		"starts-par1.csv":  []byte("PAR1,PAR2\n1,2\n"),
		"latin1.csv":       []byte("name,city\nJos\xe9,M\xe1laga\n"),
		"utf16.csv":        utf16,
		"bom.tsv":          []byte("\xef\xbb\xbfa\tb\n1\t2\n"),
		"gzipped.csv.gz":   gz(t, []byte("a,b\n1,2\n")),
		"gzip-unnamed.csv": gz(t, []byte("a,b\n1,2\n")),
		"rows.jsonl":       []byte("{\"a\": 1}\n{\"a\": 2}\n"),
		"book.xlsx":        []byte("PK\x03\x04\x14\x00\x06\x00"),
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := dataset.CheckFile(p); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestBadDataStillWritesWhatItGot(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "header.csv")
	os.WriteFile(data, []byte("a,b,c\n"), 0o644)
	res, err := pipeline.Run(context.Background(), options(t, data, filepath.Join(dir, "out")))
	var de *dataset.DataError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v, want a DataError", err)
	}
	if res == nil || res.Failure == "" {
		t.Fatalf("result %+v", res)
	}
	html, rerr := os.ReadFile(res.Files.Report)
	if rerr != nil || !bytes.Contains(html, []byte("no data rows")) {
		t.Errorf("report does not show the failure: %v", rerr)
	}
	nb, rerr := nbformat.ReadFile(res.Files.Notebook)
	if rerr != nil {
		t.Fatal(rerr)
	}
	failed := 0
	for _, c := range nb.Cells {
		if c.HasTag("error") {
			failed++
		}
	}
	if failed != 1 {
		t.Errorf("notebook has %d failed cells, want the load cell", failed)
	}
}

func TestInterruptedRunWritesWhatItHas(t *testing.T) {
	dir := t.TempDir()
	data := salesCSV(t, dir, 2000)
	ctx, cancel := context.WithCancel(context.Background())
	o := options(t, data, filepath.Join(dir, "out"))
	o.Progress = func(e pipeline.Event) {
		if e.Type == "stage-start" && e.Stage == eda.StageDistributions {
			cancel()
		}
	}
	res, err := pipeline.Run(ctx, o)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res == nil || !strings.Contains(res.Failure, "interrupted") {
		t.Fatalf("result %+v", res)
	}
	if _, err := os.Stat(res.Files.Report); err != nil {
		t.Errorf("no report after interrupt: %v", err)
	}
	if res.Profile == nil {
		t.Errorf("the profile done before the interrupt was lost")
	}
}

func htmlEscape(s string) string { return template.HTMLEscapeString(s) }

// checkOpensOnResults checks that the notebook opens on results in
// JupyterLab: the plumbing cells (setup, loader, the profile's
// computation, chart helpers) have their code folded and a first line
// saying what they do; every other code cell shows its code.
func checkOpensOnResults(t *testing.T, nb *nbformat.Notebook, file string) {
	t.Helper()
	plumbing := []string{eda.TagSetup, eda.TagLoadData, "profile-columns", "profile-alerts", eda.ProfileTag, eda.SketchTag, "chart-helpers"}
	seen := map[string]bool{}
	for _, c := range nb.Cells {
		if c.CellType != nbformat.Code {
			continue
		}
		isPlumbing := false
		for _, tag := range plumbing {
			if c.HasTag(tag) {
				isPlumbing, seen[tag] = true, true
			}
		}
		first, _, _ := strings.Cut(c.Source, "\n")
		switch {
		case isPlumbing && (!c.Metadata.SourceHidden || !strings.HasPrefix(first, "# ") || len(first) < 20):
			t.Errorf("plumbing cell %v: source_hidden %v, first line %q; want folded, with a comment saying what it does", c.Metadata.Tags, c.Metadata.SourceHidden, first)
		case !isPlumbing && c.Metadata.SourceHidden:
			t.Errorf("cell %v is folded: only plumbing is", c.Metadata.Tags)
		}
	}
	for _, tag := range plumbing {
		if !seen[tag] {
			t.Errorf("no %s cell", tag)
		}
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var onDisk struct {
		Cells []struct {
			Metadata struct {
				Jupyter struct {
					SourceHidden bool `json:"source_hidden"`
				} `json:"jupyter"`
			} `json:"metadata"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(raw, &onDisk); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range onDisk.Cells {
		if c.Metadata.Jupyter.SourceHidden {
			n++
		}
	}
	if n != len(plumbing) {
		t.Errorf("%d cells carry metadata.jupyter.source_hidden = true, want %d", n, len(plumbing))
	}
}

// checkReportShapes checks that the report's columns table draws each
// numeric and date column's histogram (from the sketch the notebook
// holds) and each categorical column's top values.
func checkReportShapes(t *testing.T, html string, p *eda.Profile) {
	t.Helper()
	drawn := 0
	for _, c := range p.ColumnInfo {
		var label string
		switch c.Kind {
		case eda.KindNumeric:
			label = `aria-label="Histogram of ` + c.Name + `,`
		case eda.KindDatetime:
			label = `aria-label="Rows over time of ` + c.Name + `,`
		case eda.KindCategorical:
			label = `aria-label="Most frequent values of ` + c.Name + `:`
		default:
			continue
		}
		drawn++
		if !strings.Contains(html, `<td class="shape"><svg class="spark"`) || !strings.Contains(html, label) {
			t.Errorf("column %s (%s): no sparkline %s in the report", c.Name, c.Kind, label)
		}
	}
	if drawn < 3 {
		t.Errorf("only %d columns to draw: the sales data should have numeric, date and categorical ones", drawn)
	}
}
