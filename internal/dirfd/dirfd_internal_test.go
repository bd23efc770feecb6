package dirfd

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A file is opened beneath the folder with no link followed, with openat2
// and with the O_NOFOLLOW-per-step fallback alike: a link on the way (to a
// folder inside or outside) is ErrLink, a FIFO is a *NotRegularError at
// once (no blocking open), ".." is refused, and a plain file opens.
func TestOpen(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "x.csv"), []byte("outside\n"), 0o644)
	os.Mkdir(filepath.Join(root, "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "sub", "x.csv"), []byte("inside\n"), 0o644)
	os.Symlink(outside, filepath.Join(root, "out"))
	os.Symlink("sub", filepath.Join(root, "in"))
	os.Symlink("sub/x.csv", filepath.Join(root, "link.csv"))
	syscall.Mkfifo(filepath.Join(root, "fifo.csv"), 0o644)
	for _, fallback := range []bool{false, true} {
		noOpenat2ForTest = fallback
		d, err := OpenDir(root)
		if err != nil {
			t.Fatal(err)
		}
		f, err := d.Open("sub/x.csv")
		if err != nil {
			t.Fatalf("fallback %v: sub/x.csv: %v", fallback, err)
		}
		b, _ := io.ReadAll(f)
		f.Close()
		if string(b) != "inside\n" {
			t.Errorf("fallback %v: sub/x.csv read %q", fallback, b)
		}
		for _, rel := range []string{"out/x.csv", "in/x.csv", "link.csv"} {
			if _, err := d.Open(rel); !errors.Is(err, ErrLink) && !errors.Is(err, syscall.ELOOP) {
				t.Errorf("fallback %v: %s: %v; want ErrLink", fallback, rel, err)
			}
		}
		var nr *NotRegularError
		if _, err := d.Open("fifo.csv"); !errors.As(err, &nr) || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("fallback %v: fifo.csv: %v; want a *NotRegularError naming a FIFO", fallback, err)
		}
		if _, err := d.Open("../x.csv"); err == nil {
			t.Errorf("fallback %v: ../x.csv opened", fallback)
		}
		d.Close()
	}
	noOpenat2ForTest = false
}

// Link links the file a descriptor holds, whatever its path names now;
// Copy copies it, bounded.
func TestLinkAndCopyByDescriptor(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.csv")
	os.WriteFile(p, []byte("first\n"), 0o644)
	f, err := OpenFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	os.Rename(p, filepath.Join(dir, "moved.csv"))
	os.WriteFile(p, []byte("second\n"), 0o644)
	if err := Link(f, filepath.Join(dir, "linked.csv")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "linked.csv")); string(b) != "first\n" {
		t.Errorf("linked %q; want the file the descriptor holds", b)
	}
	if n, err := Copy(f, filepath.Join(dir, "copied.csv"), 0o644, 100); err != nil || n != 6 {
		t.Errorf("Copy: %d, %v", n, err)
	}
	if _, err := Copy(f, filepath.Join(dir, "short.csv"), 0o644, 3); err == nil {
		t.Errorf("Copy past its limit: no error")
	}
}
