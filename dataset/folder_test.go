package dataset_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/dataset"
	"github.com/analyst-cli/analyst/internal/filehash"
)

// kinds is "path kind [table]" per file, in order.
func kinds(f *dataset.Folder) string {
	var out []string
	for _, x := range f.Files {
		s := x.Path + " " + x.Kind
		if x.Table != "" {
			s += " " + x.Table
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

// A folder as it comes: tables in any format (a subfolder's keep its path,
// names that clash keep their extensions), documents by extension, hidden
// files and folders left out, other files listed as ignored with why, a
// link inside the folder read as its file, a link to a folder not followed.
func TestCheckFolder(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"payments.csv.gz":    "",
		"orders.csv":         "id,x\n1,2\n",
		"orders.json":        `[{"id": 1}]`,
		"2024/sales.tsv":     "a\tb\n1\t2\n",
		"manual.md":          "# Manual\n## Fees\n",
		"notes.txt":          "plain text\n",
		"guide.rst":          "Guide\n=====\n",
		"logo.png":           "\x89PNG",
		"report.pdf":         "%PDF-1.4",
		"LICENSE":            "MIT",
		".env":               "SECRET=1",
		".git/config":        "[core]",
		"sub/.hidden.csv":    "a\n1\n",
		"links/target.csv":   "k\n1\n",
		"links/nested/x.csv": "n\n1\n",
	})
	gzipTo(t, filepath.Join(dir, "payments.csv.gz"), "p,q\n1,2\n")
	must(t, os.Symlink("target.csv", filepath.Join(dir, "links", "alias.csv")))
	must(t, os.Symlink("nested", filepath.Join(dir, "links", "dir")))
	in, err := dataset.CheckFolder(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	want := "2024/sales.tsv table 2024/sales; LICENSE ignored; guide.rst document; links/alias.csv table links/alias; links/dir ignored; " +
		"links/nested/x.csv table links/nested/x; links/target.csv table links/target; logo.png ignored; manual.md document; notes.txt document; " +
		"orders.csv table orders.csv; orders.json table orders.json; payments.csv.gz table payments; report.pdf ignored"
	if got := kinds(in.Folder); got != want {
		t.Errorf("files:\n got %s\nwant %s", got, want)
	}
	if in.Format != dataset.FormatFolder || in.Name != filepath.Base(dir) || len(in.Folder.Tables()) != 7 || len(in.Folder.Documents()) != 3 {
		t.Errorf("input %s %s, %d tables, %d documents", in.Format, in.Name, len(in.Folder.Tables()), len(in.Folder.Documents()))
	}
	for _, f := range in.Folder.Files {
		switch f.Path {
		case "report.pdf":
			wantSubstr(t, f.Reason, "PDF documents are not read", "pdftotext")
		case "logo.png":
			wantSubstr(t, f.Reason, "not a table or a document analyst reads (by its extension, .png)")
		case "links/dir":
			wantSubstr(t, f.Reason, "a symbolic link to a folder")
		case "links/alias.csv":
			if f.SHA256 != sha(t, filepath.Join(dir, "links", "target.csv")) {
				t.Errorf("the link inside the folder is not read as its file: %+v", f)
			}
		case "manual.md":
			if f.Headings == nil || len(f.Headings.Headings) != 2 || f.Headings.Headings[1].Text != "Fees" || f.Headings.Headings[1].Line != 2 {
				t.Errorf("manual.md's headings: %+v", f.Headings)
			}
		}
	}
	// The folder's digest is the sha256 of its files' sorted sha256sum
	// listing, as docs/folders.md says to compute it.
	script := `cd "$1" && sha256sum 2024/sales.tsv guide.rst links/alias.csv links/nested/x.csv links/target.csv manual.md notes.txt orders.csv orders.json payments.csv.gz | LC_ALL=C sort -k2 | sha256sum`
	out, err := exec.Command("sh", "-c", script, "sh", dir).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(out))[0]; in.SHA256 != got {
		t.Errorf("digest %s, sha256sum's listing gives %s", in.SHA256, got)
	}
}

// A folder's problems stop the run before any kernel starts, naming the
// file: a link that leaves the folder, a table that cannot be read (unless
// --skip-unreadable, which lists it as skipped with why), a folder with no
// table, and the caps, with the numbers found.
func TestCheckFolderRefuses(t *testing.T) {
	t.Run("link out of the folder", func(t *testing.T) {
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{"a.csv": "x\n1\n"})
		must(t, os.Symlink("/etc/passwd", filepath.Join(dir, "passwd.csv")))
		_, err := dataset.CheckFolder(dir, true)
		wantInputError(t, err, "symbolic links that leave the folder are refused", "passwd.csv → /etc/passwd")
	})
	t.Run("unreadable table", func(t *testing.T) {
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{"a.csv": "x\n1\n", "empty.csv": "", "bad.xlsx": "a,b\n"})
		_, err := dataset.CheckFolder(dir, false)
		wantInputError(t, err, "2 files cannot be read (pass --skip-unreadable to analyse the folder without them)",
			"bad.xlsx: named like an Excel workbook", "empty.csv: the file is empty")
		in, err := dataset.CheckFolder(dir, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := kinds(in.Folder); got != "a.csv table a; bad.xlsx skipped; empty.csv skipped" {
			t.Errorf("with --skip-unreadable: %s", got)
		}
		os.Remove(filepath.Join(dir, "bad.xlsx"))
		_, err = dataset.CheckFolder(dir, false)
		wantInputError(t, err, filepath.Join(dir, "empty.csv")+": the file is empty; pass --skip-unreadable to analyse the folder without it")
	})
	t.Run("no table", func(t *testing.T) {
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{"manual.md": "# M\n", "x.png": "\x89PNG", ".hidden.csv": "a\n1\n"})
		_, err := dataset.CheckFolder(dir, false)
		wantInputError(t, err, "no table analyst can read (1 document(s); 1 file(s) ignored: x.png (not a table or a document")
		_, err = dataset.CheckFolder(t.TempDir(), false)
		wantInputError(t, err, "no table analyst can read (it is empty, hidden files aside)")
	})
	t.Run("too many files", func(t *testing.T) {
		dir := t.TempDir()
		for i := range dataset.MaxFolderFiles + 1 {
			writeTree(t, dir, map[string]string{fmt.Sprintf("f%04d.csv", i): "a\n1\n"})
		}
		_, err := dataset.CheckFolder(dir, false)
		wantInputError(t, err, "the folder holds 1,001 files (hidden ones not counted), more than the 1,000 analyst reads in a folder")
	})
	t.Run("too many bytes", func(t *testing.T) {
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{"small.csv": "a\n1\n"})
		big, err := os.Create(filepath.Join(dir, "big.csv"))
		must(t, err)
		must(t, big.Truncate(dataset.MaxFolderBytes)) // sparse: nothing is written, nor read
		big.Close()
		_, err = dataset.CheckFolder(dir, false)
		wantInputError(t, err, "the folder's tables and documents take 16 GiB, more than the 16 GiB analyst reads in a folder")
	})
}

// --data A --data B: files and folders given one by one are one folder
// dataset, each file at its name, each folder's files under its name.
func TestCheckSet(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"orders.csv": "id\n1\n", "crm/customers.json": `[{"id": 1}]`, "crm/manual.md": "# M\n", "other/orders.csv": "id\n2\n"})
	in, err := dataset.CheckSet([]string{filepath.Join(dir, "orders.csv"), filepath.Join(dir, "crm")}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := kinds(in.Folder); got != "crm/customers.json table crm/customers; crm/manual.md document; orders.csv table orders" {
		t.Errorf("files: %s", got)
	}
	if in.Name != "orders" || in.Path != "" || len(in.Folder.Given) != 2 {
		t.Errorf("input %q at %q, given %v", in.Name, in.Path, in.Folder.Given)
	}
	_, err = dataset.CheckSet([]string{filepath.Join(dir, "orders.csv"), filepath.Join(dir, "other", "orders.csv")}, false)
	var ue *dataset.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "have the same name, orders.csv") {
		t.Errorf("two files of one name: %v; want a usage error", err)
	}
	_, err = dataset.CheckSet([]string{filepath.Join(dir, "orders.csv"), filepath.Join(dir, "crm", "manual.pdf")}, false)
	wantInputError(t, err, "manual.pdf: no such folder")
}

func wantInputError(t *testing.T, err error, substrs ...string) {
	t.Helper()
	var ie *dataset.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error %v (%T); want an *InputError", err, err)
	}
	wantSubstr(t, err.Error(), substrs...)
}

func wantSubstr(t *testing.T, s string, substrs ...string) {
	t.Helper()
	for _, sub := range substrs {
		if !strings.Contains(s, sub) {
			t.Errorf("%q does not say %q", s, sub)
		}
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// gzipTo writes content gzip-compressed to path.
func gzipTo(t *testing.T, path, content string) {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	_, err := w.Write([]byte(content))
	must(t, err)
	must(t, w.Close())
	must(t, os.WriteFile(path, buf.Bytes(), 0o644))
}

// Issue 32 item 4: a document linked to a FIFO inside the folder, and a
// document given with --data that is a link to /dev/zero, are refused at
// once, naming the file; the check does not block on the FIFO nor read
// the device forever.
func TestCheckFolderRefusesFIFOsAndDevices(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.csv": "x\n1\n"})
	must(t, syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644))
	must(t, os.Symlink("pipe", filepath.Join(dir, "notes.md")))
	devLink := filepath.Join(t.TempDir(), "manual.md")
	must(t, os.Symlink("/dev/zero", devLink))
	checks := map[string]func() error{
		"a link to a FIFO in the folder": func() error { _, err := dataset.CheckFolder(dir, false); return err },
		"a link to /dev/zero given": func() error {
			_, err := dataset.CheckSet([]string{filepath.Join(dir, "a.csv"), devLink}, false)
			return err
		},
	}
	for name, check := range checks {
		done := make(chan error, 1)
		go func() { done <- check() }()
		select {
		case err := <-done:
			wantInputError(t, err, "not a regular file")
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: the check still runs after 20 s", name)
		}
	}
}

// Issue 32 item 5: table names from file names whose length changes when
// lower-cased, or that are not UTF-8 (a Latin-1 name from a Windows zip),
// taken as bytes: no panic; a UTF-8 name's table is the name without its
// extensions, byte for byte; one that is not UTF-8 is listed as ignored,
// saying why and how to rename it.
func TestTableNamesAreBytes(t *testing.T) {
	for _, c := range []struct{ file, table string }{
		{"Ⱥ.csv", "Ⱥ"},
		{"ȺȺȺ.CSV.GZ", "ȺȺȺ"},
		{"İstanbul.json", "İstanbul"},
		{"sales.CSV.Gzip", "sales"},
		{"\xdcbersicht.csv", ""},
		{"\xdcbersicht.csv.gz", ""},
		{"\xff\xfe.tsv", ""},
	} {
		dir := t.TempDir()
		content := "x\n1\n"
		if strings.HasSuffix(strings.ToLower(c.file), ".json") {
			content = `[{"x": 1}]`
		}
		lower := strings.ToLower(c.file)
		if strings.HasSuffix(lower, "gz") || strings.HasSuffix(lower, "gzip") {
			gzipTo(t, filepath.Join(dir, c.file), content)
		} else {
			writeTree(t, dir, map[string]string{c.file: content})
		}
		writeTree(t, dir, map[string]string{"other.csv": "y\n2\n"})
		in, err := dataset.CheckFolder(dir, false)
		if err != nil {
			t.Errorf("%q: %v", c.file, err)
			continue
		}
		f := in.Folder.Files[0]
		if f.Path == "other.csv" {
			f = in.Folder.Files[1]
		}
		switch {
		case c.table == "" && (f.Kind != dataset.InputIgnored || !strings.Contains(f.Reason, "its name is not UTF-8")):
			t.Errorf("%q: %s %q; want ignored, its name not UTF-8", c.file, f.Kind, f.Reason)
		case c.table != "" && f.Table != c.table:
			t.Errorf("%q: table %q, want %q", c.file, f.Table, c.table)
		}
	}
}

// writeTree writes files (path relative to dir: content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

// sha is the file's sha256, as the check records it.
func sha(t *testing.T, p string) string {
	t.Helper()
	s, err := filehash.SHA256(p)
	must(t, err)
	return s
}
