package kernel

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/analyst-cli/analyst/internal/dirfd"
)

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// Staging links the data under a neutral name: the same inode, no copy.
func TestStageDataLinks(t *testing.T) {
	src := filepath.Join(t.TempDir(), "sales.csv")
	os.WriteFile(src, []byte("a\n1\n"), 0o644)
	s, err := stageData(src, filepath.Join(t.TempDir(), "data"), dirfd.ID{})
	if err != nil {
		t.Fatal(err)
	}
	if s.dir || filepath.Base(s.path) != "sales.csv" || inode(t, s.path) != inode(t, src) || s.copied != 0 {
		t.Errorf("staged %+v: want a hard link of %s", s, src)
	}
}

// A folder is staged file by file, symbolic links kept, and a folder that
// holds the staging folder itself does not recurse into it.
func TestStageDataFolder(t *testing.T) {
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "sub"), 0o755)
	os.WriteFile(filepath.Join(src, "sub", "x.csv"), []byte("x\n"), 0o644)
	os.Symlink("sub/x.csv", filepath.Join(src, "link.csv"))
	dst := filepath.Join(src, "stage", "data") // inside the data folder
	os.MkdirAll(filepath.Dir(dst), 0o755)
	s, err := stageData(src, dst, dirfd.ID{})
	if err != nil {
		t.Fatal(err)
	}
	if inode(t, filepath.Join(s.path, "sub", "x.csv")) != inode(t, filepath.Join(src, "sub", "x.csv")) {
		t.Errorf("sub/x.csv not linked")
	}
	if target, err := os.Readlink(filepath.Join(s.path, "link.csv")); err != nil || target != "sub/x.csv" {
		t.Errorf("link.csv: %q %v", target, err)
	}
	if _, err := os.Stat(filepath.Join(s.path, "stage", "data")); !os.IsNotExist(err) {
		t.Errorf("the staging folder was staged into itself: %v", err)
	}
}

// A folder dataset's files are staged alone, each at its path and linked
// (its other files, hidden ones included, are not there); a path that
// would leave the folder is refused.
func TestStageFiles(t *testing.T) {
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "2024"), 0o755)
	os.WriteFile(filepath.Join(src, "2024", "orders.csv"), []byte("x\n1\n"), 0o644)
	os.WriteFile(filepath.Join(src, "manual.md"), []byte("# M\n"), 0o644)
	os.WriteFile(filepath.Join(src, ".env"), []byte("SECRET=1\n"), 0o600)
	s, err := stageFiles([]DataFile{{Path: "2024/orders.csv", Source: filepath.Join(src, "2024", "orders.csv")}, {Path: "manual.md", Source: filepath.Join(src, "manual.md")}},
		filepath.Join(t.TempDir(), "data"))
	if err != nil {
		t.Fatal(err)
	}
	if !s.dir || inode(t, filepath.Join(s.path, "2024", "orders.csv")) != inode(t, filepath.Join(src, "2024", "orders.csv")) {
		t.Errorf("2024/orders.csv not linked at its path: %+v", s)
	}
	entries, _ := os.ReadDir(s.path)
	if len(entries) != 2 {
		t.Errorf("staged %v; want 2024/ and manual.md only", entries)
	}
	for _, bad := range []string{"../escape.csv", "/etc/passwd", "a/../../b.csv"} {
		_, err := stageFiles([]DataFile{{Path: bad, Source: filepath.Join(src, "manual.md")}}, filepath.Join(t.TempDir(), "data"))
		if err == nil || !strings.Contains(err.Error(), "not a relative path inside the data folder") {
			t.Errorf("stageFiles(%q): %v; want a refusal", bad, err)
		}
	}
}
