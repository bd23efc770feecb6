package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// InputError is a dataset analyst cannot use: missing, unreadable, empty, or
// in a format the kernel cannot read. Its message says what to do.
type InputError struct {
	Path string
	Msg  string
}

func (e *InputError) Error() string { return e.Path + ": " + e.Msg }

// format is a kind of file the kernel's loader reads (or, with reject set,
// one it cannot, and what to do instead).
type format struct {
	name       string   // as load_info["format"] says it
	exts       []string // lower case, with the dot
	magic      [][]byte // the file starts with one of these; none: not checked
	what       string   // for messages: "an SPSS data file (.sav)"
	compressed bool     // may be gzip-compressed (NAME.csv.gz)
	reject     string   // non-empty: not readable; the message
}

// formats are checked in order: by extension, then (for a file whose
// extension names no format) by magic bytes.
var formats = []format{
	{name: "csv", exts: []string{".csv", ".tsv", ".tab", ".txt"}, what: "CSV", compressed: true},
	{name: "json", exts: []string{".json", ".jsonl", ".ndjson"}, what: "JSON", compressed: true},
	{name: "xlsx", exts: []string{".xlsx", ".xlsm"}, magic: [][]byte{[]byte("PK\x03\x04")}, what: "an Excel workbook (.xlsx)"},
	{name: "xls", exts: []string{".xls"}, magic: [][]byte{[]byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")}, what: "an Excel 97-2003 workbook (.xls)"},
	{name: "ods", exts: []string{".ods"}, magic: [][]byte{[]byte("PK\x03\x04")}, what: "an OpenDocument spreadsheet (.ods)"},
	{name: "sav", exts: []string{".sav", ".zsav"}, magic: [][]byte{[]byte("$FL2"), []byte("$FL3")}, what: "an SPSS data file (.sav)"},
	// Stata: "<stata_dta>" since version 117, before that a version byte (102-116).
	{name: "dta", exts: []string{".dta"}, magic: append([][]byte{[]byte("<stata_dta>")}, versionBytes(102, 116)...), what: "a Stata data file (.dta)"},
	{name: "sas7bdat", exts: []string{".sas7bdat"}, magic: [][]byte{sas7bdatMagic}, what: "a SAS data set (.sas7bdat)"},
	{name: "xpt", exts: []string{".xpt"}, magic: [][]byte{[]byte("HEADER RECORD*******LIB")}, what: "a SAS transport file (.xpt)"},
	{name: "sqlite", exts: []string{".sqlite", ".sqlite3", ".db"}, magic: [][]byte{[]byte("SQLite format 3\x00")}, what: "an SQLite database"},
	{name: "parquet", exts: []string{".parquet", ".pq"}, magic: [][]byte{[]byte("PAR1")}, what: "a Parquet file"},
	{exts: []string{".feather", ".arrow", ".orc"}, reject: "Arrow, Feather and ORC files need pyarrow, which the kernel image does not have (Debian packages none); " +
		"convert to Parquet or CSV first, for example with DuckDB: COPY (SELECT * FROM 'data.arrow') TO 'data.parquet'"},
}

var sas7bdatMagic = []byte("\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xc2\xea\x81\x60\xb3\x14\x11\xcf\xbd\x92\x08\x00\x09\xc7\x31\x8c\x18\x1f\x10\x11")

func versionBytes(from, to byte) [][]byte {
	var out [][]byte
	for v := from; v <= to; v++ {
		out = append(out, []byte{v})
	}
	return out
}

// Spreadsheets take --sheet; SQLite databases take --table.
var (
	sheetFormats = []string{"xlsx", "xls", "ods"}
	tableFormats = []string{"sqlite"}
)

func readableExtensions() string {
	var exts []string
	for _, f := range formats {
		if f.reject == "" {
			exts = append(exts, f.exts...)
		}
	}
	return strings.Join(exts, " ")
}

// Input is a checked dataset.
type Input struct {
	Path   string // absolute
	Name   string // base name, as mounted at /data/NAME
	Bytes  int64
	SHA256 string
	Format string // a formats name: csv, json, xlsx, parquet, ...
}

// CheckInput makes sure path is a dataset the kernel can read, before any
// container starts, and hashes it for the run manifest.
func CheckInput(path string) (*Input, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &InputError{path, err.Error()}
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &InputError{path, "no such file; check the path"}
	case errors.Is(err, fs.ErrPermission):
		return nil, &InputError{path, "permission denied; check the folder's permissions"}
	case err != nil:
		return nil, &InputError{path, err.Error()}
	case fi.IsDir():
		return nil, &InputError{path, "is a folder; give one data file (CSV, TSV, JSON, JSON Lines or Excel)"}
	case !fi.Mode().IsRegular():
		return nil, &InputError{path, "is not a regular file"}
	case fi.Size() == 0:
		return nil, &InputError{path, "the file is empty"}
	}
	f, err := os.Open(abs)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, &InputError{path, "permission denied: analyst cannot read the file; check its permissions (chmod a+r)"}
		}
		return nil, &InputError{path, err.Error()}
	}
	defer f.Close()
	head := make([]byte, 64)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	format, err := checkFormat(abs, head)
	if err != nil {
		return nil, &InputError{path, err.Error()}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, &InputError{path, err.Error()}
	}
	h := sha256.New()
	size, err := io.Copy(h, f)
	if err != nil {
		return nil, &InputError{path, "reading: " + err.Error()}
	}
	if strings.ContainsAny(abs, ",:") {
		return nil, &InputError{path, "the path contains ',' or ':', which podman cannot mount; copy or link the file to a plain path"}
	}
	return &Input{Path: abs, Name: filepath.Base(abs), Bytes: size, SHA256: hex.EncodeToString(h.Sum(nil)), Format: format}, nil
}

// checkFormat says which of formats the file is in, by extension and magic
// bytes, and rejects what the kernel cannot read.
func checkFormat(path string, head []byte) (string, error) {
	lower := strings.ToLower(filepath.Base(path))
	ext := filepath.Ext(lower)
	gzipped := ext == ".gz" || ext == ".gzip"
	if gzipped {
		ext = filepath.Ext(strings.TrimSuffix(lower, ext))
	}
	for _, f := range formats {
		if !slices.Contains(f.exts, ext) {
			continue
		}
		switch {
		case f.reject != "":
			return "", errors.New(f.reject)
		case gzipped && !f.compressed:
			return "", fmt.Errorf("%s cannot be read gzip-compressed; decompress it first (gunzip)", f.what)
		case !gzipped && len(f.magic) > 0 && !hasPrefix(head, f.magic):
			return "", fmt.Errorf("named like %s, but the file is not one (it does not start as one does); "+
				"re-export it, or rename it to what it is", f.what)
		}
		return f.name, nil
	}
	if ext == "" {
		for _, f := range formats {
			// Stata's old version bytes are too short a signature to trust.
			if len(f.magic) > 0 && f.name != "dta" && hasPrefix(head, f.magic) {
				return f.name, nil
			}
		}
		return "", errors.New("the file has no extension; name it .csv, .tsv, .json, .jsonl, .xlsx, ... so analyst knows how to read it")
	}
	return "", fmt.Errorf("unknown file type %s; analyst reads %s (CSV and JSON optionally gzip-compressed, .gz)", ext, readableExtensions())
}

func hasPrefix(head []byte, magic [][]byte) bool {
	for _, m := range magic {
		if bytes.HasPrefix(head, m) {
			return true
		}
	}
	return false
}

// CheckSource checks that --sheet and --table fit the file's format.
func (in *Input) CheckSource(sheet, table string) error {
	if sheet != "" && !slices.Contains(sheetFormats, in.Format) {
		return &InputError{in.Path, fmt.Sprintf("--sheet is for spreadsheets (.xlsx, .xls, .ods), but this file is %s", in.Format)}
	}
	if table != "" && !slices.Contains(tableFormats, in.Format) {
		return &InputError{in.Path, fmt.Sprintf("--table is for SQLite databases, but this file is %s", in.Format)}
	}
	return nil
}
