package kernel_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/analyst-cli/analyst/kernel"
)

// Issue 32 item 2: the kernel's folder in the shared $TMPDIR, which holds
// hard links of the data, is 0700: a second local user cannot read a
// staged file (rootful: tried as nobody), while the kernel's own user
// still reads it (rootless too: podman runs as the folder's owner).
func TestStagedDataIsPrivate(t *testing.T) {
	tmp, err := os.MkdirTemp("", "analyst-shared-tmp-") // where any user reaches, as /tmp
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	os.Chmod(tmp, 0o1777)
	t.Setenv("TMPDIR", tmp)
	data := filepath.Join(t.TempDir(), "private.csv")
	if err = os.WriteFile(data, []byte("who\nonly-mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	k := startKernel(t, func(o *kernel.Options) { o.Data = data })
	ex := mustOK(t, k, "print(open('/data/private.csv').read().split()[1])")
	if got := strings.TrimSpace(ex.Stdout()); got != "only-mine" {
		t.Errorf("the kernel read %q from /data/private.csv", got)
	}
	dirs, _ := filepath.Glob(filepath.Join(tmp, "analyst-kernel-*"))
	if len(dirs) != 1 {
		t.Fatalf("kernel folders in $TMPDIR: %v; want one", dirs)
	}
	fi, err := os.Stat(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("%s has mode %v; want 0700", dirs[0], fi.Mode().Perm())
	}
	staged := filepath.Join(dirs[0], "data", "private.csv")
	if _, err := os.Stat(staged); err != nil {
		t.Fatalf("the staged file: %v", err)
	}
	if os.Getuid() != 0 {
		return // no second user to be without root; the mode above is what holds
	}
	cat := exec.Command("cat", staged)
	cat.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cat.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Permission denied") {
		t.Errorf("nobody reading %s: %v %q; want Permission denied", staged, err, out)
	}
}
