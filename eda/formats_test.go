package eda

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/analyst-cli/analyst/internal/parquetnpy"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

// makeFormats writes one small table in each format the image's libraries
// can write: six rows, a date column, a float with one missing value, a
// text column and an integer column; spreadsheets and the database also
// hold a second, two-row sheet or table; and truncated copies of each.
const makeFormats = `import sqlite3
import pyreadstat
frame = pd.DataFrame({
    "when": pd.to_datetime(["2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04", "2024-01-05", "2024-01-06"]),
    "amount": [1.5, 2.5, None, 4.5, 5.5, 6.5],
    "label": ["a", "b", "a", "c", "a", "b"],
    "n": [1, 2, 3, 4, 5, 6],
})
frame.to_stata("/output/t.dta", write_index=False)
for path, sheets, engine in [("/output/t.xlsx", ("Sales", "Costs"), "openpyxl"), ("/output/t.ods", ("First", "Second"), "odf")]:
    with pd.ExcelWriter(path, engine=engine) as w:
        frame.to_excel(w, sheet_name=sheets[0], index=False)
        frame.head(2).to_excel(w, sheet_name=sheets[1], index=False)
pyreadstat.write_sav(frame, "/output/t.sav")
pyreadstat.write_xport(frame, "/output/t.xpt", file_format_version=5)
con = sqlite3.connect("/output/t.sqlite")
text = frame.assign(when=frame["when"].dt.strftime("%Y-%m-%d"))
text.to_sql("orders", con, index=False)
text.head(2).to_sql("returns", con, index=False)
con.commit()
con.close()
con = sqlite3.connect("/output/one.sqlite")
text.to_sql("orders", con, index=False)
con.commit()
con.close()

# SAS data sets: pyreadstat does not expose the sas7bdat writer of the ReadStat
# library it is built on, so call ReadStat's C API (exported by pyreadstat's
# writer module) through ctypes.
import ctypes
import pyreadstat._readstat_writer as w
rs = ctypes.CDLL(w.__file__)
rs.readstat_writer_init.restype = ctypes.c_void_p
rs.readstat_add_variable.restype = ctypes.c_void_p
rs.readstat_add_variable.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_size_t]
rs.readstat_variable_set_format.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
rs.readstat_set_data_writer.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
rs.readstat_begin_writing_sas7bdat.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
for f in ("begin_row", "end_row", "end_writing", "writer_free"):
    getattr(rs, "readstat_" + f).argtypes = [ctypes.c_void_p]
rs.readstat_insert_double_value.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_double]
rs.readstat_insert_string_value.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p]
rs.readstat_insert_missing_value.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
sas = open("/output/t.sas7bdat", "wb")
@ctypes.CFUNCTYPE(ctypes.c_ssize_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)
def write_bytes(data, n, ctx):
    sas.write(ctypes.string_at(data, n))
    return n
writer = rs.readstat_writer_init()
rs.readstat_set_data_writer(writer, ctypes.cast(write_bytes, ctypes.c_void_p))
DOUBLE, STRING = 5, 0
var = {name: rs.readstat_add_variable(writer, name.encode(), STRING if name == "label" else DOUBLE, 8)
       for name in frame.columns}
rs.readstat_variable_set_format(var["when"], b"YYMMDD10")
assert rs.readstat_begin_writing_sas7bdat(writer, None, len(frame)) == 0
for row in frame.itertuples(index=False):
    rs.readstat_begin_row(writer)
    rs.readstat_insert_double_value(writer, var["when"], float((row.when - pd.Timestamp("1960-01-01")).days))
    if pd.isna(row.amount):
        rs.readstat_insert_missing_value(writer, var["amount"])
    else:
        rs.readstat_insert_double_value(writer, var["amount"], row.amount)
    rs.readstat_insert_string_value(writer, var["label"], row.label.encode())
    rs.readstat_insert_double_value(writer, var["n"], float(row.n))
    rs.readstat_end_row(writer)
assert rs.readstat_end_writing(writer) == 0
rs.readstat_writer_free(writer)
sas.close()

for name in ["t.dta", "t.xlsx", "t.ods", "t.sav", "t.xpt", "t.sqlite", "t.sas7bdat"]:
    with open("/output/" + name, "rb") as f:
        head = f.read(300)
    with open("/output/bad_" + name, "wb") as f:
        f.write(head)
print("written")`

// typedRow is a Parquet row with a zoned timestamp, a categorical, nulls.
type typedRow struct {
	When   time.Time `parquet:"when,timestamp(microsecond)"`
	Amount *float64  `parquet:"amount,optional"`
	Label  string    `parquet:"label,dict"`
	N      int64     `parquet:"n"`
	OK     *bool     `parquet:"ok,optional"`
}

func writeTypedParquet(t *testing.T, path string) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	meta := `{"index_columns": [], "columns": [{"name": "when", "field_name": "when", "pandas_type": "datetimetz", "metadata": {"timezone": "Europe/Paris"}},
	  {"name": "label", "field_name": "label", "pandas_type": "categorical", "metadata": {"num_categories": 3, "ordered": false}}]}`
	w := parquet.NewGenericWriter[typedRow](f, parquet.KeyValueMetadata("pandas", meta))
	var rows []typedRow
	for i := range 6 {
		amount, ok := 1.5+float64(i), i%2 == 0
		r := typedRow{When: time.Date(2024, 1, 1+i, 23, 30, 0, 0, time.UTC), Amount: &amount, Label: []string{"a", "b", "a", "c", "a", "b"}[i], N: int64(i + 1), OK: &ok}
		if i == 2 {
			r.Amount, r.OK = nil, nil
		}
		rows = append(rows, r)
	}
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestLoadFormats(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	os.Chmod(out, 0o777)
	writeTypedParquet(t, filepath.Join(dir, "t.parquet"))
	conv := filepath.Join(dir, "t.parquet.columns")
	os.Mkdir(conv, 0o755)
	if _, err := parquetnpy.Convert(filepath.Join(dir, "t.parquet"), conv); err != nil {
		t.Fatal(err)
	}
	var xlsRows [][]any
	for i, amount := range []float64{1.5, 2.5, math.NaN(), 4.5, 5.5, 6.5} {
		xlsRows = append(xlsRows, []any{time.Date(2024, 1, 1+i, 0, 0, 0, 0, time.UTC), amount, []string{"a", "b", "a", "c", "a", "b"}[i], float64(i + 1)})
	}
	writeXLS(t, filepath.Join(dir, "t.xls"), "Orders", []string{"when", "amount", "label", "n"}, xlsRows)
	if b, err := os.ReadFile(filepath.Join(dir, "t.xls")); err == nil {
		os.WriteFile(filepath.Join(dir, "bad_t.xls"), b[:700], 0o644)
	}
	k := kerneltest.Start(t, func(o *kernel.Options) { o.Data = dir; o.OutputDir = out })
	mustRun(t, k, Setup())
	mustRun(t, k, Stage{Name: "make", Cells: []Cell{Code(makeFormats)}})

	// The same table in every format: what the profile must say.
	same := func(t *testing.T, p *Profile, when string) {
		t.Helper()
		if p.Rows != 6 || p.Columns < 4 {
			t.Errorf("%d × %d, want 6 rows, 4 columns", p.Rows, p.Columns)
		}
		wantKinds(t, p, map[string]string{"when": KindDatetime, "amount": KindNumeric, "label": KindCategorical})
		if c := p.col(t, "when"); c.Dtype != when {
			t.Errorf("when: dtype %q, want %q", c.Dtype, when)
		}
		if c := p.col(t, "amount"); c.Missing != 1 || c.Mean == nil || !near(*c.Mean, 4.1) {
			t.Errorf("amount: %d missing, mean %v; want 1 and 4.1", c.Missing, c.Mean)
		}
		if c := p.col(t, "n"); c.Kind != KindNumeric || c.Max == nil || *c.Max != 6 {
			t.Errorf("n: %+v", c)
		}
	}
	cases := []struct {
		src    Source
		format string
		check  func(t *testing.T, p *Profile)
	}{
		{Source{Path: "/data/t.xls"}, "xls", func(t *testing.T, p *Profile) {
			same(t, p, "datetime64[ns]")
			if p.Load.Sheet != "Orders" {
				t.Errorf("sheet %q, want Orders", p.Load.Sheet)
			}
		}},
		{Source{Path: "/output/t.dta"}, "dta", func(t *testing.T, p *Profile) { same(t, p, "datetime64[ns]") }},
		{Source{Path: "/output/t.sav"}, "sav", func(t *testing.T, p *Profile) { same(t, p, "datetime64[ns]") }},
		{Source{Path: "/output/t.xpt"}, "xpt", func(t *testing.T, p *Profile) { same(t, p, "datetime64[ns]") }},
		{Source{Path: "/output/t.sas7bdat"}, "sas7bdat", func(t *testing.T, p *Profile) { same(t, p, "datetime64[ns]") }},
		{Source{Path: "/output/t.ods"}, "ods", func(t *testing.T, p *Profile) {
			same(t, p, "datetime64[ns]")
			if l := p.Load; l.Sheet != "First" || !slices.Equal(l.Sheets, []string{"First", "Second"}) {
				t.Errorf("sheet %q of %q", l.Sheet, l.Sheets)
			}
			wantNote(t, p, "'First' was read (others: 'Second'")
		}},
		{Source{Path: "/output/t.ods", Sheet: "Second"}, "ods", func(t *testing.T, p *Profile) {
			if p.Rows != 2 || p.Load.Sheet != "Second" {
				t.Errorf("%d rows from sheet %q, want 2 from Second", p.Rows, p.Load.Sheet)
			}
		}},
		{Source{Path: "/output/t.xlsx", Sheet: "2"}, "xlsx", func(t *testing.T, p *Profile) {
			if p.Rows != 2 || p.Load.Sheet != "Costs" {
				t.Errorf("%d rows from sheet %q, want 2 from Costs (sheet 2)", p.Rows, p.Load.Sheet)
			}
		}},
		{Source{Path: "/output/t.sqlite", Table: "orders"}, "sqlite", func(t *testing.T, p *Profile) {
			same(t, p, "datetime64[ns]") // text dates in SQLite, parsed by the loader
			if l := p.Load; l.Table != "orders" || !slices.Equal(l.Tables, []string{"orders", "returns"}) {
				t.Errorf("table %q of %q", l.Table, l.Tables)
			}
		}},
		{Source{Path: "/output/one.sqlite"}, "sqlite", func(t *testing.T, p *Profile) { same(t, p, "datetime64[ns]") }},
		{Source{Path: "/data/t.parquet", Converted: "/data/t.parquet.columns", Converter: "analyst"}, "parquet", func(t *testing.T, p *Profile) {
			same(t, p, "datetime64[ns, Europe/Paris]")
			if c := p.col(t, "label"); c.Dtype != "category" {
				t.Errorf("label: dtype %q, want category", c.Dtype)
			}
			if c := p.col(t, "ok"); c.Missing != 1 {
				t.Errorf("ok: %d missing, want 1", c.Missing)
			}
			if c := p.col(t, "when"); !strings.HasPrefix(c.MinDate, "2024-01-02T00:30:00") {
				t.Errorf("when: first date %q, want 2024-01-02T00:30:00 (23:30 UTC in Paris)", c.MinDate)
			}
			wantNote(t, p, "Parquet was converted before the run by analyst")
		}},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.src.Path)+c.src.Sheet+c.src.Table, func(t *testing.T) {
			mustRun(t, k, LoadFrom(c.src))
			p := profileOf(t, mustRun(t, k, ProfileStage()))
			if p.Load.Format != c.format {
				t.Errorf("format %q, want %q", p.Load.Format, c.format)
			}
			c.check(t, p)
		})
	}

	// Wrong sheets and tables, truncated files: a data error that names the file and says what to do.
	bad := []struct {
		src  Source
		want string
	}{
		{Source{Path: "/output/t.ods", Sheet: "Costs"}, "t.ods has no sheet 'Costs'; its sheets are 1: 'First', 2: 'Second'. Choose one with --sheet"},
		{Source{Path: "/output/t.xlsx", Sheet: "3"}, "t.xlsx has no sheet '3'"},
		{Source{Path: "/output/t.sqlite"}, "t.sqlite holds 2 tables: orders, returns. Choose one with --table NAME."},
		{Source{Path: "/output/t.sqlite", Table: "nope"}, "t.sqlite has no table 'nope'; its tables are orders, returns."},
		{Source{Path: "/output/bad_t.dta"}, "bad_t.dta could not be read as a Stata data file"},
		{Source{Path: "/output/bad_t.sav"}, "bad_t.sav could not be read as an SPSS data file"},
		{Source{Path: "/output/bad_t.xpt"}, "bad_t.xpt could not be read as a SAS transport file"},
		{Source{Path: "/output/bad_t.sas7bdat"}, "bad_t.sas7bdat could not be read as a SAS data set"},
		{Source{Path: "/output/bad_t.xlsx"}, "bad_t.xlsx: the spreadsheet could not be read"},
		{Source{Path: "/data/bad_t.xls"}, "bad_t.xls: the spreadsheet could not be read"},
		{Source{Path: "/output/bad_t.ods"}, "bad_t.ods: the spreadsheet could not be read"},
		{Source{Path: "/output/bad_t.sqlite"}, "bad_t.sqlite could not be read as an SQLite database"},
		{Source{Path: "/data/t.parquet"}, "t.parquet is Parquet, and this Python has no Parquet reader (pyarrow)"},
	}
	for _, c := range bad {
		t.Run("bad/"+filepath.Base(c.src.Path)+c.src.Sheet+c.src.Table, func(t *testing.T) {
			r := runStage(t, k, LoadFrom(c.src))
			if r.err == nil || r.err.Error == nil || r.err.Error.Name != DataErrorName {
				t.Fatalf("want %s, got %+v", DataErrorName, r.err)
			}
			if !strings.Contains(r.err.Error.Value, c.want) {
				t.Errorf("message %q lacks %q", r.err.Error.Value, c.want)
			}
		})
	}
}
