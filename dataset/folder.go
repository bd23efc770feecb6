package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/internal/dirfd"
	"github.com/analyst-cli/analyst/internal/filehash"
	"github.com/analyst-cli/analyst/internal/mdheadings"
	"github.com/analyst-cli/analyst/internal/units"
)

// A dataset can be a folder: its tables (files in any format analyst reads)
// and its documents (.md, .markdown, .txt, .rst), told apart by extension,
// each checked and hashed before any kernel starts. Hidden files and
// folders (.git, .DS_Store) are left out silently; any other file is listed
// as ignored, with why. Subfolders are read: a table's name keeps its path.

// The kinds of a dataset's files (run.json's inputs) and a folder's
// format are eda's (eda.InputTable, ...), which the report and audit read.
const (
	FormatFolder  = eda.FormatFolder
	InputTable    = eda.InputTable
	InputDocument = eda.InputDocument
	InputIgnored  = eda.InputIgnored
	InputSkipped  = eda.InputSkipped
)

// Caps on a folder, checked on the file system's metadata before any file
// is read: how many files it may hold (hidden ones not counted), and how
// many bytes its tables and documents may take together.
const (
	MaxFolderFiles = 1000
	MaxFolderBytes = 16 << 30
)

// maxFolderWalk bounds the entries looked at before a folder is refused as
// too big: the message then says "more than".
const maxFolderWalk = 10 * MaxFolderFiles

// documentFormats are the documents' extensions and their formats.
var documentFormats = map[string]string{".md": "markdown", ".markdown": "markdown", ".txt": "text", ".rst": "rst"}

// File is one file of a dataset (run.json's inputs).
type File struct {
	Path   string `json:"path"` // relative to the folder, with '/'; a file's name
	Kind   string `json:"kind"`
	Format string `json:"format,omitempty"` // tables: the loader's name; documents: markdown, text or rst
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256,omitempty"`
	// Table is a table's name in the kernel (tables[NAME]).
	Table string `json:"table,omitempty"`
	// Reason says why a file is ignored or skipped.
	Reason string `json:"reason,omitempty"`
	// In is a table's or document's checked file: its host path (a link
	// inside the folder resolved), hash, format and frame estimate.
	In *Input `json:"-"`
	// Headings are a Markdown document's; HeadingCount how many.
	Headings     *mdheadings.Result `json:"-"`
	HeadingCount int                `json:"headings,omitempty"`
	// Shown is the file as the user would name it: the folder they gave
	// joined with its path, or the file they gave.
	Shown string `json:"-"`
}

// Folder is a checked folder dataset, or a set of files and folders given
// one by one (analyst run --data A --data B), seen as one folder.
type Folder struct {
	Path string // absolute, as given; "" for a set
	// Given are the files and folders of a set, absolute, as given.
	Given []string
	Files []*File // every file but the hidden ones, by path
}

// Tables are the folder's tables, by path.
func (f *Folder) Tables() []*File { return f.kind(InputTable) }

// Documents are the folder's documents, by path.
func (f *Folder) Documents() []*File { return f.kind(InputDocument) }

func (f *Folder) kind(k string) []*File {
	var out []*File
	for _, x := range f.Files {
		if x.Kind == k {
			out = append(out, x)
		}
	}
	return out
}

// Digest is the folder's sha256: that of the sha256sum listing of its
// tables and documents ("HASH  PATH" lines) sorted by path, byte by byte,
// as `LC_ALL=C sort -k2` sorts them. Ignored and skipped files are not
// part of it.
func (f *Folder) Digest() string {
	var files []filehash.Listed
	for _, x := range f.Files {
		if x.Kind == InputTable || x.Kind == InputDocument {
			files = append(files, filehash.Listed{Path: x.Path, SHA256: x.SHA256})
		}
	}
	return filehash.ListingSHA256(files)
}

// Bytes is what its tables and documents take together.
func (f *Folder) Bytes() int64 {
	var n int64
	for _, x := range f.Files {
		if x.Kind == InputTable || x.Kind == InputDocument {
			n += x.Bytes
		}
	}
	return n
}

// Check checks a dataset, a file (CheckFile) or a folder
// (CheckFolder), before any container starts.
func Check(path string, skipUnreadable bool) (*Input, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return CheckFolder(path, skipUnreadable)
	}
	return CheckFile(path)
}

// CheckFolder checks a folder dataset: the caps, its links (one that
// leaves the folder is refused), then each table as CheckFile checks a
// file and each document, hashing them all. A table or document that
// cannot be read is an *InputError naming it, unless skipUnreadable: then
// it is listed as skipped, with why. A folder without a table it can read
// is an *InputError.
func CheckFolder(path string, skipUnreadable bool) (*Input, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &InputError{path, err.Error()}
	}
	files, err := listFolder(abs, path, "")
	if err != nil {
		return nil, err
	}
	f := &Folder{Path: abs, Files: files}
	if err := f.check(path, skipUnreadable); err != nil {
		return nil, err
	}
	return &Input{Path: abs, Name: filepath.Base(abs), Bytes: f.Bytes(), SHA256: f.Digest(), Format: FormatFolder, Folder: f, Frame: folderFrame(f)}, nil
}

// CheckSet checks the files and folders given one by one (analyst run
// --data A --data B) as one folder dataset: each file at its name, each
// folder's files under the folder's name. One path is Check's.
func CheckSet(paths []string, skipUnreadable bool) (*Input, error) {
	if len(paths) == 1 {
		return Check(paths[0], skipUnreadable)
	}
	f := &Folder{}
	seen := map[string]string{}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, &InputError{p, err.Error()}
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return nil, folderStatError(p, err)
		}
		name := filepath.Base(abs)
		if other, dup := seen[name]; dup {
			return nil, &UsageError{fmt.Errorf("--data %s and --data %s have the same name, %s, which the kernel would see twice at /data/%s; rename one", other, p, name, name)}
		}
		seen[name] = p
		f.Given = append(f.Given, abs)
		if !fi.IsDir() {
			in, err := givenFile(abs)
			if err != nil {
				return nil, folderStatError(p, err)
			}
			x := &File{Path: name, Shown: p, Bytes: fi.Size(), In: in}
			if x.Kind, x.Format, x.Reason = kindOf(name); !utf8.ValidString(name) {
				return nil, &InputError{p, notUTF8}
			} else if x.Kind == InputIgnored {
				return nil, &InputError{p, x.Reason}
			}
			f.Files = append(f.Files, x)
			continue
		}
		files, err := listFolder(abs, p, name+"/")
		if err != nil {
			return nil, err
		}
		f.Files = append(f.Files, files...)
	}
	sort.Slice(f.Files, func(i, j int) bool { return f.Files[i].Path < f.Files[j].Path })
	shown := strings.Join(paths, ", ")
	if err := f.check(shown, skipUnreadable); err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(filepath.Base(f.Given[0]), filepath.Ext(f.Given[0]))
	return &Input{Name: name, Bytes: f.Bytes(), SHA256: f.Digest(), Format: FormatFolder, Folder: f, Frame: folderFrame(f)}, nil
}

// givenFile is a file given by itself in a set: opened, like a folder's
// files, relative to its folder's descriptor (once its path's links are
// resolved: the path is the one the user gave).
func givenFile(abs string) (*Input, error) {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, err
	}
	dir, err := dirfd.OpenDir(filepath.Dir(real))
	if err != nil {
		return nil, err
	}
	return &Input{Path: abs, dir: dir, rel: filepath.Base(real)}, nil
}

// check applies the caps, checks and hashes the files, and names the
// tables: a folder without a table it can read is an *InputError.
func (f *Folder) check(shown string, skipUnreadable bool) error {
	if err := checkFolderCaps(shown, f.Files); err != nil {
		return err
	}
	if err := checkFolderFiles(shown, f.Files, skipUnreadable); err != nil {
		return err
	}
	if len(f.Tables()) == 0 {
		return &InputError{shown, "no table analyst can read" + folderContents(f) +
			"; analyst reads " + strings.Join(readableExts(), " ") + " (CSV and JSON optionally gzip-compressed, .gz)"}
	}
	nameTables(f.Tables())
	return nil
}

// listFolder lists the folder's files, hidden ones left out, each a table,
// a document or ignored (with why), at prefix + its path in the folder; a
// link to a file inside the folder is that file, a link that leaves it an
// *InputError.
func listFolder(abs, shown, prefix string) ([]*File, error) {
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, folderStatError(shown, err)
	}
	// Every file is opened relative to this descriptor, with no link
	// followed: a subfolder swapped for a link after the listing is refused.
	dir, err := dirfd.OpenDir(root)
	if err != nil {
		return nil, folderStatError(shown, err)
	}
	var files []*File
	var outside []string
	walked := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if walked++; walked > maxFolderWalk {
			return errTooManyFiles
		}
		if err != nil { // a subfolder that cannot be listed
			files = append(files, &File{Path: prefix + rel + "/", Shown: filepath.Join(shown, rel) + "/", Kind: InputSkipped,
				Reason: "the folder cannot be read: " + unwrapPathError(err)})
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		f, target := classifyEntry(dir, p, rel, d)
		if target != "" {
			outside = append(outside, fmt.Sprintf("%s → %s", rel, target))
			return nil
		}
		f.Path, f.Shown = prefix+rel, filepath.Join(shown, filepath.FromSlash(rel))
		files = append(files, f)
		return nil
	})
	switch {
	case errors.Is(err, errTooManyFiles):
		return nil, &InputError{shown, fmt.Sprintf("the folder holds more than %s files (hidden ones not counted), more than the %s analyst reads in a folder "+
			"(MaxFolderFiles); give the files to analyse with --data FILE (repeatable), or a smaller folder", thousands(maxFolderWalk), thousands(MaxFolderFiles))}
	case err != nil:
		return nil, folderStatError(shown, err)
	case len(outside) > 0:
		return nil, &InputError{shown, "symbolic links that leave the folder are refused (the kernel sees the folder only, and the run's inputs must be " +
			"files in it): " + strings.Join(outside, ", ") + "; copy those files into the folder, or remove the links"}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

var errTooManyFiles = errors.New("too many files")

// classifyEntry makes the file at p (rel in the folder) a table, a
// document or ignored, by its extension. A symbolic link is the file it
// points to when that is inside root; else target is where it points (and
// f is nil).
func classifyEntry(dir *dirfd.Dir, p, rel string, d fs.DirEntry) (f *File, target string) {
	root := dir.Path()
	f = &File{Path: rel}
	source, sourceRel := p, rel
	switch {
	case d.Type()&fs.ModeSymlink != 0:
		t, err := filepath.EvalSymlinks(p)
		if err != nil {
			f.Kind, f.Reason = InputIgnored, "a symbolic link to nothing ("+unwrapPathError(err)+")"
			return f, ""
		}
		r, err := filepath.Rel(root, t)
		if err != nil || r == ".." || strings.HasPrefix(r, "../") {
			return nil, t
		}
		if fi, err := os.Stat(t); err == nil && fi.IsDir() {
			f.Kind, f.Reason = InputIgnored, "a symbolic link to a folder of the folder, not followed: its files are read where they are"
			return f, ""
		}
		source, sourceRel = t, filepath.ToSlash(r)
	case !d.Type().IsRegular():
		f.Kind, f.Reason = InputIgnored, "not a regular file (a pipe, socket or device)"
		return f, ""
	}
	if fi, err := os.Stat(source); err == nil {
		f.Bytes = fi.Size()
	}
	f.In = &Input{Path: source, dir: dir, rel: sourceRel}
	f.Kind, f.Format, f.Reason = kindOf(rel)
	if !utf8.ValidString(rel) {
		f.Kind, f.Reason = InputIgnored, notUTF8
	}
	if f.Kind == InputIgnored {
		f.In = nil
	}
	return f, ""
}

// notUTF8 is why a file whose path is not UTF-8 is left out: the kernel's
// code, the notebook and run.json name files in UTF-8, and would name
// another file.
const notUTF8 = "its name is not UTF-8 (Latin-1 or another code page, as Windows zips often have), which the kernel, the notebook and run.json " +
	"cannot name; rename it, e.g. convmv -f latin1 -t utf8 --notest FILE"

// kindOf is what a folder's file is by its extension.
func kindOf(rel string) (kind, format, reason string) {
	lower := strings.ToLower(rel)
	ext := filepath.Ext(lower)
	if f, ok := documentFormats[ext]; ok {
		return InputDocument, f, ""
	}
	switch ext {
	case "":
		return InputIgnored, "", "no extension, so neither a table nor a document analyst reads"
	case ".pdf":
		return InputIgnored, "", "PDF documents are not read (the kernel has no PDF reader): convert it to text, e.g. pdftotext FILE.pdf FILE.txt, " +
			"and put the .txt in the folder"
	case ".gz", ".gzip":
		ext = filepath.Ext(strings.TrimSuffix(lower, ext))
	}
	if f, ok := formatOf(ext); ok {
		return InputTable, f.name, ""
	}
	return InputIgnored, "", fmt.Sprintf("not a table or a document analyst reads (by its extension, %s)", filepath.Ext(lower))
}

func folderStatError(shown string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &InputError{shown, "no such folder; check the path"}
	case errors.Is(err, fs.ErrPermission):
		return &InputError{shown, "permission denied: analyst cannot list the folder; check its permissions (chmod a+rx)"}
	}
	return &InputError{shown, err.Error()}
}

func unwrapPathError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// checkFolderCaps applies MaxFolderFiles and MaxFolderBytes.
func checkFolderCaps(shown string, files []*File) error {
	if len(files) > MaxFolderFiles {
		return &InputError{shown, fmt.Sprintf("the folder holds %s files (hidden ones not counted), more than the %s analyst reads in a folder "+
			"(MaxFolderFiles); give the files to analyse with --data FILE (repeatable), or a smaller folder", thousands(len(files)), thousands(MaxFolderFiles))}
	}
	var n int64
	for _, f := range files {
		if f.Kind == InputTable || f.Kind == InputDocument {
			n += f.Bytes
		}
	}
	if n > MaxFolderBytes {
		return &InputError{shown, fmt.Sprintf("the folder's tables and documents take %s, more than the %s analyst reads in a folder (MaxFolderBytes); "+
			"analyse its big tables one at a time (analyst run FOLDER/TABLE.csv reads a CSV file past memory out of core)", units.Bytes(n), units.Bytes(MaxFolderBytes))}
	}
	return nil
}

// checkFolderFiles checks and hashes each table (as CheckFile does) and
// document; one that cannot be read is an error naming it, or, with skip,
// is listed as skipped.
func checkFolderFiles(shown string, files []*File, skip bool) error {
	var bad []*File
	for _, f := range files {
		var err error
		switch f.Kind {
		case InputTable:
			err = checkTableFile(f)
		case InputDocument:
			err = checkDocument(f)
		case InputSkipped:
			bad = append(bad, f)
			continue
		default:
			continue
		}
		if err != nil {
			f.Kind, f.Reason, f.In, f.SHA256 = InputSkipped, err.Error(), nil, ""
			bad = append(bad, f)
		}
	}
	if len(bad) == 0 || skip {
		return nil
	}
	const hint = "pass --skip-unreadable to analyse the folder without "
	if len(bad) == 1 {
		return &InputError{bad[0].Shown, bad[0].Reason + "; " + hint + "it"}
	}
	var parts []string
	for _, f := range bad {
		parts = append(parts, f.Path+": "+f.Reason)
	}
	return &InputError{shown, fmt.Sprintf("%d files cannot be read (%sthem): %s", len(bad), hint, strings.Join(parts, "; "))}
}

// checkTableFile checks a table as CheckFile checks a file; its name in
// the kernel is its path in the folder.
func checkTableFile(f *File) error {
	in, err := checkFolderFile(f)
	if err != nil {
		var ie *InputError
		if errors.As(err, &ie) {
			return errors.New(ie.Msg)
		}
		return err
	}
	in.Name = f.Path
	f.In, f.Format, f.Bytes, f.SHA256 = in, in.Format, in.Bytes, in.SHA256
	return nil
}

// checkFolderFile checks a folder's table by its descriptor.
func checkFolderFile(f *File) (*Input, error) {
	r, err := f.In.open()
	if err != nil {
		return nil, errors.New(openError(err))
	}
	defer r.Close()
	return checkOpened(f.Shown, f.In, r)
}

// checkDocument hashes a document and lists a Markdown document's
// headings, in one read of its descriptor (opened non-blocking, and
// refused unless a regular file: a FIFO or a device is not a document).
func checkDocument(f *File) error {
	r, err := f.In.open()
	if err != nil {
		return errors.New(openError(err))
	}
	defer r.Close()
	after, sum, why, err := readSteady(r, func(r io.Reader) ([]byte, error) {
		h := sha256.New()
		tee := io.TeeReader(r, h)
		if f.Format == "markdown" {
			hs, err := mdheadings.Read(tee)
			if err != nil {
				return nil, err
			}
			f.Headings, f.HeadingCount = &hs, len(hs.Headings)
		}
		_, err := io.Copy(io.Discard, tee)
		return h.Sum(nil), err
	})
	if err != nil {
		return fmt.Errorf("reading: %v", unwrapPathError(err))
	}
	if why != "" {
		return errors.New(changedWhileRead(why))
	}
	f.SHA256, f.Bytes = hex.EncodeToString(sum), after.Size()
	f.In = &Input{Path: f.In.Path, Name: f.Path, Bytes: after.Size(), SHA256: f.SHA256, Format: f.Format, id: idOf(after), dir: f.In.dir, rel: f.In.rel}
	return nil
}

// nameTables names each table by its path without its extensions
// (payments.csv.gz is payments); tables whose names would clash
// (orders.csv, orders.json) keep their whole path.
func nameTables(tables []*File) {
	count := map[string]int{}
	for _, t := range tables {
		t.Table = tableName(t.Path)
		count[t.Table]++
	}
	for _, t := range tables {
		if count[t.Table] > 1 {
			t.Table = t.Path
		}
	}
	// A whole path may equal another table's short name (a.csv of the
	// clash, and a.csv.json): such short names keep their path too.
	paths := map[string]bool{}
	for _, t := range tables {
		if t.Table == t.Path {
			paths[t.Path] = true
		}
	}
	for _, t := range tables {
		if t.Table != t.Path && paths[t.Table] {
			t.Table = t.Path
		}
	}
}

// tableName is a path without its compression and format extensions.
// Names are bytes (a Latin-1 name from a Windows zip is not UTF-8, and
// lower-casing may change a name's length): the extensions are cut by an
// ASCII comparison, never by lower-casing the whole name.
func tableName(path string) string {
	for _, ext := range []string{".gz", ".gzip"} {
		if n := len(path) - len(ext); n >= 0 && strings.EqualFold(path[n:], ext) {
			path = path[:n]
			break
		}
	}
	return strings.TrimSuffix(path, filepath.Ext(path))
}

// folderContents says what a folder without tables holds.
func folderContents(f *Folder) string {
	var parts []string
	if n := len(f.Documents()); n > 0 {
		parts = append(parts, fmt.Sprintf("%d document(s)", n))
	}
	for _, k := range []string{InputSkipped, InputIgnored} {
		var names []string
		for _, x := range f.kind(k) {
			if len(names) == 5 {
				names = append(names, "…")
				break
			}
			names = append(names, x.Path+" ("+x.Reason+")")
		}
		if len(names) > 0 {
			parts = append(parts, fmt.Sprintf("%d file(s) %s: %s", len(f.kind(k)), k, strings.Join(names, "; ")))
		}
	}
	if len(parts) == 0 {
		return " (it is empty, hidden files aside)"
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// folderFrame is the memory the folder's tables take loaded together.
func folderFrame(f *Folder) *FrameEstimate {
	est := &FrameEstimate{}
	var methods []string
	for _, t := range f.Tables() {
		e := t.In.Estimate()
		est.Bytes += e.Bytes
		est.Rows += e.Rows
		methods = append(methods, t.Path+": "+e.Method)
	}
	est.Method = "the sum over its tables (" + strings.Join(methods, "; ") + ")"
	if len(methods) > 5 {
		est.Method = fmt.Sprintf("the sum over its %d tables, each estimated from a sample or its size", len(methods))
	}
	return est
}
