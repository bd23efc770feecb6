package kernel

import (
	"encoding/base64"
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

func chunk(path string, off int64, data string, eof bool) fileReply {
	return fileReply{Path: path, Offset: off, Data: base64.StdEncoding.EncodeToString([]byte(data)), EOF: eof}
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

	s.receive(chunk("a.txt", 0, "hello ", false))
	s.receive(chunk("a.txt", 6, "world", true))
	s.receive(chunk("link/escape.txt", 0, "x", true))    // a user's symlink out of the folder
	s.receive(chunk("mine.txt", 0, "overwritten", true)) // a user's file
	s.receive(chunk("gap.txt", 0, "ab", false))
	s.receive(chunk("gap.txt", 5, "cd", true)) // a chunk that skips bytes
	s.receive(chunk("big.txt", 0, strings.Repeat("x", 80), false))
	s.receive(chunk("big.txt", 80, strings.Repeat("x", 20), true)) // 11 + 100 > 100
	s.receive(chunk("cut.txt", 0, "never finished", false))
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
		"output folder full (limit 100 B): /output/big.txt was not copied out",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("reasons lack %q:\n%s", want, all)
		}
	}

	// The kernel may update its own file, within the cap.
	s.receive(chunk("a.txt", 0, "v2", true))
	if why := s.endCell(); len(why) != 0 {
		t.Errorf("updating its own file: %v", why)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "v2" {
		t.Errorf("a.txt after update: %q", b)
	}
}
