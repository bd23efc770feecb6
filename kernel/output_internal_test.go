package kernel

import (
	"encoding/base64"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidOutputName(t *testing.T) {
	for name, want := range map[string]bool{
		"a.png": true, "sub/b.csv": true, ".hidden": true, "a..b": true,
		"": false, ".": false, "..": false, "../x": false, "a/../../x": false, "/etc/passwd": false,
		"a//b": false, "./a": false, "a/": false, "a\x00b": false, ".analyst-partial-1234": false,
	} {
		if got := validOutputName(name); got != want {
			t.Errorf("validOutputName(%q) = %v, want %v", name, got, want)
		}
	}
}

// chunk is a chunk of a file of the given size.
func chunk(path string, size, off int64, data string, eof bool) fileReply {
	return fileReply{Path: path, Size: size, Offset: off, Data: base64.StdEncoding.EncodeToString([]byte(data)), EOF: eof}
}

// The sink is the boundary: whatever the sandbox sends, nothing is written
// outside the folder, over the user's files, or past the cap.
func TestOutputSinkRefusesHostileChunks(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	outside := filepath.Join(parent, "outside")
	os.Mkdir(outside, 0o755)
	s, err := newOutputSink(dir, 100)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("user"), 0o600)
	os.Symlink(outside, filepath.Join(dir, "link"))

	s.receive(chunk("a.txt", 11, 0, "hello ", false))
	s.receive(chunk("a.txt", 11, 6, "world", true))
	s.receive(chunk("link/escape.txt", 1, 0, "x", true))     // a user's symlink out of the folder
	s.receive(chunk("mine.txt", 11, 0, "overwritten", true)) // a user's file
	s.receive(chunk("gap.txt", 4, 0, "ab", false))
	s.receive(chunk("gap.txt", 4, 5, "cd", true)) // a chunk that skips bytes
	big := chunk("big.txt", 100, 0, strings.Repeat("x", 80), false)
	big.Allocated = 100
	s.receive(big)
	s.receive(chunk("big.txt", 100, 80, strings.Repeat("x", 20), true)) // 11 + 100 > 100
	s.receive(chunk("cut.txt", 14, 0, "never finished", false))
	why := s.endCell()

	if b, err := os.ReadFile(filepath.Join(dir, "a.txt")); err != nil || string(b) != "hello world" {
		t.Errorf("a.txt: %q %v", b, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "mine.txt")); string(b) != "user" {
		t.Errorf("the user's file changed: %q", b)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("a file landed outside the folder: %v", entries)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "a.txt,link,mine.txt" {
		t.Errorf("folder holds %v, want a.txt, link, mine.txt", names)
	}
	all := strings.Join(why, "\n")
	for _, want := range []string{
		"/output/link/escape.txt was not copied out",
		"/output/mine.txt was not copied out: the output folder already has a file of that name that this kernel did not write",
		"/output/gap.txt was not copied out: the kernel sent it garbled",
		"output folder full (limit 100 B): /output/big.txt (100 B) was not copied out",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("reasons lack %q:\n%s", want, all)
		}
	}

	// The kernel may update its own file, within the cap.
	s.receive(chunk("a.txt", 2, 0, "v2", true))
	if why := s.endCell(); len(why) != 0 {
		t.Errorf("updating its own file: %v", why)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "v2" {
		t.Errorf("a.txt after update: %q", b)
	}
}

// A file's size, given with its first chunk, decides before any byte is
// written: over the budget (a sparse 1 TiB file, a size chosen to overflow
// the sum) it is refused at once, and no chunk may take more than the size.
func TestOutputSinkChecksSizeFirst(t *testing.T) {
	dir := t.TempDir()
	s, err := newOutputSink(dir, 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	s.receive(chunk("a.txt", 600, 0, strings.Repeat("a", 600), true))
	huge := chunk("huge.bin", 1<<40, 0, strings.Repeat("\x00", 300), false) // 300 bytes would fit
	huge.Allocated = 4096
	s.receive(huge)
	s.receive(chunk("huge.bin", 1<<40, 300, strings.Repeat("\x00", 10), false))
	s.receive(chunk("overflow.bin", math.MaxInt64, 0, "x", true))
	s.receive(chunk("liar.txt", 5, 0, "more than five", true))
	s.receive(chunk("negative.txt", -1, 0, "", true))
	s.receive(fileReply{Path: "deep/" + strings.Repeat("d/", 3000) + "f.txt", Size: 10, EOF: true, Refused: "it is a folder that could not be read (File name too long)"})
	s.receive(chunk("b.txt", 400, 0, strings.Repeat("b", 400), true)) // exactly the room left
	why := strings.Join(s.endCell(), "\n")
	for _, want := range []string{
		"output folder full (limit 1000 B): /output/huge.bin (1 TiB, sparse: 4 KiB on disk) was not copied out",
		"/output/overflow.bin (8 EiB, sparse: 0 B on disk) was not copied out",
		"/output/liar.txt was not copied out: the kernel sent it garbled",
		"/output/negative.txt was not copied out: the kernel sent it garbled",
		"/output/deep/d/d/d/d/",
		"(a 6010-byte name) was not copied out: it is a folder that could not be read (File name too long)",
	} {
		if !strings.Contains(why, want) {
			t.Errorf("reasons lack %q:\n%s", want, why)
		}
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		if fi, _ := e.Info(); fi.Mode().Perm()&0o111 != 0 {
			t.Errorf("%s is executable: %v", e.Name(), fi.Mode())
		}
	}
	if strings.Join(names, ",") != "a.txt,b.txt" {
		t.Errorf("folder holds %v, want a.txt and b.txt", names)
	}
	if s.room() != 0 {
		t.Errorf("room after 1000 of 1000 bytes: %d", s.room())
	}
}

// However many files a cell leaves uncopied, the error lists a few and
// counts the rest.
func TestNotCopiedErrorIsShort(t *testing.T) {
	s, err := newOutputSink(t.TempDir(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	for i := range 20000 {
		s.receive(fileReply{Path: fmt.Sprintf("f%05d.txt", i), EOF: true, Refused: "it could not be read"})
	}
	k := &Kernel{out: s}
	ex := &Execution{}
	k.notCopied(ex)
	tb := ex.Error.Traceback
	if len(tb) != 7 || tb[0] != "OutputNotCopied: 20000 files written to /output were not copied to the output folder; the first 5:" ||
		tb[1] != "/output/f00000.txt was not copied out: it could not be read" || tb[6] != "(and 19995 more)" {
		t.Errorf("traceback:\n%s", strings.Join(tb, "\n"))
	}
	if !strings.HasSuffix(ex.Error.Value, "; and 19995 more") || strings.Count(ex.Error.Value, "was not copied out") != 5 {
		t.Errorf("value: %s", ex.Error.Value)
	}
}
