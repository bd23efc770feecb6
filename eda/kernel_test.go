package eda

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/examples"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

const cellTimeout = 5 * time.Minute

// stageRun is what running one stage's code cells gave.
type stageRun struct {
	execs []*kernel.Execution
	err   *kernel.Execution // the first cell that did not end ok
	took  time.Duration
}

// runStage runs the code cells of st in order, stopping at the first that
// does not end ok.
func runStage(t testing.TB, k *kernel.Kernel, st Stage) stageRun {
	t.Helper()
	start := time.Now()
	var r stageRun
	for _, c := range st.Cells {
		if c.Markdown {
			continue
		}
		ex, err := k.Execute(context.Background(), c.Source, kernel.ExecOptions{Timeout: cellTimeout})
		if err != nil {
			t.Fatalf("stage %s: %v", st.Name, err)
		}
		r.execs = append(r.execs, ex)
		if ex.Status != kernel.StatusOK {
			r.err = ex
			break
		}
	}
	r.took = time.Since(start)
	return r
}

// mustRun runs st and fails the test on any cell that does not end ok.
func mustRun(t testing.TB, k *kernel.Kernel, st Stage) stageRun {
	t.Helper()
	r := runStage(t, k, st)
	if r.err != nil {
		t.Fatalf("stage %s: cell ended %s: %s\n%s", st.Name, r.err.Status, r.err.Error, traceback(r.err))
	}
	// A library's warning (a pandas FutureWarning, a Matplotlib glyph
	// warning) would print into the notebook and the report.
	for i, ex := range r.execs {
		if strings.Contains(ex.Stderr(), "Warning") {
			t.Errorf("stage %s, cell %d wrote a warning:\n%s", st.Name, i, ex.Stderr())
		}
	}
	return r
}

func traceback(ex *kernel.Execution) string {
	if ex.Error == nil {
		return ex.Cause + ex.Stderr()
	}
	return strings.Join(ex.Error.Traceback, "\n")
}

// profileOf finds the profile among a stage's outputs.
func profileOf(t testing.TB, r stageRun) *Profile {
	t.Helper()
	for _, ex := range r.execs {
		for _, o := range ex.Outputs {
			p, ok, err := ProfileFromData(o.Data)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				return p
			}
		}
	}
	t.Fatal("no output with the profile's mime type")
	return nil
}

// pyValue runs code that prints JSON and decodes it into v.
func pyValue(t testing.TB, k *kernel.Kernel, code string, v any) {
	t.Helper()
	ex, err := k.Execute(context.Background(), code, kernel.ExecOptions{Timeout: time.Minute})
	if err != nil || ex.Status != kernel.StatusOK {
		t.Fatalf("%s: %v %v\n%s", code, err, ex.Error, traceback(ex))
	}
	if err := json.Unmarshal([]byte(ex.Stdout()), v); err != nil {
		t.Fatalf("%s printed %q: %v", code, ex.Stdout(), err)
	}
}

func (p *Profile) col(t *testing.T, name string) Column {
	t.Helper()
	for _, c := range p.ColumnInfo {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no column %q in the profile; columns: %v", name, p.names())
	return Column{}
}

func (p *Profile) names() []string {
	var out []string
	for _, c := range p.ColumnInfo {
		out = append(out, c.Name)
	}
	return out
}

func (p *Profile) hasAlert(typ, column string) bool {
	for _, a := range p.Alerts {
		if a.Type == typ && (column == "" || a.Column == column || slices.Contains(a.Columns, column)) {
			return true
		}
	}
	return false
}

func wantKinds(t *testing.T, p *Profile, kinds map[string]string) {
	t.Helper()
	for name, kind := range kinds {
		if got := p.col(t, name).Kind; got != kind {
			t.Errorf("column %q: kind %s, want %s", name, got, kind)
		}
	}
}

func wantNote(t *testing.T, p *Profile, substr string) {
	t.Helper()
	for _, n := range p.Load.Notes {
		if strings.Contains(n, substr) {
			return
		}
	}
	t.Errorf("no load note contains %q; notes: %q", substr, p.Load.Notes)
}

// chartKinds lists the kinds of the charts a stage drew.
func chartKinds(r stageRun) []string {
	var kinds []string
	for _, ex := range r.execs {
		for _, c := range ex.Charts() {
			kinds = append(kinds, c.Kind)
		}
	}
	return kinds
}

// ---- data the tests write -------------------------------------------------

func csvOf(header []string, rows [][]string) []byte {
	var b bytes.Buffer
	b.WriteString(strings.Join(header, ",") + "\n")
	for _, r := range rows {
		b.WriteString(strings.Join(r, ",") + "\n")
	}
	return b.Bytes()
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// alertsData is a 300-row CSV with a column crafted for each column alert,
// and x, a column whose statistics the test computes in Go.
func alertsData() (data []byte, x []float64) {
	r := rand.New(rand.NewPCG(7, 11))
	const n = 300
	header := []string{"id", "x", "y", "skewed", "constant", "mostly_missing", "empty", "category",
		"when", "dates_text", "mixed", "region"}
	var rows [][]string
	day := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		xi := 50 + 10*r.NormFloat64()
		x = append(x, xi)
		row := []string{
			strconv.Itoa(1000 + i),
			fmtFloat(xi),
			fmtFloat(2*xi + r.NormFloat64()*0.1),
			fmtFloat(math.Exp(1.5 * r.NormFloat64())),
			"same",
			"",
			"",
			fmt.Sprintf("cat%03d", i%100),
			day.AddDate(0, 0, i).Format("2006-01-02"),
			day.AddDate(0, 0, i%40).Format("2006-01-02"),
			strconv.Itoa(i % 17),
			[]string{"North", "South", "East", "West"}[i%4],
		}
		if i%5 < 2 {
			row[5] = strconv.Itoa(i) // 40% present, 60% missing
		}
		if i%10 >= 7 {
			row[9] = "see notes" // 70% dates ("unknown" would be a missing-value marker)
		}
		if i%5 == 0 {
			row[10] = "n.a."
		}
		rows = append(rows, row)
	}
	return csvOf(header, rows), x
}

// ---- statistics in Go, as the formulas in the notebook state them ----------

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func moment(x []float64, k float64) float64 {
	m, s := mean(x), 0.0
	for _, v := range x {
		s += math.Pow(v-m, k)
	}
	return s / float64(len(x))
}

func stdDev(x []float64) float64 {
	n := float64(len(x))
	return math.Sqrt(moment(x, 2) * n / (n - 1))
}

func quantile(x []float64, p float64) float64 {
	s := slices.Clone(x)
	sort.Float64s(s)
	h := float64(len(s)-1) * p // 0-based h
	lo := math.Floor(h)
	if int(lo)+1 >= len(s) {
		return s[int(lo)]
	}
	return s[int(lo)] + (h-lo)*(s[int(lo)+1]-s[int(lo)])
}

func skewness(x []float64) float64 {
	n := float64(len(x))
	return math.Sqrt(n*(n-1)) / (n - 2) * moment(x, 3) / math.Pow(moment(x, 2), 1.5)
}

func kurtosis(x []float64) float64 {
	n := float64(len(x))
	return (n - 1) / ((n - 2) * (n - 3)) * ((n+1)*moment(x, 4)/math.Pow(moment(x, 2), 2) - 3*(n-1))
}

func near(got, want float64) bool {
	return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want))
}

// ---- the tests -------------------------------------------------------------

type loadCase struct {
	name  string // file name under /data
	path  string // where the kernel reads it, if not /data/NAME
	data  []byte
	check func(t *testing.T, k *kernel.Kernel, p *Profile)
	// charts the distributions stage must draw (kinds, in any order)
	charts []string
}

func TestLoadProfileDistributions(t *testing.T) {
	dir := t.TempDir()
	out := t.TempDir()
	alertsCSV, x := alertsData()

	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("a,b\n1,x\n2,y\n3,z\n"))
	zw.Close()

	weird := []string{"first name", "it's", `say "hi"`, `back\slash`, "naïve 日本", "<b>html</b>",
		"cost $ (USD) $x$", "multi\nline", "{{DATE}}", " padded ", "a`b"}
	var weirdCSV bytes.Buffer
	for i, n := range weird {
		if i > 0 {
			weirdCSV.WriteString(",")
		}
		weirdCSV.WriteString(`"` + strings.ReplaceAll(n, `"`, `""`) + `"`)
	}
	weirdCSV.WriteString("\n")
	for i := range 30 {
		for j := range weird {
			if j > 0 {
				weirdCSV.WriteString(",")
			}
			if j%2 == 0 {
				fmt.Fprintf(&weirdCSV, "%d", i*(j+1)%23)
			} else {
				fmt.Fprintf(&weirdCSV, "v%d", i%(j+2))
			}
		}
		weirdCSV.WriteString("\n")
	}

	var wide bytes.Buffer
	r := rand.New(rand.NewPCG(3, 5))
	for j := range 500 {
		if j > 0 {
			wide.WriteString(",")
		}
		fmt.Fprintf(&wide, "col%03d", j)
	}
	wide.WriteString("\n")
	for i := range 200 {
		for j := range 500 {
			if j > 0 {
				wide.WriteString(",")
			}
			switch {
			case j%5 == 4:
				fmt.Fprintf(&wide, "level%d", r.IntN(2+j%7))
			case j%7 == 3 && i%9 == 0:
				// missing
			default:
				wide.WriteString(fmtFloat(math.Round(r.NormFloat64()*1000*float64(j+1)) / 1000))
			}
		}
		wide.WriteString("\n")
	}

	cases := []loadCase{
		{name: "alerts.csv", data: alertsCSV, charts: []string{"hist", "bar", "heatmap", "bar", "line"},
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				if p.Rows != 300 || p.Columns != 12 {
					t.Errorf("shape %d × %d, want 300 × 12", p.Rows, p.Columns)
				}
				if l := p.Load; l.Format != "csv" || l.Encoding != "utf-8" || l.Delimiter != "," || l.Decimal != "." || l.BOM {
					t.Errorf("load info %+v", l)
				}
				if !slices.Equal(p.Load.ParsedDates, []string{"when"}) {
					t.Errorf("parsed dates %q, want [when]", p.Load.ParsedDates)
				}
				wantKinds(t, p, map[string]string{"id": KindNumeric, "x": KindNumeric, "constant": KindCategorical,
					"empty": KindEmpty, "category": KindCategorical, "when": KindDatetime, "dates_text": KindCategorical,
					"mixed": KindCategorical})
				for _, a := range []struct{ typ, col string }{
					{AlertUniqueID, "id"}, {AlertConstant, "constant"}, {AlertHighMissing, "mostly_missing"},
					{AlertEmpty, "empty"}, {AlertHighCardinality, "category"}, {AlertSkewed, "skewed"},
					{AlertHighCorrelation, "x"}, {AlertHighCorrelation, "y"}, {AlertDatesAsText, "dates_text"},
					{AlertMixedTypes, "mixed"},
				} {
					if !p.hasAlert(a.typ, a.col) {
						t.Errorf("no %s alert for %s; alerts: %+v", a.typ, a.col, p.Alerts)
					}
				}
				for _, a := range []struct{ typ, col string }{
					{AlertUniqueID, "x"}, {AlertSkewed, "x"}, {AlertHighMissing, "empty"}, {AlertDuplicates, ""},
					{AlertUniqueID, "when"}, {AlertHighCardinality, "region"},
				} {
					if p.hasAlert(a.typ, a.col) {
						t.Errorf("unexpected %s alert for %q", a.typ, a.col)
					}
				}
				c := p.col(t, "x")
				if c.Mean == nil || !near(*c.Mean, mean(x)) || !near(*c.Std, stdDev(x)) || !near(*c.Skew, skewness(x)) {
					t.Errorf("x: mean %v std %v skew %v; want %v %v %v", *c.Mean, *c.Std, *c.Skew, mean(x), stdDev(x), skewness(x))
				}
				if mm := p.col(t, "mostly_missing"); mm.Missing != 180 || !near(mm.MissingShare, 0.6) {
					t.Errorf("mostly_missing: %d missing (%v), want 180 (0.6)", mm.Missing, mm.MissingShare)
				}
				if w := p.col(t, "when"); w.MinDate != "2023-01-01T00:00:00" || w.MaxDate != "2023-10-27T00:00:00" {
					t.Errorf("when: dates %s to %s", w.MinDate, w.MaxDate)
				}
				if reg := p.col(t, "region"); len(reg.Top) != 4 || reg.Top[0].Count != 75 || !near(reg.Top[0].Share, 0.25) {
					t.Errorf("region top values %+v", reg.Top)
				}
			}},
		{name: "latin1.csv", data: []byte("name,city\nRen\xe9,Mons\nJos\xe9,Li\xe8ge\nAnn,Caf\xe9 town\n"),
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				if p.Load.Encoding != "latin-1" || p.Load.BOM {
					t.Errorf("encoding %q bom %v, want latin-1", p.Load.Encoding, p.Load.BOM)
				}
				wantNote(t, p, "Latin-1")
				if s := p.col(t, "name").Sample; !slices.Contains(s, "René") {
					t.Errorf("name sample %q lacks René", s)
				}
			}},
		{name: "bom.csv", data: []byte("\xef\xbb\xbfid,value\n1,2.5\n2,3.5\n"),
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				if p.Load.Encoding != "utf-8-sig" || !p.Load.BOM {
					t.Errorf("encoding %q bom %v, want utf-8-sig with BOM", p.Load.Encoding, p.Load.BOM)
				}
				if p.ColumnInfo[0].Name != "id" {
					t.Errorf("first column %q, want id (BOM stripped)", p.ColumnInfo[0].Name)
				}
			}},
		{name: "european.csv", data: []byte("Produkt;Menge;Preis\nApfel;3,5;1.234,50\nBirne;1,25;2,75\nKiwi;10;0,5\n"),
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				if p.Load.Delimiter != ";" || p.Load.Decimal != "," {
					t.Errorf("delimiter %q decimal %q, want ; and ,", p.Load.Delimiter, p.Load.Decimal)
				}
				wantKinds(t, p, map[string]string{"Menge": KindNumeric, "Preis": KindNumeric, "Produkt": KindCategorical})
				m := p.col(t, "Menge")
				if m.Max == nil || *m.Max != 10 || *m.Min != 1.25 || !near(*m.Mean, (3.5+1.25+10)/3) {
					t.Errorf("Menge min %v max %v mean %v", m.Min, m.Max, m.Mean)
				}
				var first float64
				pyValue(t, k, `print(json.dumps(float(df["Menge"].iloc[0])))`, &first)
				if first != 3.5 {
					t.Errorf("3,5 read as %v", first)
				}
				if pr := p.col(t, "Preis"); pr.Max == nil || *pr.Max != 1234.5 {
					t.Errorf("1.234,50 read as max %v, want 1234.5", pr.Max)
				}
			}},
		{name: "data.csv.gz", data: gz.Bytes(),
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				if p.Load.Compression != "gzip" || p.Load.Format != "csv" || p.Rows != 3 {
					t.Errorf("load %+v rows %d", p.Load, p.Rows)
				}
			}},
		{name: "table.tsv", data: []byte("a\tb c\td\n1\tx, y\t2.5\n2\tz\t3.5\n"),
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				if p.Load.Format != "tsv" || p.Load.Delimiter != "\t" || p.Columns != 3 {
					t.Errorf("load %+v, %d columns", p.Load, p.Columns)
				}
				if s := p.col(t, "b c").Sample; !slices.Contains(s, "x, y") {
					t.Errorf("sample %q", s)
				}
			}},
		{name: "records.json", data: []byte(`[{"id": 1, "name": "a", "when": "2024-01-05", "tags": ["x"]},
			{"id": 2, "name": "b", "when": "2024-02-05", "tags": []},
			{"id": 3, "name": null, "when": "2024-03-05", "tags": ["y", "z"]}]`),
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				if p.Load.Format != "json" || p.Rows != 3 || p.Columns != 4 {
					t.Errorf("load %+v, %d × %d", p.Load, p.Rows, p.Columns)
				}
				wantKinds(t, p, map[string]string{"id": KindNumeric, "when": KindDatetime})
				if p.col(t, "name").Missing != 1 {
					t.Errorf("null not read as missing")
				}
				wantNote(t, p, "JSON text")
			}},
		{name: "lines.jsonl", data: []byte("{\"a\": 1, \"b\": \"x\"}\n{\"a\": 2.5, \"b\": \"y\"}\n{\"a\": null, \"b\": \"z\"}\n"),
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				if p.Load.Format != "jsonl" || p.Rows != 3 || p.col(t, "a").Kind != KindNumeric {
					t.Errorf("load %+v, %d rows", p.Load, p.Rows)
				}
			}},
		{name: "ragged.csv", data: []byte("a,b,c\n1,2,3\n4,5,6,7\n8,9\n10,11,12\n13,14,15,16,17\n"),
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				if p.Rows != 3 {
					t.Errorf("%d rows, want 3 (two ragged rows skipped)", p.Rows)
				}
				wantNote(t, p, "2 ragged row(s)")
				wantNote(t, p, "line(s) 3, 6")
			}},
		{name: "row_labels.csv", data: []byte("a,b\nx,1,2\ny,3,4\nz,5,6\n"),
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				if got := p.names(); !slices.Equal(got, []string{"row_label", "a", "b"}) || p.Rows != 3 {
					t.Errorf("columns %q, %d rows; want row_label, a, b and 3 rows", got, p.Rows)
				}
				wantNote(t, p, "row names")
			}},
		{name: "trailing.csv", data: []byte("a,b\n1,2,\n3,4,\n"),
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				if got := p.names(); !slices.Equal(got, []string{"a", "b"}) || *p.col(t, "a").Max != 3 {
					t.Errorf("columns %q, a %+v", got, p.col(t, "a"))
				}
				wantNote(t, p, "end with a delimiter")
			}},
		{name: "utf16.tsv", data: utf16([]byte("name\tcount\nZoë\t3\nÅsa\t4\n")),
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				if p.Load.Encoding != "utf-16" || !p.Load.BOM || p.Load.Delimiter != "\t" || p.Rows != 2 {
					t.Errorf("load %+v, %d rows", p.Load, p.Rows)
				}
				if s := p.col(t, "name").Sample; !slices.Contains(s, "Zoë") {
					t.Errorf("sample %q", s)
				}
			}},
		{name: "cp1252.csv", data: []byte("quote,price\n\x93fine\x94,\x80 5\nplain,\x80 6\n"),
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				if p.Load.Encoding != "cp1252" {
					t.Errorf("encoding %q, want cp1252", p.Load.Encoding)
				}
				if s := p.col(t, "quote").Sample; !slices.Contains(s, "\u201cfine\u201d") {
					t.Errorf("sample %q", s)
				}
			}},
		{name: "nested.json", data: []byte(`{"data": [{"id": 1, "who": {"name": "a", "age": 30}, "v": 1},
			{"id": 2, "who": {"name": "b", "age": 40}, "v": "x"}, {"id": 3, "who": {"name": "c"}, "v": null}]}`),
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				if got := p.names(); !slices.Contains(got, "who.name") || !slices.Contains(got, "who.age") {
					t.Errorf("columns %q, want flattened who.name, who.age", got)
				}
				wantNote(t, p, "'data'")
				wantNote(t, p, "flattened")
				if !p.hasAlert(AlertMixedTypes, "v") {
					t.Errorf("no mixed types alert for v (1 and \"x\"): %+v", p.Alerts)
				}
			}},
		{name: "flags.csv", data: []byte("flag,ratio,when\nTrue,1.5,2024-03-01T10:00:00+01:00\nFalse,inf,2024-03-02T10:00:00+01:00\n" +
			"True,-inf,2024-03-03T10:00:00+01:00\nTrue,2.5,2024-03-04T10:00:00+01:00\n"), charts: []string{"bar", "hist", "line"},
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				wantKinds(t, p, map[string]string{"flag": KindBoolean, "ratio": KindNumeric})
				if r := p.col(t, "ratio"); r.Max != nil || r.Min != nil {
					t.Errorf("infinite min/max should be null in JSON: %+v", r)
				}
			}},
		{name: "one_column.csv", data: []byte("amount\n1\n2\n3\n5\n"),
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				if p.Columns != 1 || p.Rows != 4 || p.ColumnInfo[0].Kind != KindNumeric {
					t.Errorf("%d × %d, %+v", p.Rows, p.Columns, p.ColumnInfo)
				}
			}},
		{name: "all_missing.csv", data: []byte("a,nothing,b\n1,,x\n2,,y\n2,,x\n"), charts: []string{"hist", "bar", "bar"},
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				if c := p.col(t, "nothing"); c.Kind != KindEmpty || c.Missing != 3 || !p.hasAlert(AlertEmpty, "nothing") {
					t.Errorf("all-missing column: %+v", c)
				}
			}},
		{name: "dup_names.csv", data: []byte("a,a,b,a\n1,2,3,4\n5,6,7,8\n"),
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				if got := p.names(); !slices.Equal(got, []string{"a", "a.1", "b", "a.2"}) {
					t.Errorf("columns %q", got)
				}
				wantNote(t, p, "'a' → 'a.1'")
			}},
		{name: "weird names.csv", data: weirdCSV.Bytes(), charts: []string{"hist", "bar", "heatmap", "heatmap"},
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				if got := p.names(); !slices.Equal(got, weird) {
					t.Errorf("columns %q, want %q", got, weird)
				}
			}},
		{name: "script.csv", data: []byte("id,comment\n1,<script>alert(1)</script>\n2,fine\n"),
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				if s := p.col(t, "comment").Sample; !slices.Contains(s, "<script>alert(1)</script>") {
					t.Errorf("sample %q", s)
				}
			}},
		{name: "dayfirst.csv", data: []byte("when,n\n31/01/2024,1\n15/02/2024,2\n01/03/2024,3\n"),
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				if w := p.col(t, "when"); w.Kind != KindDatetime || w.MinDate != "2024-01-31T00:00:00" || w.MaxDate != "2024-03-01T00:00:00" {
					t.Errorf("when: %+v", w)
				}
			}},
		{name: "duplicates.csv", data: []byte("a,b\n1,x\n2,y\n1,x\n1,x\n"),
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				if p.DuplicateRows != 2 || !p.hasAlert(AlertDuplicates, "") {
					t.Errorf("%d duplicate rows, alerts %+v", p.DuplicateRows, p.Alerts)
				}
			}},
		{name: "wide.csv", data: wide.Bytes(), charts: []string{"hist", "bar", "heatmap", "heatmap", "bar"},
			check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
				if p.Columns != 500 || p.Rows != 200 {
					t.Errorf("%d × %d, want 200 × 500", p.Rows, p.Columns)
				}
			}},
	}

	for _, c := range cases {
		if err := os.WriteFile(filepath.Join(dir, c.name), c.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	k := kerneltest.Start(t, func(o *kernel.Options) { o.Data = dir; o.OutputDir = out })
	mustRun(t, k, Setup())

	// An Excel workbook, written by pandas in the kernel.
	mustRun(t, k, Stage{Name: "make-xlsx", Cells: []Cell{Code(`pd.DataFrame({
    "when": pd.date_range("2024-01-01", periods=5, freq="D"),
    "amount": [1.5, 2.5, 3.5, 4.5, 5.5],
    "label": ["a", "b", "a", "c", "a"],
}).to_excel("/output/book.xlsx", sheet_name="Sales", index=False)`)}})
	cases = append(cases, loadCase{name: "book.xlsx", path: "/output/book.xlsx", charts: []string{"hist", "bar", "line"},
		check: func(t *testing.T, k *kernel.Kernel, p *Profile) {
			if l := p.Load; l.Format != "xlsx" || l.Sheet != "Sales" || p.Rows != 5 {
				t.Errorf("load %+v rows %d", l, p.Rows)
			}
			wantKinds(t, p, map[string]string{"when": KindDatetime, "amount": KindNumeric, "label": KindCategorical})
		}})

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.path
			if path == "" {
				path = "/data/" + c.name
			}
			load := mustRun(t, k, Load(path))
			if !strings.Contains(load.execs[0].Stdout(), "Loaded ") {
				t.Errorf("no summary line: %q", load.execs[0].Stdout())
			}
			p := profileOf(t, mustRun(t, k, ProfileStage()))
			c.check(t, k, p)
			dist := mustRun(t, k, Distributions(p, Options{}))
			kinds := chartKinds(dist)
			for _, want := range c.charts {
				i := slices.Index(kinds, want)
				if i < 0 {
					t.Errorf("charts %q lack a %s chart (want %q)", chartKinds(dist), want, c.charts)
					break
				}
				kinds = slices.Delete(kinds, i, i+1)
			}
			t.Logf("load %v, profile+distributions ran, charts %q", load.took.Round(time.Millisecond), chartKinds(dist))
		})
	}

	t.Run("statistics", func(t *testing.T) {
		p := profileOf(t, func() stageRun {
			mustRun(t, k, Load("/data/alerts.csv"))
			return mustRun(t, k, ProfileStage())
		}())
		mustRun(t, k, Distributions(p, Options{}))
		var got map[string]float64
		pyValue(t, k, `print(json.dumps(numeric_stats.loc["x"].astype(float).to_dict()))`, &got)
		want := map[string]float64{
			"count": float64(len(x)), "missing": 0, "mean": mean(x), "std": stdDev(x), "min": slices.Min(x),
			"25%": quantile(x, 0.25), "50%": quantile(x, 0.5), "75%": quantile(x, 0.75),
			"IQR": quantile(x, 0.75) - quantile(x, 0.25), "max": slices.Max(x),
			"skewness": skewness(x), "kurtosis": kurtosis(x),
		}
		for name, w := range want {
			if g, ok := got[name]; !ok || !near(g, w) {
				t.Errorf("%s of x = %v, want %v (Go)", name, g, w)
			}
		}
	})

	t.Run("html escaped", func(t *testing.T) {
		load := mustRun(t, k, Load("/data/script.csv"))
		html, _ := load.execs[len(load.execs)-1].Outputs[0].DataString("text/html")
		if strings.Contains(html, "<script>") || !strings.Contains(html, "&lt;script&gt;") {
			t.Errorf("the table of the first rows does not escape <script>:\n%s", html)
		}
	})

	t.Run("wide left out", func(t *testing.T) {
		mustRun(t, k, Load("/data/wide.csv"))
		p := profileOf(t, mustRun(t, k, ProfileStage()))
		st := Distributions(p, Options{})
		ch := Choose(p, Options{})
		if len(ch.Hist) != DefaultMaxChartColumns || len(ch.HistLeftOut) == 0 {
			t.Fatalf("charted %d numeric columns, left out %d", len(ch.Hist), len(ch.HistLeftOut))
		}
		var md string
		for _, c := range st.Cells {
			if c.Markdown && strings.Contains(c.Source, "Histograms") {
				md = c.Source
			}
		}
		for _, name := range ch.HistLeftOut {
			if !strings.Contains(md, "`"+name+"`") {
				t.Errorf("the histogram markdown does not list %s as left out", name)
			}
		}
		r := mustRun(t, k, st)
		for _, ex := range r.execs {
			for _, c := range ex.Charts() {
				if c.Kind == "hist" {
					var d struct{ Axes []json.RawMessage }
					json.Unmarshal(c.Description, &d)
					if len(d.Axes) != DefaultMaxChartColumns {
						t.Errorf("histogram grid has %d panels, want %d", len(d.Axes), DefaultMaxChartColumns)
					}
				}
			}
		}
	})
}

// A file that cannot be read as a table stops the load cell with an
// AnalystDataError, which reaches analyst through the kernel by its name
// (DataErrorName) with the message that says why. The loader's messages,
// case by case, are Python unit tests (eda/py/tests/test_load_rules.py,
// TestLoadErrors).
func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "header_only.csv"), []byte("a,b,c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	k := kerneltest.Start(t, func(o *kernel.Options) { o.Data = dir })
	mustRun(t, k, Setup())
	r := runStage(t, k, Load("/data/header_only.csv"))
	if r.err == nil {
		t.Fatal("loading a file with a header and no rows did not fail")
	}
	if r.err.Status != kernel.StatusError || r.err.Error == nil || r.err.Error.Name != DataErrorName {
		t.Fatalf("status %s, error %v; want %s\n%s", r.err.Status, r.err.Error, DataErrorName, traceback(r.err))
	}
	if want := "header but no data rows"; !strings.Contains(r.err.Error.Value, want) {
		t.Errorf("message %q lacks %q", r.err.Error.Value, want)
	}
}

// TestMillionRows runs every stage on the 1,000,000-row sales CSV and logs
// the time each stage takes.
func TestMillionRows(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000,000 rows: skipped in -short mode")
	}
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "sales.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := examples.WriteSales(f, 1_000_000, 1); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	k := kerneltest.Start(t, func(o *kernel.Options) { o.Data = filepath.Join(dir, "sales.csv") })
	var total time.Duration
	run := func(st Stage) stageRun {
		r := mustRun(t, k, st)
		total += r.took
		var cells []string
		for _, ex := range r.execs {
			cells = append(cells, ex.Duration.Round(10*time.Millisecond).String())
		}
		t.Logf("%-13s %6v  (cells: %s)", st.Name, r.took.Round(10*time.Millisecond), strings.Join(cells, ", "))
		return r
	}
	run(Setup())
	load := run(Load("/data/sales.csv"))
	if !strings.Contains(load.execs[0].Stdout(), "Loaded 1,000,000 rows × 10 columns from sales.csv (csv, utf-8, delimiter ',')") {
		t.Errorf("summary line: %q", load.execs[0].Stdout())
	}
	p := profileOf(t, run(ProfileStage()))
	dist := run(Distributions(p, Options{}))
	viz := run(Visualization(p, Options{}))
	t.Logf("all stages   %6v", total.Round(10*time.Millisecond))
	if kinds := chartKinds(viz); !slices.Contains(kinds, "mixed") || !slices.Contains(kinds, "box") {
		t.Errorf("visualization charts %q: want the pairs (hexagonal bins and lines) and boxes", kinds)
	}

	if p.Rows != 1_000_000 || p.Columns != 10 || !slices.Equal(p.Load.ParsedDates, []string{"date"}) {
		t.Errorf("profile: %d × %d, parsed dates %q", p.Rows, p.Columns, p.Load.ParsedDates)
	}
	if !p.hasAlert(AlertUniqueID, "order_id") || !p.hasAlert(AlertHighCardinality, "customer_id") {
		t.Errorf("alerts %+v", p.Alerts)
	}
	kinds := chartKinds(dist)
	for _, want := range []string{"hist", "bar", "heatmap", "line"} {
		if !slices.Contains(kinds, want) {
			t.Errorf("charts %q lack %s", kinds, want)
		}
	}
	ch := Choose(p, Options{})
	if ch.Date != "date" || ch.Frequency != "MS" || ch.Value != "revenue" {
		t.Errorf("time series of %q, %q per %q; want date, revenue, MS", ch.Date, ch.Value, ch.Frequency)
	}
}

// utf16 encodes UTF-8 text as UTF-16 little-endian with a byte-order mark,
// as Excel's "Unicode text" export writes it.
func utf16(b []byte) []byte {
	out := []byte{0xff, 0xfe}
	for _, r := range string(b) {
		out = append(out, byte(r), byte(r>>8))
	}
	return out
}
