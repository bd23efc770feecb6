package kernel_test

// Attacks on what the sandbox can do to the host through its output folder,
// on memory totals, and on what it can learn of the host's paths (issue 14).

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/kernel"
)

// folderBytes is the total size of the regular files under dir.
func folderBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			n += fi.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A child process writes 64 MiB blocks to /output until it fails (at most
// 8 blocks, so a broken cap costs 512 MiB of disk, not the disk): it must
// get ENOSPC at the cap, the cell must say "output folder full", and the
// host folder must never hold more than the cap.
func TestOutputFolderSizeCapped(t *testing.T) {
	out := t.TempDir()
	const limit = 96 << 20
	k := startKernel(t, func(o *kernel.Options) { o.OutputDir = out; o.Limits.OutputBytes = limit })
	ex := runTimeout(t, k, `
import subprocess, sys
child = r'''
import errno, sys
blocks = 0
try:
    with open("/output/fill", "wb") as f:
        for _ in range(8):
            f.write(b"0" * (64 << 20))
            f.flush()
            blocks += 1
    print("wrote", blocks, "blocks")
except OSError as e:
    print("stopped after", blocks, "blocks:", errno.errorcode.get(e.errno), e)
    sys.exit(3)
'''
r = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True)
print(r.returncode, r.stdout.strip())
`, 2*time.Minute)
	if !strings.HasPrefix(ex.Stdout(), "3 stopped after 1 blocks: ENOSPC") {
		t.Errorf("the child process: %q, want it stopped by ENOSPC after one 64 MiB block", ex.Stdout())
	}
	if !strings.Contains(ex.Stderr(), "output folder full (limit 96 MiB)") {
		t.Errorf("no output folder full note in the cell's stderr: %q", ex.Stderr())
	}
	if n := folderBytes(t, out); n > limit {
		t.Errorf("the host folder holds %d bytes, over the %d byte cap", n, limit)
	}

	// In the kernel's own process, the error itself says which limit.
	ex = runTimeout(t, k, "import os\nos.remove('/output/fill')\nwith open('/output/big', 'wb') as f:\n    while True:\n        f.write(b'0' * (8 << 20))", time.Minute)
	if ex.Status != kernel.StatusError || ex.Error == nil || ex.Error.Name != "OSError" ||
		!strings.Contains(ex.Error.Value, "No space left on device") || !strings.Contains(ex.Error.Value, "output folder full (limit 96 MiB)") {
		t.Fatalf("status %s error %+v", ex.Status, ex.Error)
	}
	if n := folderBytes(t, out); n > limit {
		t.Errorf("the host folder holds %d bytes, over the %d byte cap", n, limit)
	}

	// Deleting in the sandbox frees the tmpfs, not the host: what the kernel
	// copies out stays capped in total (a fresh kernel: the first used its
	// budget above).
	out2 := t.TempDir()
	k2 := startKernel(t, func(o *kernel.Options) { o.OutputDir = out2; o.Limits.OutputBytes = limit })
	mustOK(t, k2, "open('/output/a.bin', 'wb').write(b'1' * (60 << 20))")
	ex = run(t, k2, "import os\nos.remove('/output/a.bin')\nopen('/output/b.bin', 'wb').write(b'2' * (60 << 20))")
	if ex.Status != kernel.StatusError || ex.Error == nil || ex.Error.Name != "OutputNotCopied" ||
		!strings.Contains(ex.Error.Value, "output folder full (limit 96 MiB): /output/b.bin (60 MiB) was not copied out") {
		t.Fatalf("second 60 MiB file: status %s error %+v", ex.Status, ex.Error)
	}
	if _, err := os.Stat(filepath.Join(out2, "b.bin")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("b.bin reached the host: %v", err)
	}
	if n := folderBytes(t, out2); n != 60<<20 {
		t.Errorf("the host folder holds %d bytes, want the first file's %d", n, 60<<20)
	}
	if got := mustOK(t, k, "'alive'").Text(); got != "'alive'" {
		t.Errorf("after the attack: %q", got)
	}
	assertHostHealthy(t)
}

// What the code writes to /output reaches the host folder after the cell:
// regular files, in sub-folders too, owned by the caller; a file the kernel
// wrote may be updated; symbolic links and fifos are not copied.
func TestOutputFilesCopiedOut(t *testing.T) {
	out := t.TempDir()
	k := startKernel(t, func(o *kernel.Options) { o.OutputDir = out })
	ex := mustOK(t, k, `
import os
os.makedirs("/output/sub/deeper")
open("/output/a.txt", "w").write("v1")
open("/output/sub/deeper/b.csv", "w").write("x,y\n1,2\n")
open("/output/empty", "w").close()
os.symlink("/etc/passwd", "/output/link")
os.mkfifo("/output/fifo")
`)
	if !strings.Contains(ex.Stderr(), "not copied out of /output") || !strings.Contains(ex.Stderr(), "link") {
		t.Errorf("no note about the link and fifo: %q", ex.Stderr())
	}
	want := map[string]string{"a.txt": "v1", "sub/deeper/b.csv": "x,y\n1,2\n", "empty": ""}
	for name, content := range want {
		p := filepath.Join(out, name)
		b, err := os.ReadFile(p)
		if err != nil || string(b) != content {
			t.Errorf("%s: %q %v, want %q", name, b, err, content)
			continue
		}
		fi, _ := os.Lstat(p)
		if !fi.Mode().IsRegular() || statUID(fi) != os.Getuid() {
			t.Errorf("%s: mode %v uid %d, want a regular file of uid %d", name, fi.Mode(), statUID(fi), os.Getuid())
		}
	}
	for _, name := range []string{"link", "fifo"} {
		if _, err := os.Lstat(filepath.Join(out, name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s reached the host folder: %v", name, err)
		}
	}
	mustOK(t, k, "open('/output/a.txt', 'w').write('version 2')")
	if b, _ := os.ReadFile(filepath.Join(out, "a.txt")); string(b) != "version 2" {
		t.Errorf("a file the kernel wrote was not updated: %q", b)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".analyst-partial-") {
			t.Errorf("partial file left behind: %s", e.Name())
		}
	}
}

// The driver shares its process with the code, so the code can forge the
// protocol's file lines; the names must still not escape the folder.
func TestOutputForgedFileNamesStayInside(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	k := startKernel(t, func(o *kernel.Options) { o.OutputDir = out })
	ex := run(t, k, fmt.Sprintf(`
import base64, sys
drv = sys.modules["__main__"]
for name in ["../escaped.txt", %q, "sub/../../escaped2.txt", "./dot.txt", ""]:
    drv.send({"type": "file", "id": str(drv._execution_count), "path": name, "offset": 0,
              "data": base64.b64encode(b"pwned").decode(), "eof": True})
`, filepath.Join(parent, "abs.txt")))
	if ex.Status != kernel.StatusError || ex.Error == nil || ex.Error.Name != "OutputNotCopied" ||
		!strings.Contains(ex.Error.Value, "not a plain relative file name") {
		t.Fatalf("status %s error %+v", ex.Status, ex.Error)
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		t.Errorf("the folder around the output folder changed: %v", entries)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("the output folder has files: %v", entries)
	}
}

// fileState is what must not change about a user's file.
type fileState struct {
	SHA      string
	UID, GID int
	Mode     fs.FileMode
}

func stateOf(t *testing.T, p string) fileState {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	s := fileState{UID: int(st.Uid), GID: int(st.Gid), Mode: fi.Mode()}
	if fi.Mode().IsRegular() {
		s.SHA = fileSHA(t, p)
	}
	return s
}

// --out on a folder with the user's files: the code can neither read,
// change nor delete them, and ownership of nothing is touched.
func TestOutputUserFilesUntouchable(t *testing.T) {
	out := t.TempDir()
	important := filepath.Join(out, "important.txt")
	if err := os.WriteFile(important, []byte("the user's numbers\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(out, "others")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		// A folder of another user, as the issue found it chowned to root.
		if err := os.Chown(other, 12345, 12345); err != nil {
			t.Fatal(err)
		}
	}
	paths := []string{out, important, other, filepath.Join(other, "notes.txt")}
	before := map[string]fileState{}
	for _, p := range paths {
		before[p] = stateOf(t, p)
	}

	k := startKernel(t, func(o *kernel.Options) { o.OutputDir = out })
	var res map[string]string
	jsonCell(t, k, `
import json, os
res = {}
def attempt(name, fn):
    try:
        fn()
        res[name] = "allowed"
    except Exception as e:
        res[name] = type(e).__name__
attempt("read", lambda: open("/output/important.txt").read())
attempt("remove", lambda: os.remove("/output/important.txt"))
attempt("remove-other", lambda: os.remove("/output/others/notes.txt"))
attempt("chmod", lambda: os.chmod("/output/important.txt", 0o666))
res["listing"] = ",".join(sorted(os.listdir("/output")))
print(json.dumps(res))
`, &res)
	for _, name := range []string{"read", "remove", "remove-other", "chmod"} {
		if res[name] != "FileNotFoundError" {
			t.Errorf("%s of a file the user had: %s, want FileNotFoundError", name, res[name])
		}
	}
	if res["listing"] != "" {
		t.Errorf("the sandbox sees the user's files in /output: %s", res["listing"])
	}
	// Writing a file of the same name is refused at copy-out, with a message.
	ex := run(t, k, "import os\nopen('/output/important.txt', 'w').write('overwritten')\nos.mkdir('/output/others')\nopen('/output/others/notes.txt', 'w').write('overwritten')")
	if ex.Status != kernel.StatusError || ex.Error == nil || ex.Error.Name != "OutputNotCopied" ||
		!strings.Contains(ex.Error.Value, "/output/important.txt was not copied out: the output folder already has a file of that name that this kernel did not write; it was left unchanged") ||
		!strings.Contains(ex.Error.Value, "/output/others/notes.txt was not copied out") {
		t.Fatalf("overwrite: status %s error %+v", ex.Status, ex.Error)
	}
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if after := stateOf(t, p); after != before[p] {
			t.Errorf("%s changed: %+v -> %+v", p, before[p], after)
		}
	}
}

// Rootless on cgroup v1 the memory limit is per process: four children of
// 600 MiB each against a 1 GiB limit all succeed there, as the limits say;
// where cgroups apply, the total is enforced and they cannot all succeed.
// RequireLimits refuses such a host.
func TestResourceMemoryTotal(t *testing.T) {
	base := testOptions(t)
	k := startKernel(t, func(o *kernel.Options) { o.Limits.MemoryBytes = 1 << 30 })
	enf := k.Options().Enforcement()
	ex := runTimeout(t, k, `
import subprocess, sys, time
child = "import time; b = b'x' * (600 << 20); time.sleep(4); print('held')"
procs = [subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True) for _ in range(4)]
done = [p.communicate()[0].strip() == "held" for p in procs]
print(sum(done))
`, 2*time.Minute)
	held := strings.TrimSpace(ex.Stdout())
	t.Logf("children holding 600 MiB at once: %q (status %s, %s); memory: %s", held, ex.Status, ex.Cause, enf.Memory)
	if base.CgroupLimits {
		if held == "4" {
			t.Errorf("4 × 600 MiB held against a 1 GiB cgroup limit")
		}
		if !enf.Totals || strings.Contains(enf.Memory, "per process") {
			t.Errorf("enforcement says %+v", enf)
		}
	} else {
		if held != "4" {
			t.Errorf("held %q, want 4: the documented behaviour without cgroups is a per-process limit", held)
		}
		if enf.Totals || !strings.Contains(enf.Memory, "per process only") || !strings.Contains(enf.Memory, "worst case = 1 GiB × 256 processes = 256 GiB") {
			t.Errorf("enforcement does not say the total is unbounded: %+v", enf)
		}
	}

	// RequireLimits on a host without totals: a refusal saying why and what fixes it.
	o := base
	o.CgroupLimits = false
	o.RequireLimits = true
	k2, err := kernel.Start(context.Background(), o)
	if err == nil {
		k2.Close()
		t.Fatal("Start with RequireLimits on a host without cgroup limits: no error")
	}
	if !errors.Is(err, kernel.ErrLimitsNotEnforced) || !strings.Contains(err.Error(), "rootful podman") || !strings.Contains(err.Error(), "cgroup v2") {
		t.Errorf("refusal: %v", err)
	}
	if base.CgroupLimits {
		o.CgroupLimits = true
		k3, err := kernel.Start(context.Background(), o)
		if err != nil {
			t.Fatalf("RequireLimits where cgroups apply: %v", err)
		}
		k3.Close()
	}
	assertHostHealthy(t)
}

// No path of the host shows in the sandbox's mount tables: not the data's
// folder, not the output folder (both named with a random marker here).
func TestIsolationNoHostPathsInMounts(t *testing.T) {
	marker := "hostmarker-" + token(t)
	dir := filepath.Join(t.TempDir(), marker)
	if err := os.MkdirAll(filepath.Join(dir, "in"), 0o755); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "in", "sales.csv")
	if err := os.WriteFile(data, []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := stateOf(t, data)
	folder := filepath.Join(dir, "folder")
	if err := os.MkdirAll(filepath.Join(folder, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(folder, "sub", "x.csv"), []byte("x\n1\n"), 0o644)

	for _, tc := range []struct{ name, data, read string }{
		{"file", data, "/data/sales.csv"},
		{"folder", folder, "/data/sub/x.csv"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := startKernel(t, func(o *kernel.Options) { o.Data = tc.data; o.OutputDir = filepath.Join(dir, "out") })
			var tables map[string]string
			jsonCell(t, k, fmt.Sprintf(`
import json, subprocess
tables = {p: subprocess.run(["cat", p], capture_output=True, text=True, check=True).stdout
          for p in ["/proc/self/mountinfo", "/proc/mounts", "/proc/self/mounts"]}
tables["data"] = open(%q).read()
print(json.dumps(tables))
`, tc.read), &tables)
			if !strings.Contains(tables["data"], "1") {
				t.Errorf("data not readable: %q", tables["data"])
			}
			for name, text := range tables {
				for _, secret := range []string{marker, filepath.Dir(dir)} {
					if strings.Contains(text, secret) {
						t.Errorf("%s shows the host path %s:\n%s", name, secret, text)
					}
				}
			}
			t.Logf("mountinfo:\n%s", tables["/proc/self/mountinfo"])
		})
	}
	if after := stateOf(t, data); after != before {
		t.Errorf("the data file changed: %+v -> %+v", before, after)
	}
	if fi, _ := os.Stat(data); fi.Sys().(*syscall.Stat_t).Nlink != 1 {
		t.Errorf("the staged hard link was left behind: %d links", fi.Sys().(*syscall.Stat_t).Nlink)
	}
}
