package dataset_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/dataset"
)

// linkLoop makes and removes a hard link to path until stop is closed, as
// other runs staging the same file do (each kernel's /data is a hard link
// to the user's file): every link and unlink moves the file's inode change
// time, never its bytes, size or modification time.
func linkLoop(t *testing.T, path string, stop <-chan struct{}) *sync.WaitGroup {
	t.Helper()
	link := path + ".staged"
	if err := os.Link(path, link); err != nil {
		t.Fatal(err)
	}
	os.Remove(link)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := os.Link(path, link); err == nil {
				os.Remove(link)
			}
		}
	}()
	return &wg
}

// row is each row of bigCSV's file.
const row = "1234567,Berlin,12.50\n"

// bigCSV writes a CSV of about n bytes: long enough to hash that other
// runs' links land while it is read.
func bigCSV(t *testing.T, dir string, n int) string {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("id,city,amount\n")
	for i := 0; b.Len() < n; i++ {
		b.WriteString(row)
	}
	path := filepath.Join(dir, "sales.csv")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Two runs on one file at once (analyst eval validate -j 2 does this): the
// other run's staging links and unlinks the file while this one hashes it.
// That moves the inode's change time only; the check must not call it a
// changed file (CI failed so: "the file changed while analyst read it (its
// inode changed at ...)"), and must hash the bytes the file holds.
func TestCheckFileWhileAnotherRunStagesIt(t *testing.T) {
	path := bigCSV(t, t.TempDir(), 32<<20)
	want, err := dataset.CheckFile(path)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	wg := linkLoop(t, path, stop)
	defer func() { close(stop); wg.Wait() }()
	for i := 0; i < 3; i++ {
		got, err := dataset.CheckFile(path)
		if err != nil {
			t.Fatalf("check %d while another run stages the file: %v", i+1, err)
		}
		if got.SHA256 != want.SHA256 || got.Bytes != want.Bytes {
			t.Fatalf("check %d: sha256 %s, %d bytes; want %s, %d", i+1, got.SHA256, got.Bytes, want.SHA256, want.Bytes)
		}
	}
}

// The counter-case: a file rewritten in place while it is hashed, its size
// and modification time put back (as a writer covering its tracks would),
// moves the change time and the bytes; it is still refused.
func TestCheckFileRewrittenInPlaceIsRefused(t *testing.T) {
	path := bigCSV(t, t.TempDir(), 32<<20)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			// Another id in the last row (never the same twice: no two
			// reads hash alike), then the times put back.
			f.WriteAt([]byte(fmt.Sprintf("%07d", i%10_000_000)), fi.Size()-int64(len(row)))
			os.Chtimes(path, fi.ModTime(), fi.ModTime())
			time.Sleep(time.Millisecond)
		}
	}()
	_, err = dataset.CheckFile(path)
	close(stop)
	wg.Wait()
	if err == nil || !strings.Contains(err.Error(), "the file changed while analyst read it (its inode changed at ") {
		t.Fatalf("a file rewritten while hashed: %v, want it refused as changed", err)
	}
}
