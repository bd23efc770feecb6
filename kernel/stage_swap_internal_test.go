package kernel

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/analyst-cli/analyst/internal/dirfd"
)

// otherUser is the uid of the second local user an attack runs as: nobody
// when the tests run as root; rootless, the tests' own user (the swap is
// the same race, by the folder's owner).
func otherUser() uint32 {
	if os.Getuid() == 0 {
		return 65534
	}
	return uint32(os.Getuid())
}

// asOtherUser runs a shell script as otherUser, in dir.
func asOtherUser(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-ec", script)
	cmd.Dir = dir
	if uid := otherUser(); uid != uint32(os.Getuid()) {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("as uid %d: %s: %v\n%s", otherUser(), script, err, out)
	}
}

// swapFixture is a folder of a second local user, with sub/x.csv, and a
// folder only the caller can read (0700) holding a 0644 x.csv of its own.
func swapFixture(t *testing.T) (folder, secret string) {
	t.Helper()
	base, err := os.MkdirTemp("", "analyst-swap-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	secret = filepath.Join(base, "secret")
	os.Mkdir(secret, 0o700)
	os.WriteFile(filepath.Join(secret, "x.csv"), []byte("who\nSECRET-ROW\n"), 0o644)
	folder = filepath.Join(base, "folder")
	os.Mkdir(folder, 0o755)
	os.Chown(folder, int(otherUser()), int(otherUser()))
	asOtherUser(t, folder, "mkdir sub && printf 'who\\nlegit\\n' > sub/x.csv")
	return folder, secret
}

// checked is what a check of folder's rel records: its folder's
// descriptor, and the file it hashed.
func checked(t *testing.T, folder, rel string) DataFile {
	t.Helper()
	dir, err := dirfd.OpenDir(folder)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dir.Close() })
	f, err := dir.Open(rel)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	return DataFile{Path: rel, Source: filepath.Join(folder, rel), Dir: dir, Rel: rel, ID: dirfd.IDOf(fi)}
}

// Issue 32 item 1: the folder's owner swaps its subfolder for a link to a
// folder only root can read between the check and the staging (and puts
// it back after): staging refuses, naming the file, and stages nothing of
// the other folder's file. (internal/dirfd's tests hold the same for the
// O_NOFOLLOW-per-step fallback of a kernel without openat2.)
func TestStageRefusesAFolderSwappedAfterTheCheck(t *testing.T) {
	folder, secret := swapFixture(t)
	f := checked(t, folder, "sub/x.csv")
	beforeStageFile = func(DataFile) { asOtherUser(t, folder, "mv sub sub.real && ln -s "+secret+" sub") }
	dst := filepath.Join(t.TempDir(), "stage")
	s, err := stageFiles([]DataFile{f}, dst)
	beforeStageFile = nil
	asOtherUser(t, folder, "rm sub && mv sub.real sub")

	var dc *DataChangedError
	if !errors.As(err, &dc) || dc.Path != f.Source || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("staging a swapped folder: %v (staged %+v); want a *DataChangedError naming %s and the link", err, s, f.Source)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "data", "sub", "x.csv")); err == nil && strings.Contains(string(b), "SECRET") {
		t.Errorf("the other folder's file was staged: %q", b)
	}
}

// The file itself replaced by another after the check (same path, no link
// on the way) is refused too: the staged file is the one hashed.
func TestStageRefusesAFileReplacedAfterTheCheck(t *testing.T) {
	folder, _ := swapFixture(t)
	f := checked(t, folder, "sub/x.csv")
	beforeStageFile = func(DataFile) { asOtherUser(t, folder, "printf 'who\\nother\\n' > sub/y && mv sub/y sub/x.csv") }
	defer func() { beforeStageFile = nil }()
	_, err := stageFiles([]DataFile{f}, filepath.Join(t.TempDir(), "stage"))
	var dc *DataChangedError
	if !errors.As(err, &dc) || !strings.Contains(err.Error(), "replaced by another file") {
		t.Errorf("staging a replaced file: %v; want a *DataChangedError saying it was replaced", err)
	}
}

// A FIFO or a device where a data file was is refused at once, naming it
// (the open does not block).
func TestStageRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "x.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := stageFiles([]DataFile{{Path: "x.csv", Source: fifo}}, filepath.Join(t.TempDir(), "stage"))
	var dc *DataChangedError
	if !errors.As(err, &dc) || !strings.Contains(err.Error(), "FIFO") {
		t.Errorf("staging a FIFO: %v; want a *DataChangedError naming a FIFO", err)
	}
}
