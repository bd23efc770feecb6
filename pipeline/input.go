package pipeline

import (
	"bytes"
	"compress/bzip2"
	"compress/gzip"
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

// Input is a checked dataset.
type Input struct {
	Path   string // absolute
	Name   string // base name, as mounted at /data/NAME
	Bytes  int64
	SHA256 string
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
	if err := checkFormat(abs, f); err != nil {
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
	return &Input{Path: abs, Name: filepath.Base(abs), Bytes: size, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// format is a kind of file, known by its extensions and, where it has one,
// its signature (magic bytes at the start).
type format struct {
	name  string
	exts  []string
	magic []string
	// text formats must not look binary in their first bytes.
	text bool
	// unsupported, if set, says why the kernel cannot read it and what to do.
	unsupported string
}

// formats the kernel's loader reads, and those it cannot but recognises.
// Any file may be gzip-compressed (NAME.csv.gz).
var formats = []format{
	{name: "CSV", exts: []string{".csv", ".tsv", ".tab", ".txt"}, text: true},
	{name: "JSON", exts: []string{".json", ".jsonl", ".ndjson"}, text: true},
	{name: "Excel workbook", exts: []string{".xlsx", ".xlsm"}, magic: []string{"PK\x03\x04"}},
	{name: "Parquet", exts: []string{".parquet", ".pq"}, magic: []string{"PAR1"},
		unsupported: "Parquet needs pyarrow, which the kernel image does not have (Debian 12 packages no pyarrow); " +
			"convert it to CSV first, for example with duckdb: COPY (SELECT * FROM 'data.parquet') TO 'data.csv'"},
	{name: "old Excel", exts: []string{".xls"}, magic: []string{"\xd0\xcf\x11\xe0"},
		unsupported: "old Excel files (.xls) are not supported; save the sheet as .xlsx or CSV"},
	{name: "Arrow", exts: []string{".feather", ".arrow", ".orc"}, magic: []string{"ARROW1"},
		unsupported: "Arrow, Feather and ORC files need pyarrow, which the kernel image does not have; convert to CSV first"},
}

// notTables are files that hold no table analyst can read, by signature.
var notTables = []struct{ magic, what string }{
	{"%PDF", "a PDF document, not a table; export the table as CSV"},
	{"\x89PNG", "a PNG image, not a table"},
	{"\xff\xd8\xff", "a JPEG image, not a table"},
	{"GIF8", "a GIF image, not a table"},
	{"SQLite format 3\x00", "an SQLite database; export a table as CSV (sqlite3 -header -csv FILE 'select * from TABLE' > table.csv)"},
	{"7z\xbc\xaf", "a 7-Zip archive; extract the table first"},
	{"Rar!", "a RAR archive; extract the table first"},
}

// compressions the loader undoes whatever the file's name says; the checks
// look at the decompressed bytes (xz: not at all, Go has no xz reader).
var compressions = []struct {
	name, magic string
	open        func(io.Reader) (io.Reader, error)
}{
	{"gzip", "\x1f\x8b", func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }},
	{"bzip2", "BZh", func(r io.Reader) (io.Reader, error) { return bzip2.NewReader(r), nil }},
	{"xz", "\xfd7zXZ\x00", nil},
}

// sniffBytes is how much of the file (decompressed) the checks look at, as
// the kernel's loader does.
const sniffBytes = 8 << 10

// checkFormat rejects, before any kernel starts, what the kernel cannot
// read: by extension, by signature, and text that looks binary.
func checkFormat(path string, r io.Reader) error {
	lower := strings.ToLower(filepath.Base(path))
	ext := filepath.Ext(lower)
	gzipped := ext == ".gz" || ext == ".gzip"
	if gzipped {
		ext = filepath.Ext(strings.TrimSuffix(lower, ext))
	}
	f, known := formatOf(ext)
	switch {
	case known && f.unsupported != "":
		return errors.New(f.unsupported)
	case !known && ext == "":
		return errors.New("the file has no extension; name it .csv, .tsv, .json, .jsonl or .xlsx so analyst knows how to read it")
	case !known:
		return fmt.Errorf("unknown file type %s; analyst reads %s (optionally gzip-compressed, .gz)", ext, strings.Join(readableExts(), " "))
	}

	head, err := readHead(r)
	if err != nil {
		return err
	}
	compression := ""
	for _, c := range compressions {
		if !strings.HasPrefix(string(head), c.magic) {
			continue
		}
		compression = c.name
		if c.open == nil {
			return nil
		}
		if head, err = decompressHead(c.name, c.open, head, r); err != nil {
			return err
		}
		break
	}
	if gzipped && compression != "gzip" {
		return errors.New("the file is named .gz but is not gzip-compressed; rename it without .gz")
	}
	if f.text {
		// Text is text, whatever its first bytes spell ("PAR1,PAR2"); text
		// that is not may be another known kind of file, worth naming.
		err := checkText(head)
		if err != nil {
			if what := identify(head, f, ext); what != nil {
				return what
			}
		}
		return err
	}
	if f.matches(head) {
		return nil
	}
	if what := identify(head, f, ext); what != nil {
		return what
	}
	return fmt.Errorf("the file is named like an %s (%s) but is not one; re-export it", f.name, ext)
}

// identify names what a file named ext (format f) really is, from its
// signature, or returns nil.
func identify(head []byte, f format, ext string) error {
	for _, other := range formats {
		if other.name == f.name || !other.matches(head) {
			continue
		}
		switch {
		case other.unsupported != "":
			return fmt.Errorf("the file is named %s but is really %s: %s", ext, other.name, other.unsupported)
		case other.name == "Excel workbook":
			return fmt.Errorf("the file is named %s but is a zip archive (an Excel workbook, or a compressed file): "+
				"if it is a workbook, name it .xlsx; otherwise extract the table from it", ext)
		default:
			return fmt.Errorf("the file is named %s but is %s; name it accordingly", ext, other.name)
		}
	}
	for _, nt := range notTables {
		if strings.HasPrefix(string(head), nt.magic) {
			return fmt.Errorf("the file is %s", nt.what)
		}
	}
	return nil
}

func formatOf(ext string) (format, bool) {
	for _, f := range formats {
		if slices.Contains(f.exts, ext) {
			return f, true
		}
	}
	return format{}, false
}

func (f format) matches(head []byte) bool {
	for _, m := range f.magic {
		if strings.HasPrefix(string(head), m) {
			return true
		}
	}
	return false
}

// readableExts lists the extensions the kernel's loader reads.
func readableExts() []string {
	var exts []string
	for _, f := range formats {
		if f.unsupported == "" {
			exts = append(exts, f.exts...)
		}
	}
	return exts
}

func readHead(r io.Reader) ([]byte, error) {
	head := make([]byte, sniffBytes)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("reading: %w", err)
	}
	return head[:n], nil
}

func decompressHead(name string, open func(io.Reader) (io.Reader, error), head []byte, rest io.Reader) ([]byte, error) {
	zr, err := open(io.MultiReader(bytes.NewReader(head), rest))
	if err == nil {
		// Not io.ReadFull: a stream cut short is an error here, not a short read.
		var out bytes.Buffer
		_, err = io.Copy(&out, io.LimitReader(zr, sniffBytes))
		head = out.Bytes()
	}
	if err != nil {
		return nil, fmt.Errorf("the file starts like a %s archive but cannot be decompressed (%v); is it complete?", name, err)
	}
	if len(head) == 0 {
		return nil, errors.New("the file is empty once decompressed")
	}
	return head, nil
}

// checkText refuses text that looks binary, by the loader's own rules: NUL
// bytes, or more than 5% control characters, in the first 8 KiB. UTF-16
// (with its byte-order mark) has NULs and is fine.
func checkText(head []byte) error {
	if bytes.HasPrefix(head, []byte("\xff\xfe")) || bytes.HasPrefix(head, []byte("\xfe\xff")) {
		return nil
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return errors.New("the file looks binary (NUL bytes in the first 8 KB); is it really a CSV or JSON file? Export the data as CSV and try again")
	}
	controls := 0
	for _, b := range head {
		if b < 9 || (b >= 14 && b < 32) {
			controls++
		}
	}
	if controls*20 > len(head) {
		return errors.New("the file looks binary (many control characters in the first 8 KB); is it really a CSV or JSON file? Export the data as CSV and try again")
	}
	if len(head) < sniffBytes && len(bytes.TrimSpace(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")))) == 0 {
		return errors.New("the file holds only blank space: no header and no rows; check that the export that wrote it finished")
	}
	return nil
}
