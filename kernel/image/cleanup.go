package image

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// lockCache takes the exclusive build lock of the kernel folder, waiting
// (and saying so on w) while another build holds it, until ctx ends.
// Closing the returned file releases it. The lock is an flock: it lasts
// while any process holds the open file, so a build that dies releases it,
// and bootstrap tools that inherit the file keep it if they outlive their
// parent.
func lockCache(ctx context.Context, dir string, w io.Writer) (*os.File, error) {
	path := filepath.Join(dir, ".lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	said := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		if !said {
			held := ""
			real, _ := filepath.Abs(path)
			if r, err := filepath.EvalSymlinks(real); err == nil {
				real = r
			}
			if h := lockHolders(real); len(h) > 0 {
				held = ", held by " + strings.Join(h, ", ")
			}
			fmt.Fprintf(w, "waiting for another kernel image build to finish (lock %s%s)\n", path, held)
			said = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for lock %s: %w", path, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// lockHolders names the processes that have path open ("pid 12 (debootstrap)"),
// as far as /proc lets us see: for a lock that stays taken, that is who
// to wait for or to kill.
func lockHolders(path string) []string {
	var out []string
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range fds {
		if target, err := os.Readlink(fd); err != nil || target != path {
			continue
		}
		pid := strings.Split(fd, "/")[2]
		if pid == strconv.Itoa(os.Getpid()) {
			continue
		}
		name, _ := os.ReadFile("/proc/" + pid + "/comm")
		h := fmt.Sprintf("pid %s (%s)", pid, strings.TrimSpace(string(name)))
		if !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}

// removeStale removes what killed builds left in the kernel folder: build
// trees and images being replaced. The caller holds the lock, so nothing
// else is working in them.
func removeStale(dir string, w io.Writer) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		n := e.Name()
		if !strings.HasPrefix(n, ".build-") && !strings.HasPrefix(n, ".old-") {
			continue
		}
		fmt.Fprintf(w, "removing leftover %s\n", filepath.Join(dir, n))
		if err := removeTree(filepath.Join(dir, n)); err != nil {
			return err
		}
	}
	return nil
}

// removeTree removes dir after unmounting anything mounted below it.
// debootstrap mounts proc and sys (and, in some containers, binds /dev) in
// its target and a killed debootstrap leaves them: deleting through such a
// mount would delete the host's files, so removeTree refuses while any
// mount remains.
func removeTree(dir string) error {
	real, err := filepath.EvalSymlinks(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("removing %s: %w", dir, err)
	}
	if err := unmountUnder(real); err != nil {
		return fmt.Errorf("removing %s: %w", dir, err)
	}
	if err := os.RemoveAll(real); err != nil {
		// As a user, directories extracted without write permission for
		// their owner cannot be emptied until they get it.
		makeWritable(real)
		if err := os.RemoveAll(real); err != nil {
			return fmt.Errorf("removing %s: %w", dir, err)
		}
	}
	return nil
}

// unmountUnder unmounts every mount at or below dir, deepest first, and
// fails if any is left.
func unmountUnder(dir string) error {
	mounts, err := mountsUnder(dir)
	if err != nil || len(mounts) == 0 {
		return err
	}
	// Deeper paths sort after their parents; unmount them first.
	slices.Sort(mounts)
	slices.Reverse(mounts)
	for _, m := range mounts {
		if err := syscall.Unmount(m, 0); err != nil && !errors.Is(err, syscall.EINVAL) {
			// Busy: detach it now; it goes once its last user does.
			syscall.Unmount(m, syscall.MNT_DETACH)
		}
	}
	left, err := mountsUnder(dir)
	if err != nil {
		return err
	}
	if len(left) > 0 {
		return fmt.Errorf("still mounted, not removing: %s (unmount with: umount -R %s)", strings.Join(left, ", "), dir)
	}
	return nil
}

// mountsUnder lists the mount points at or below dir in this process's
// mount namespace.
func mountsUnder(dir string) ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("listing mounts: %w", err)
	}
	defer f.Close()
	return parseMountinfo(f, dir)
}

// parseMountinfo reads mountinfo(5) lines and returns the mount points (the
// fifth field, octal escapes decoded) at or below dir, without duplicates.
func parseMountinfo(r io.Reader, dir string) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		mp := unescapeMount(fields[4])
		if (mp == dir || strings.HasPrefix(mp, dir+"/")) && !slices.Contains(out, mp) {
			out = append(out, mp)
		}
	}
	return out, sc.Err()
}

// unescapeMount decodes the \ooo escapes the kernel uses for space, tab,
// newline and backslash in mount paths.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// makeWritable gives the owner write and search permission on every
// directory below dir, ignoring what it cannot change.
func makeWritable(dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			if fi, err := d.Info(); err == nil && fi.Mode().Perm()&0o700 != 0o700 {
				os.Chmod(p, fi.Mode().Perm()|0o700)
			}
		}
		return nil
	})
}
