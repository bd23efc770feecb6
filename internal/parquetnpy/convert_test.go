package parquetnpy_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/analyst-cli/analyst/examples"
	"github.com/analyst-cli/analyst/internal/parquetnpy"
)

// readNPY reads back a one-dimensional .npy file's header and data.
func readNPY(t *testing.T, path string) (descr string, n int, data []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("\x93NUMPY\x01\x00")) {
		t.Fatalf("%s: no .npy magic", path)
	}
	hlen := int(binary.LittleEndian.Uint16(b[8:10]))
	if (10+hlen)%64 != 0 {
		t.Errorf("%s: header not padded to 64 bytes (%d)", path, 10+hlen)
	}
	header := string(b[10 : 10+hlen])
	if !strings.HasSuffix(header, "\n") {
		t.Errorf("%s: header does not end with a newline", path)
	}
	descr = header[strings.Index(header, "'descr': '")+10:]
	descr = descr[:strings.Index(descr, "'")]
	shape := header[strings.Index(header, "'shape': (")+10:]
	for _, c := range shape[:strings.Index(shape, ",")] {
		n = n*10 + int(c-'0')
	}
	return descr, n, b[10+hlen:]
}

func TestConvertSales(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "sales.parquet")
	f, _ := os.Create(src)
	if err := examples.WriteSalesParquet(f, 20000, 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := filepath.Join(dir, "cols")
	os.Mkdir(out, 0o755)
	s, err := parquetnpy.Convert(src, out)
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows != 20000 || len(s.Columns) != 10 {
		t.Fatalf("rows %d, columns %d", s.Rows, len(s.Columns))
	}
	kinds := map[string]string{}
	for _, c := range s.Columns {
		kinds[c.Name] = c.Kind + " " + c.Dtype
	}
	want := map[string]string{"order_id": "int <i8", "date": "datetime <i8", "region": "string <i4",
		"discount": "float <f8", "units": "int <i8", "customer_id": "string <i4"}
	for name, k := range want {
		if kinds[name] != k {
			t.Errorf("%s: %q, want %q", name, kinds[name], k)
		}
	}
	// The values are the generator's: check the first order and the missing discounts.
	var first examples.Sale
	missing := 0
	examples.Sales(20000, 1, func(s examples.Sale) error {
		if s.OrderID == 100000 {
			first = s
		}
		if s.Discount == nil {
			missing++
		}
		return nil
	})
	_, n, data := readNPY(t, filepath.Join(out, "c001.npy")) // date
	if n != 20000 || int64(binary.LittleEndian.Uint64(data)) != first.Date.UnixNano() {
		t.Errorf("date[0] = %d (n %d), want %d", int64(binary.LittleEndian.Uint64(data)), n, first.Date.UnixNano())
	}
	_, _, data = readNPY(t, filepath.Join(out, "c007.npy")) // discount
	nan := 0
	for i := 0; i < len(data); i += 8 {
		if math.IsNaN(math.Float64frombits(binary.LittleEndian.Uint64(data[i:]))) {
			nan++
		}
	}
	if nan != missing || missing == 0 {
		t.Errorf("%d NaN discounts, generator left %d missing", nan, missing)
	}
	var regions []string
	b, _ := os.ReadFile(filepath.Join(out, "c002.json"))
	json.Unmarshal(b, &regions)
	_, _, data = readNPY(t, filepath.Join(out, "c002.npy"))
	if got := regions[binary.LittleEndian.Uint32(data)]; got != first.Region || len(regions) != 5 {
		t.Errorf("region[0] = %q of %v, want %q", got, regions, first.Region)
	}
}

// A column of each kind pandas writes, with nulls, a zoned timestamp and a
// categorical as pyarrow records them (the "pandas" metadata).
type typed struct {
	N    *int64     `parquet:"n,optional"`
	OK   *bool      `parquet:"ok,optional"`
	At   *time.Time `parquet:"at,optional,timestamp(microsecond)"`
	Tier string     `parquet:"tier,dict"`
	Note *string    `parquet:"note,optional"`
}

func TestConvertTypes(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "t.parquet")
	f, _ := os.Create(src)
	meta := `{"index_columns": [], "columns": [{"name": "at", "field_name": "at", "pandas_type": "datetimetz", "metadata": {"timezone": "Europe/Paris"}},
	  {"name": "tier", "field_name": "tier", "pandas_type": "categorical", "metadata": {"num_categories": 3, "ordered": true}}]}`
	w := parquet.NewGenericWriter[typed](f, parquet.KeyValueMetadata("pandas", meta))
	one, yes := int64(7), true
	at := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	note := "hello"
	w.Write([]typed{{N: &one, OK: &yes, At: &at, Tier: "gold", Note: &note}, {Tier: "silver"}})
	w.Close()
	f.Close()
	s, err := parquetnpy.Convert(src, dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]parquetnpy.Column{}
	for _, c := range s.Columns {
		got[c.Name] = c
	}
	if c := got["n"]; c.Kind != "int" || c.Dtype != "<f8" {
		t.Errorf("n: %+v, want int with nulls as float64", c)
	}
	if c := got["ok"]; c.Kind != "bool" || c.Mask == "" {
		t.Errorf("ok: %+v, want bool with a mask", c)
	}
	if c := got["tier"]; c.Kind != "category" || !c.Ordered {
		t.Errorf("tier: %+v, want an ordered category", c)
	}
	if c := got["note"]; c.Kind != "string" {
		t.Errorf("note: %+v, want string", c)
	}
	_, _, data := readNPY(t, filepath.Join(dir, got["at"].File))
	if v := int64(binary.LittleEndian.Uint64(data[8:])); v != math.MinInt64 {
		t.Errorf("null timestamp stored as %d, want NaT (min int64)", v)
	}
	_, _, data = readNPY(t, filepath.Join(dir, got["note"].File))
	if v := int32(binary.LittleEndian.Uint32(data[4:])); v != -1 {
		t.Errorf("null text stored as code %d, want -1", v)
	}
}

func TestConvertRejects(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.parquet")
	os.WriteFile(bad, []byte("PAR1 this is not really parquet PAR1"), 0o644)
	_, err := parquetnpy.Convert(bad, dir)
	var pe *parquetnpy.Error
	if !errors.As(err, &pe) || !strings.Contains(pe.Msg, "not a readable Parquet file") {
		t.Errorf("truncated file: %v", err)
	}
	type nested struct {
		Tags []string `parquet:"tags"`
	}
	src := filepath.Join(dir, "nested.parquet")
	f, _ := os.Create(src)
	w := parquet.NewGenericWriter[nested](f)
	w.Write([]nested{{Tags: []string{"a"}}})
	w.Close()
	f.Close()
	_, err = parquetnpy.Convert(src, dir)
	if !errors.As(err, &pe) || !strings.Contains(pe.Msg, `column "tags" is nested`) {
		t.Errorf("nested column: %v", err)
	}
}

// BenchmarkConvertSales converts the 1,000,000-row sales data.
func BenchmarkConvertSales(b *testing.B) {
	dir := b.TempDir()
	src := filepath.Join(dir, "sales.parquet")
	f, _ := os.Create(src)
	if err := examples.WriteSalesParquet(f, 1_000_000, 1); err != nil {
		b.Fatal(err)
	}
	f.Close()
	for b.Loop() {
		out, _ := os.MkdirTemp(dir, "cols")
		if _, err := parquetnpy.Convert(src, out); err != nil {
			b.Fatal(err)
		}
		os.RemoveAll(out)
	}
}
