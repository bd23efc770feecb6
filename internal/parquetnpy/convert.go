// Package parquetnpy converts a Parquet file into one NumPy .npy file per
// column plus a JSON schema, which the kernel's loader turns back into a
// typed pandas DataFrame without pyarrow (Debian packages none): integers,
// floats and booleans as themselves, timestamps as datetime64[ns] with their
// time zone, strings as codes into a JSON list of distinct values (which
// also keeps categoricals), nulls as NaN, NaT or a mask.
package parquetnpy

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// SchemaFile is the name of the schema in the output folder.
const SchemaFile = "schema.json"

// Column kinds in the schema, which the loader maps to pandas dtypes.
const (
	KindInt      = "int"      // file: int64 (or uint64) .npy; with nulls: float64 with NaN
	KindFloat    = "float"    // file: float64/float32 .npy, nulls NaN
	KindBool     = "bool"     // file: bool .npy; with nulls: mask .npy (pandas: object)
	KindDatetime = "datetime" // file: int64 ns since the epoch, NaT for nulls; tz if zoned
	KindString   = "string"   // file: int32 codes, -1 for null; categories: JSON list
	KindCategory = "category" // as string, restored as pandas.Categorical
)

// Schema describes the converted table.
type Schema struct {
	Source    string   `json:"source"`
	Converter string   `json:"converter"`
	Rows      int64    `json:"rows"`
	Columns   []Column `json:"columns"`
	Notes     []string `json:"notes"`
}

// Column is one converted column.
type Column struct {
	Name       string `json:"name"`
	Kind       string `json:"kind"`
	File       string `json:"file"`
	Dtype      string `json:"dtype"`                // the .npy dtype
	Mask       string `json:"mask,omitempty"`       // bool .npy, true where missing
	Categories string `json:"categories,omitempty"` // JSON list of the distinct values
	TZ         string `json:"tz,omitempty"`
	Ordered    bool   `json:"ordered,omitempty"`
	Parquet    string `json:"parquet"` // the column's Parquet type, for the notes
}

// Error is a Parquet file that cannot be converted; its message names what.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Converter names the library that read the file, as the notebook says it.
func Converter() string {
	version := "unknown version"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/parquet-go/parquet-go" {
				version = d.Version
			}
		}
	}
	return "analyst (Go, github.com/parquet-go/parquet-go " + version + ")"
}

// pandasMeta is the part of the "pandas" key-value metadata that pandas
// (through pyarrow) writes and that Parquet's own types do not carry.
type pandasMeta struct {
	IndexColumns []json.RawMessage `json:"index_columns"`
	Columns      []struct {
		Name       *string `json:"name"`
		FieldName  string  `json:"field_name"`
		PandasType string  `json:"pandas_type"`
		Metadata   struct {
			Timezone string `json:"timezone"`
			Ordered  bool   `json:"ordered"`
		} `json:"metadata"`
	} `json:"columns"`
}

var pandasIndex = regexp.MustCompile(`^__index_level_\d+__$`)

// Convert reads the Parquet file src and writes its columns and
// SchemaFile into dir (which must exist). The files are world-readable:
// the kernel's user reads them through a read-only mount.
func Convert(src, dir string) (*Schema, error) {
	f, err := os.Open(src)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	pf, err := parquet.OpenFile(f, fi.Size())
	if err != nil {
		return nil, &Error{fmt.Sprintf("not a readable Parquet file (%v); is it complete? Re-export it", err)}
	}
	meta := pandasMeta{}
	if raw, ok := pf.Lookup("pandas"); ok {
		json.Unmarshal([]byte(raw), &meta) // optional: without it, Parquet's own types decide
	}
	s := &Schema{Source: filepath.Base(src), Converter: Converter(), Rows: pf.NumRows(), Notes: []string{}}
	var cols []*builder
	for i, field := range pf.Root().Columns() {
		if !field.Leaf() || field.Repeated() {
			return nil, &Error{fmt.Sprintf("column %q is nested (a list, map or struct), which analyst cannot "+
				"convert; flatten it to plain columns (for example with DuckDB or pandas.json_normalize)", field.Name())}
		}
		if pandasIndex.MatchString(field.Name()) {
			s.Notes = append(s.Notes, fmt.Sprintf("pandas' saved index %s was left out", field.Name()))
			cols = append(cols, nil)
			continue
		}
		b, err := newBuilder(field, fmt.Sprintf("c%03d", i), meta, pf.NumRows())
		if err != nil {
			return nil, err
		}
		cols = append(cols, b)
	}
	for _, rg := range pf.RowGroups() {
		for i, chunk := range rg.ColumnChunks() {
			if i >= len(cols) || cols[i] == nil {
				continue
			}
			if err := cols[i].readChunk(chunk); err != nil {
				return nil, &Error{fmt.Sprintf("reading column %q: %v", cols[i].col.Name, err)}
			}
		}
	}
	for _, b := range cols {
		if b == nil {
			continue
		}
		if int64(b.n) != s.Rows {
			return nil, &Error{fmt.Sprintf("column %q has %d values for %d rows; the file is damaged", b.col.Name, b.n, s.Rows)}
		}
		if err := b.write(dir); err != nil {
			return nil, fmt.Errorf("writing column %q to %s: %w", b.col.Name, dir, err)
		}
		s.Columns = append(s.Columns, b.col)
		s.Notes = append(s.Notes, b.notes...)
	}
	js, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, SchemaFile), js, 0o644); err != nil {
		return nil, err
	}
	return s, nil
}

// builder accumulates one column's values.
type builder struct {
	col   Column
	notes []string
	n     int

	// how each value is taken: one of these is used, by kind
	ints   []int64
	floats []float64
	bools  []bool
	nulls  []bool
	codes  []int32
	index  map[string]int32
	cats   []string

	rows     int                 // expected, to size the slices once
	value    func(parquet.Value) // appends one non-null value
	null     func()
	unsigned bool
	float32  bool
}

func newBuilder(field *parquet.Column, file string, meta pandasMeta, rows int64) (*builder, error) {
	t := field.Type()
	b := &builder{col: Column{Name: field.Name(), File: file + ".npy", Parquet: t.String()}, rows: int(rows)}
	pandasType, tz, ordered := meta.of(field.Name())
	done, err := b.logical(field, tz)
	if err == nil && !done {
		err = b.physical(field, pandasType, ordered)
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

// of is what pandas recorded of the column named name: its type, time
// zone and whether its categories are ordered.
func (meta pandasMeta) of(name string) (pandasType, tz string, ordered bool) {
	for _, c := range meta.Columns {
		if c.FieldName == name || (c.Name != nil && *c.Name == name) {
			pandasType, tz, ordered = c.PandasType, c.Metadata.Timezone, c.Metadata.Ordered
		}
	}
	return pandasType, tz, ordered
}

// logical sets the builder up for a column whose logical type decides how
// it is read (timestamps, dates, decimals, times); done is false when its
// physical type decides.
func (b *builder) logical(field *parquet.Column, tz string) (done bool, err error) {
	t := field.Type()
	lt := t.LogicalType()
	if lt == nil {
		return false, nil
	}
	switch lt := lt.Value.(type) {
	case *format.TimestampType:
		scale := unitNanos(lt.Unit.Value) / int64(time.Nanosecond)
		if lt.IsAdjustedToUTC {
			if tz == "" {
				tz = "UTC"
			}
			b.col.TZ = tz
		}
		b.datetime(func(v parquet.Value) int64 { return scaleNanos(v.Int64(), scale) })
	case *format.DateType:
		b.datetime(func(v parquet.Value) int64 { return scaleNanos(int64(v.Int32()), 86_400_000_000_000) })
		b.notes = append(b.notes, fmt.Sprintf("%q holds dates; they were read as datetime64[ns] (midnight)", field.Name()))
	case *format.DecimalType:
		scale := math.Pow10(int(lt.Scale))
		b.floating(func(v parquet.Value) float64 { return decimalValue(v, t.Kind()) / scale })
		b.notes = append(b.notes, fmt.Sprintf("%q is a decimal(%d, %d); it was read as float64", field.Name(), lt.Precision, lt.Scale))
	case *format.TimeType:
		unit := time.Duration(unitNanos(lt.Unit.Value))
		b.text(func(v parquet.Value) string {
			n := v.Int64()
			if t.Kind() == parquet.Int32 {
				n = int64(v.Int32())
			}
			return time.Unix(0, 0).UTC().Add(time.Duration(n) * unit).Format("15:04:05.999999999")
		}, false, false)
		b.notes = append(b.notes, fmt.Sprintf("%q holds times of day; they were read as text (HH:MM:SS)", field.Name()))
	case *format.IntType:
		b.unsigned = !lt.IsSigned && lt.BitWidth == 64
		return false, nil
	case *format.Float16Type, *format.VariantType, *format.GeometryType, *format.GeographyType:
		return true, &Error{fmt.Sprintf("column %q has the Parquet type %s, which analyst cannot convert; cast it to a number or text first", field.Name(), t)}
	default:
		return false, nil
	}
	return true, nil
}

// unitNanos is a Parquet time unit in nanoseconds.
func unitNanos(unit any) int64 {
	switch unit.(type) {
	case *format.MilliSeconds:
		return 1_000_000
	case *format.MicroSeconds:
		return 1_000
	}
	return 1
}

// physical sets the builder up for a column read by its physical type.
func (b *builder) physical(field *parquet.Column, pandasType string, ordered bool) error {
	t := field.Type()
	lt := t.LogicalType()
	switch t.Kind() {
	case parquet.Boolean:
		b.col.Kind, b.col.Dtype = KindBool, "|b1"
		b.value = func(v parquet.Value) { b.bools = append(b.bools, v.Boolean()); b.nulls = append(b.nulls, false) }
		b.null = func() { b.bools = append(b.bools, false); b.nulls = append(b.nulls, true) }
	case parquet.Int32:
		b.integer(func(v parquet.Value) int64 {
			if b.unsigned || (lt != nil && !isSigned(lt)) {
				return int64(uint32(v.Int32()))
			}
			return int64(v.Int32())
		})
	case parquet.Int64:
		b.integer(parquet.Value.Int64)
	case parquet.Int96:
		// Old Spark and Impala timestamps: nanoseconds of the day, then the Julian day.
		b.datetime(func(v parquet.Value) int64 {
			x := v.Int96()
			nanos := int64(uint64(x[1])<<32 | uint64(x[0]))
			return scaleNanos(int64(x[2])-2_440_588, 86_400_000_000_000) + nanos
		})
	case parquet.Float:
		b.float32 = true
		b.floating(func(v parquet.Value) float64 { return float64(v.Float()) })
	case parquet.Double:
		b.floating(parquet.Value.Double)
	case parquet.ByteArray:
		b.text(nil, pandasType == "categorical", ordered)
	case parquet.FixedLenByteArray:
		b.text(func(v parquet.Value) string { return hex.EncodeToString(v.ByteArray()) }, false, false)
		b.notes = append(b.notes, fmt.Sprintf("%q holds fixed-length bytes; they were read as hexadecimal text", field.Name()))
	default:
		return &Error{fmt.Sprintf("column %q has the Parquet type %s, which analyst cannot convert", field.Name(), t)}
	}
	return nil
}

func isSigned(lt *format.LogicalType) bool {
	it, ok := lt.Value.(*format.IntType)
	return !ok || it.IsSigned
}

func (b *builder) integer(get func(parquet.Value) int64) {
	b.col.Kind, b.col.Dtype = KindInt, "<i8"
	b.ints, b.nulls = make([]int64, 0, b.rows), make([]bool, 0, b.rows)
	if b.unsigned {
		b.col.Dtype = "<u8"
	}
	b.value = func(v parquet.Value) { b.ints = append(b.ints, get(v)); b.nulls = append(b.nulls, false) }
	b.null = func() { b.ints = append(b.ints, 0); b.nulls = append(b.nulls, true) }
}

func (b *builder) floating(get func(parquet.Value) float64) {
	b.col.Kind, b.col.Dtype = KindFloat, "<f8"
	b.floats = make([]float64, 0, b.rows)
	if b.float32 {
		b.col.Dtype = "<f4"
	}
	b.value = func(v parquet.Value) { b.floats = append(b.floats, get(v)) }
	b.null = func() { b.floats = append(b.floats, math.NaN()) }
}

// natInt64 is how NumPy stores NaT in datetime64.
const natInt64 = math.MinInt64

func (b *builder) datetime(get func(parquet.Value) int64) {
	b.col.Kind, b.col.Dtype = KindDatetime, "<i8"
	b.ints = make([]int64, 0, b.rows)
	b.value = func(v parquet.Value) { b.ints = append(b.ints, get(v)) }
	b.null = func() { b.ints = append(b.ints, natInt64) }
}

func (b *builder) text(get func(parquet.Value) string, category, ordered bool) {
	b.col.Kind, b.col.Dtype = KindString, "<i4"
	b.codes = make([]int32, 0, b.rows)
	if category {
		b.col.Kind, b.col.Ordered = KindCategory, ordered
	}
	b.col.Categories = strings.TrimSuffix(b.col.File, ".npy") + ".json"
	b.index = map[string]int32{}
	b.value = func(v parquet.Value) { b.codes = append(b.codes, b.code(get(v))) }
	if get == nil { // the bytes are the text: look them up without a copy
		b.value = func(v parquet.Value) { b.codes = append(b.codes, b.codeBytes(v.ByteArray())) }
	}
	b.null = func() { b.codes = append(b.codes, -1) }
}

func (b *builder) codeBytes(raw []byte) int32 {
	if c, ok := b.index[string(raw)]; ok {
		return c
	}
	return b.code(string(raw))
}

func (b *builder) code(s string) int32 {
	c, ok := b.index[s]
	if !ok {
		c = int32(len(b.cats))
		b.index[s] = c
		b.cats = append(b.cats, s)
	}
	return c
}

// scaleNanos multiplies, saturating instead of wrapping (dates beyond the
// years 1677-2262 do not fit datetime64[ns]).
func scaleNanos(v, scale int64) int64 {
	if v > math.MaxInt64/scale || v < (math.MinInt64+1)/scale {
		if v > 0 {
			return math.MaxInt64
		}
		return math.MinInt64 + 1
	}
	return v * scale
}

// decimalValue is a decimal's unscaled integer, from any of its physical
// types (big-endian two's complement for byte arrays).
func decimalValue(v parquet.Value, kind parquet.Kind) float64 {
	switch kind {
	case parquet.Int32:
		return float64(v.Int32())
	case parquet.Int64:
		return float64(v.Int64())
	}
	raw := v.ByteArray()
	n := new(big.Int).SetBytes(raw)
	if len(raw) > 0 && raw[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(raw))))
	}
	f, _ := new(big.Float).SetInt(n).Float64()
	return f
}

func (b *builder) readChunk(chunk parquet.ColumnChunk) error {
	pages := chunk.Pages()
	defer pages.Close()
	buf := make([]parquet.Value, 4096)
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if b.col.Kind == KindCategory && len(b.cats) == 0 {
			// Keep the categories' order as written (pandas' order), unused ones included.
			if d := p.Dictionary(); d != nil {
				for i := range d.Len() {
					b.code(string(d.Index(int32(i)).ByteArray()))
				}
			}
		}
		values := p.Values()
		for {
			n, err := values.ReadValues(buf)
			for _, v := range buf[:n] {
				if v.IsNull() {
					b.null()
				} else {
					b.value(v)
				}
			}
			b.n += n
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				parquet.Release(p)
				return err
			}
		}
		parquet.Release(p)
	}
}

func (b *builder) write(dir string) error {
	path := filepath.Join(dir, b.col.File)
	hasNull := false
	for _, n := range b.nulls {
		hasNull = hasNull || n
	}
	switch b.col.Kind {
	case KindInt:
		if hasNull {
			// As pandas.read_parquet does: integers with nulls become floats with NaN.
			b.col.Dtype = "<f8"
			fl := make([]float64, len(b.ints))
			for i, v := range b.ints {
				fl[i] = float64(v)
				if b.nulls[i] {
					fl[i] = math.NaN()
				}
			}
			return writeNPY(path, "<f8", fl, putFloat64)
		}
		return writeNPY(path, b.col.Dtype, b.ints, putInt64)
	case KindDatetime:
		return writeNPY(path, "<i8", b.ints, putInt64)
	case KindFloat:
		if b.float32 {
			return writeNPY(path, "<f4", b.floats, putFloat32)
		}
		return writeNPY(path, "<f8", b.floats, putFloat64)
	case KindBool:
		if hasNull {
			b.col.Mask = strings.TrimSuffix(b.col.File, ".npy") + ".mask.npy"
			if err := writeNPY(filepath.Join(dir, b.col.Mask), "|b1", b.nulls, putBool); err != nil {
				return err
			}
		}
		return writeNPY(path, "|b1", b.bools, putBool)
	default: // KindString, KindCategory
		js, err := json.Marshal(b.cats)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, b.col.Categories), js, 0o644); err != nil {
			return err
		}
		return writeNPY(path, "<i4", b.codes, putInt32)
	}
}
