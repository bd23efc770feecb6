package image

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseMountinfo(t *testing.T) {
	const info = `22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
30 22 0:5 / /var/cache/k/.build-a-1/rootfs/proc rw - proc proc rw
31 22 0:6 / /var/cache/k/.build-a-1/rootfs/sys rw - sysfs sysfs rw
32 22 0:7 / /var/cache/k/.build-a-10/rootfs/proc rw - proc proc rw
33 22 0:8 / /var/cache/k/with\040space/x rw - tmpfs tmpfs rw
34 22 0:9 / /var/cache/k/.build-a-1 rw - tmpfs tmpfs rw
35 22 0:5 / /var/cache/k/.build-a-1/rootfs/proc rw - proc proc rw
`
	tests := []struct {
		dir  string
		want []string
	}{
		{"/var/cache/k/.build-a-1", []string{
			"/var/cache/k/.build-a-1/rootfs/proc",
			"/var/cache/k/.build-a-1/rootfs/sys",
			"/var/cache/k/.build-a-1",
		}},
		{"/var/cache/k/with space", []string{"/var/cache/k/with space/x"}},
		{"/var/cache/k/.build-a-2", nil},
	}
	for _, tt := range tests {
		got, err := parseMountinfo(strings.NewReader(info), tt.dir)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("parseMountinfo(%s) = %q, %v; want %q", tt.dir, got, err, tt.want)
		}
	}
}

// TestRemoveTreeUnmountsFirst recreates what a killed debootstrap leaves:
// a host folder bind-mounted inside the build tree. removeTree must unmount
// it and must not delete the host's files through it.
func TestRemoveTreeUnmountsFirst(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount; only root builds (debootstrap) leave mounts behind")
	}
	hostDir := t.TempDir()
	precious := filepath.Join(hostDir, "precious")
	if err := os.WriteFile(precious, []byte("host data"), 0o644); err != nil {
		t.Fatal(err)
	}
	tree := t.TempDir()
	target := filepath.Join(tree, "rootfs", "dev")
	if err := os.MkdirAll(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount(hostDir, target, "", syscall.MS_BIND, ""); err != nil {
		t.Fatalf("bind mount: %v", err)
	}
	proc := filepath.Join(tree, "rootfs", "proc")
	os.MkdirAll(proc, 0o555)
	if err := syscall.Mount("proc", proc, "proc", 0, ""); err != nil {
		syscall.Unmount(target, 0)
		t.Fatalf("mount proc: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(proc, syscall.MNT_DETACH); syscall.Unmount(target, syscall.MNT_DETACH) })

	if err := removeTree(tree); err != nil {
		t.Fatalf("removeTree: %v", err)
	}
	if _, err := os.Stat(tree); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("tree still there: %v", err)
	}
	if b, err := os.ReadFile(precious); err != nil || string(b) != "host data" {
		t.Errorf("host file behind the bind mount lost: %q, %v", b, err)
	}
	if m, _ := mountsUnder(tree); len(m) != 0 {
		t.Errorf("still mounted: %v", m)
	}
}

// TestRemoveTreeReadOnlyFolders: a tree unpacked as a user may hold folders
// its owner cannot write; removeTree must still remove it.
func TestRemoveTreeReadOnlyFolders(t *testing.T) {
	tree := t.TempDir()
	deep := filepath.Join(tree, "rootfs", "usr", "share", "x")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(deep, "f"), []byte("x"), 0o444)
	os.Chmod(deep, 0o555)
	os.Chmod(filepath.Join(tree, "rootfs", "usr"), 0o500)
	// Root may delete regardless, so check the repair itself too.
	makeWritable(tree)
	for _, d := range []string{deep, filepath.Join(tree, "rootfs", "usr")} {
		if fi, err := os.Stat(d); err != nil {
			t.Error(err)
		} else if fi.Mode().Perm()&0o700 != 0o700 {
			t.Errorf("%s not made writable: %v", d, fi.Mode())
		}
	}
	os.Chmod(deep, 0o555)
	os.Chmod(filepath.Join(tree, "rootfs", "usr"), 0o500)
	if err := removeTree(tree); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tree); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("tree still there: %v", err)
	}
	if err := removeTree(tree); err != nil {
		t.Errorf("removing a tree that is gone: %v", err)
	}
}

func TestLockCacheSerializes(t *testing.T) {
	dir := t.TempDir()
	var out strings.Builder
	lock1, err := lockCache(context.Background(), dir, &out)
	if err != nil {
		t.Fatal(err)
	}

	// A second holder waits, and gives up when its context ends.
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel()
	var waitOut strings.Builder
	if _, err := lockCache(ctx, dir, &waitOut); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second lock while held: %v, want deadline exceeded", err)
	}
	if !strings.Contains(waitOut.String(), "waiting for another kernel image build") {
		t.Errorf("waiting was not reported: %q", waitOut.String())
	}

	// It gets the lock once the first lets go.
	got := make(chan error, 1)
	go func() {
		lock2, err := lockCache(context.Background(), dir, &strings.Builder{})
		if err == nil {
			lock2.Close()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("second lock taken while the first is held (err %v)", err)
	case <-time.After(400 * time.Millisecond):
	}
	lock1.Close()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("second lock not taken after the first was released")
	}
}

func TestRemoveStale(t *testing.T) {
	kdir := t.TempDir()
	for _, d := range []string{".build-0123456789abcdef-1", ".old-0123456789abcdef-2", "0123456789abcdef", ".keep"} {
		if err := os.MkdirAll(filepath.Join(kdir, d, "rootfs"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var out strings.Builder
	if err := removeStale(kdir, &out); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(kdir)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if want := []string{".keep", "0123456789abcdef"}; !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
	if !strings.Contains(out.String(), ".build-0123456789abcdef-1") {
		t.Errorf("removal not reported: %q", out.String())
	}
}
