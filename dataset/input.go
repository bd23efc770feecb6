package dataset

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

	"github.com/analyst-cli/analyst/internal/dirfd"
)

// InputError is a dataset analyst cannot use: missing, unreadable, empty, or
// in a format the kernel cannot read. Its message says what to do.
type InputError struct {
	Path string
	Msg  string
}

func (e *InputError) Error() string { return e.Path + ": " + e.Msg }

// DataError is data the kernel's loader could not read (its message says
// why and what to do).
type DataError struct {
	Path string // the dataset, as the user named it
	Msg  string
}

func (e *DataError) Error() string { return e.Path + ": " + e.Msg }

// Input is a checked dataset.
type Input struct {
	Path   string // absolute
	Name   string // base name, as mounted at /data/NAME
	Bytes  int64
	SHA256 string
	Format string // the loader's name for it: csv, json, xlsx, xls, ods, sav, dta, sas7bdat, xpt, sqlite, parquet
	// Frame estimates the memory the data takes once loaded (nil: not
	// estimated); see CheckMemory.
	Frame *FrameEstimate
	// id is the file as it was hashed: a run checks that the file it read
	// is still that one (see unchanged).
	id fileID
	// dir and rel, for a folder's file, are its folder opened once and its
	// path there: the file is opened by them alone (see open).
	dir *dirfd.Dir
	rel string
	// Folder is set when the dataset is a folder (Format FormatFolder): its
	// files, each checked and hashed. Path, Name, Bytes and SHA256 are then
	// the folder's (see Folder.Digest).
	Folder *Folder
}

// CheckFile makes sure path is a dataset the kernel can read, before any
// container starts, and hashes it for the run manifest.
func CheckFile(path string) (*Input, error) {
	in, err := checkFile(path)
	if err != nil {
		return nil, err
	}
	if strings.ContainsAny(in.Path, ",:") {
		return nil, &InputError{path, "the path contains ',' or ':', which podman cannot mount; copy or link the file to a plain path"}
	}
	return in, nil
}

// checkFile checks and hashes one data file: CheckFile's work but for
// the place it is mounted from (a folder's files are staged under plain
// names).
func checkFile(path string) (*Input, error) {
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
		return nil, &InputError{path, "is a folder; give one data file (CSV, TSV, JSON, JSON Lines, a spreadsheet, SPSS, Stata, SAS, SQLite or Parquet)"}
	}
	in := &Input{Path: abs}
	f, err := in.open()
	if err != nil {
		return nil, &InputError{path, openError(err)}
	}
	defer f.Close()
	return checkOpened(path, in, f)
}

// openError says why a data file could not be opened, and what to do.
func openError(err error) string {
	var nr *dirfd.NotRegularError
	switch {
	case errors.As(err, &nr):
		return "is " + dirfd.Kind(nr.Mode) + ", not a regular file: analyst reads data from regular files only; copy the data into a file"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied: analyst cannot read the file; check its permissions (chmod a+r)"
	}
	return unwrapPathError(err)
}

// checkOpened checks and hashes the data file open as f (in's file, path
// as the user named it), by the descriptor: its format, its bytes, and
// that it did not change while read.
func checkOpened(path string, in *Input, f *os.File) (*Input, error) {
	before, err := f.Stat()
	if err != nil {
		return nil, &InputError{path, err.Error()}
	}
	if before.Size() == 0 {
		return nil, &InputError{path, "the file is empty"}
	}
	format, err := checkFormat(in.Path, f)
	if err != nil {
		return nil, &InputError{path, err.Error()}
	}
	var size int64
	after, sum, why, err := readSteady(f, func(r io.Reader) ([]byte, error) {
		h := sha256.New()
		n, err := io.Copy(h, r)
		size = n
		return h.Sum(nil), err
	})
	if err != nil {
		return nil, &InputError{path, "reading: " + err.Error()}
	}
	if why == "" {
		why = idOf(before).changed(idOf(after), false) // while its format was checked
	}
	if why != "" {
		return nil, &InputError{path, changedWhileRead(why)}
	}
	in.Name, in.Bytes, in.SHA256, in.Format, in.id = filepath.Base(in.Path), size, hex.EncodeToString(sum), format, idOf(after)
	// An estimate that fails leaves the memory check to the kernel. It
	// reads the file by the descriptor too (/proc/self/fd/N is the file f
	// holds, whatever its path now names).
	in.Frame, _ = EstimateFrame(fdPath(f), format, size)
	return in, nil
}

// fdPath names the file f holds, by its descriptor.
func fdPath(f *os.File) string { return fmt.Sprintf("/proc/self/fd/%d", f.Fd()) }

// open opens the data file by the descriptor of its folder (a folder's
// file: no link followed) or by its path (a file the user named), checked
// to be a regular file and never blocking on a FIFO.
func (in *Input) open() (*os.File, error) {
	if in.dir != nil {
		return in.dir.Open(in.rel)
	}
	return dirfd.OpenFile(in.Path)
}

// format is a kind of file, known by its extensions and, where it has one,
// its signature (magic bytes at the start).
type format struct {
	name  string   // as the loader names it (load_info["format"])
	exts  []string // lower case, with the dot
	magic []string // the file starts with one of these; none: not checked
	what  string   // for messages: "an SPSS data file (.sav)"
	// text formats must not look binary in their first bytes; they alone
	// may be gzip-compressed (NAME.csv.gz).
	text bool
	// unsupported, if set, says why the kernel cannot read it and what to do.
	unsupported string
}

// formats the kernel's loader reads, and those it cannot but recognises.
var formats = []format{
	{name: "csv", exts: []string{".csv", ".tsv", ".tab", ".txt"}, what: "a CSV file", text: true},
	{name: "json", exts: []string{".json", ".jsonl", ".ndjson"}, what: "a JSON file", text: true},
	{name: "xlsx", exts: []string{".xlsx", ".xlsm"}, magic: []string{"PK\x03\x04"}, what: "an Excel workbook (.xlsx)"},
	{name: "xls", exts: []string{".xls"}, magic: []string{"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"}, what: "an Excel 97-2003 workbook (.xls)"},
	{name: "ods", exts: []string{".ods"}, magic: []string{"PK\x03\x04"}, what: "an OpenDocument spreadsheet (.ods)"},
	{name: "sav", exts: []string{".sav", ".zsav"}, magic: []string{"$FL2", "$FL3"}, what: "an SPSS data file (.sav)"},
	// Stata: "<stata_dta>" since version 117, before that a version byte (102-116).
	{name: "dta", exts: []string{".dta"}, magic: append([]string{"<stata_dta>"}, versionBytes(102, 116)...), what: "a Stata data file (.dta)"},
	{name: "sas7bdat", exts: []string{".sas7bdat"}, magic: []string{sas7bdatMagic}, what: "a SAS data set (.sas7bdat)"},
	{name: "xpt", exts: []string{".xpt"}, magic: []string{"HEADER RECORD*******LIB"}, what: "a SAS transport file (.xpt)"},
	{name: "sqlite", exts: []string{".sqlite", ".sqlite3", ".db"}, magic: []string{"SQLite format 3\x00"}, what: "an SQLite database"},
	{name: "parquet", exts: []string{".parquet", ".pq"}, magic: []string{"PAR1"}, what: "a Parquet file"},
	{name: "arrow", exts: []string{".feather", ".arrow", ".orc"}, magic: []string{"ARROW1"}, what: "an Arrow, Feather or ORC file",
		unsupported: "Arrow, Feather and ORC files need pyarrow, which the kernel image does not have (Debian packages none); " +
			"convert to Parquet or CSV first, for example with DuckDB: COPY (SELECT * FROM 'data.arrow') TO 'data.parquet'"},
}

const sas7bdatMagic = "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xc2\xea\x81\x60\xb3\x14\x11\xcf\xbd\x92\x08\x00\x09\xc7\x31\x8c\x18\x1f\x10\x11"

func versionBytes(from, to byte) []string {
	var out []string
	for v := from; v <= to; v++ {
		out = append(out, string([]byte{v}))
	}
	return out
}

// Spreadsheets take --sheet; SQLite databases take --table.
var (
	sheetFormats = []string{"xlsx", "xls", "ods"}
	tableFormats = []string{"sqlite"}
)

// notTables are files that hold no table analyst can read, by signature.
var notTables = []struct{ magic, what string }{
	{"%PDF", "a PDF document, not a table; export the table as CSV"},
	{"\x89PNG", "a PNG image, not a table"},
	{"\xff\xd8\xff", "a JPEG image, not a table"},
	{"GIF8", "a GIF image, not a table"},
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

// checkFormat says which of formats the file is in and rejects, before any
// kernel starts, what the kernel cannot read: by extension, by signature,
// and text that looks binary.
func checkFormat(path string, r io.Reader) (string, error) {
	lower := strings.ToLower(filepath.Base(path))
	ext := filepath.Ext(lower)
	gzipped := ext == ".gz" || ext == ".gzip"
	if gzipped {
		ext = filepath.Ext(strings.TrimSuffix(lower, ext))
	}
	head, err := readHead(r)
	if err != nil {
		return "", err
	}
	f, known := formatOf(ext)
	switch {
	case known && f.unsupported != "":
		return "", errors.New(f.unsupported)
	case known && gzipped && !f.text:
		return "", fmt.Errorf("%s cannot be read gzip-compressed; decompress it first (gunzip)", f.what)
	case !known && ext == "":
		// A file with no extension is known by its signature, if it has one.
		for _, g := range formats {
			// Stata's old version bytes are too short a signature to trust.
			if len(g.magic) > 0 && g.name != "dta" && g.unsupported == "" && g.matches(head) {
				return g.name, nil
			}
		}
		return "", errors.New("the file has no extension; name it .csv, .tsv, .json, .jsonl, .xlsx, ... so analyst knows how to read it")
	case !known:
		return "", fmt.Errorf("unknown file type %s; analyst reads %s (CSV and JSON optionally gzip-compressed, .gz)", ext, strings.Join(readableExts(), " "))
	}

	compression := ""
	for _, c := range compressions {
		if !strings.HasPrefix(string(head), c.magic) {
			continue
		}
		compression = c.name
		if c.open == nil {
			return f.name, nil
		}
		if !f.text {
			break // a binary format's own bytes may start like a compression
		}
		if head, err = decompressHead(c.name, c.open, head, r); err != nil {
			return "", err
		}
		break
	}
	if gzipped && compression != "gzip" {
		return "", errors.New("the file is named .gz but is not gzip-compressed; rename it without .gz")
	}
	if f.text {
		// Text is text, whatever its first bytes spell ("PAR1,PAR2"); text
		// that is not may be another known kind of file, worth naming.
		err := checkText(head)
		if err != nil {
			if what := identify(head, f, ext); what != nil {
				return "", what
			}
		}
		return f.name, err
	}
	if f.matches(head) {
		return f.name, nil
	}
	if what := identify(head, f, ext); what != nil {
		return "", what
	}
	return "", fmt.Errorf("named like %s, but the file is not one (it does not start as one does); re-export it, or rename it to what it is", f.what)
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
			return fmt.Errorf("the file is named %s but is really %s: %s", ext, other.what, other.unsupported)
		case other.name == "dta":
			continue // a version byte is too short a signature to name
		case other.name == "xlsx" || other.name == "ods":
			return fmt.Errorf("the file is named %s but is a zip archive (an Excel workbook or OpenDocument spreadsheet, or a compressed file): "+
				"if it is a spreadsheet, name it .xlsx or .ods; otherwise extract the table from it", ext)
		default:
			return fmt.Errorf("the file is named %s but is %s; name it accordingly", ext, other.what)
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

// CheckSource checks that --sheet and --table fit the file's format.
func (in *Input) CheckSource(sheet, table string) error {
	if sheet != "" && !slices.Contains(sheetFormats, in.Format) {
		return &UsageError{fmt.Errorf("%s: --sheet is for spreadsheets (.xlsx, .xls, .ods), but this file is %s", in.Path, in.Format)}
	}
	if table != "" && !slices.Contains(tableFormats, in.Format) {
		return &UsageError{fmt.Errorf("%s: --table is for SQLite databases, but this file is %s", in.Path, in.Format)}
	}
	return nil
}
