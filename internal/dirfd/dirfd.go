// Package dirfd opens a folder's files the one way that a folder's owner
// cannot redirect: relative to a directory descriptor opened once, with no
// symbolic link followed on the way (openat2 RESOLVE_BENEATH and
// RESOLVE_NO_SYMLINKS, or O_NOFOLLOW at each step where the kernel has no
// openat2), non-blocking (a FIFO does not hang the open), and checked by
// fstat to be a regular file. What is then hashed, linked or copied comes
// from that descriptor, never from the path again: a path checked and then
// used is a path someone else may swap in between.
package dirfd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Dir is a folder opened once.
type Dir struct{ f *os.File }

// OpenDir opens the folder at path (links in path itself are followed:
// it is the folder the user named).
func OpenDir(path string) (*Dir, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return &Dir{os.NewFile(uintptr(fd), path)}, nil
}

// Path is the folder's path as it was opened.
func (d *Dir) Path() string { return d.f.Name() }

// Close closes the descriptor.
func (d *Dir) Close() error { return d.f.Close() }

// NotRegularError is a file that is not a regular file (a FIFO, a device,
// a socket, a folder): nothing analyst reads as data.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return e.Path + " is " + Kind(e.Mode) + ", not a regular file; analyst reads data from regular files only"
}

// Kind names what a file of mode m is, for messages.
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeDevice != 0 || m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// ErrLink is a symbolic link met on the way to a folder's file: the folder
// changed after it was listed (or the caller asked for a link's path).
var ErrLink = errors.New("a symbolic link on the way to the file (the folder changed while analyst read it?)")

// Open opens the regular file rel (relative, with '/') beneath d, with no
// link followed.
func (d *Dir) Open(rel string) (*os.File, error) {
	name := filepath.Join(d.Path(), filepath.FromSlash(rel))
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("not a path inside the folder")}
	}
	fd, err := openBeneath(int(d.f.Fd()), rel)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
			err = ErrLink
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return regular(os.NewFile(uintptr(fd), name))
}

// OpenFile opens the file at path (links followed: the path is the one the
// user gave) non-blocking, and checks that it is a regular file.
func OpenFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	return regular(f)
}

// regular keeps f if it is a regular file, else closes it.
func regular(f *os.File) (*os.File, error) {
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &NotRegularError{Path: f.Name(), Mode: fi.Mode()}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

const openFlags = unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOFOLLOW | unix.O_CLOEXEC | unix.O_NOCTTY

// openBeneath opens rel beneath the folder dirfd: openat2, or where the
// kernel has none (ENOSYS), openat with O_NOFOLLOW at each step.
func openBeneath(dirfd int, rel string) (int, error) {
	fd, err := unix.Openat2(dirfd, rel, &unix.OpenHow{
		Flags:   openFlags,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if !errors.Is(err, unix.ENOSYS) || noOpenat2ForTest {
		return fd, err
	}
	return openEachStep(dirfd, rel)
}

// noOpenat2ForTest makes Open take the O_NOFOLLOW path (tests only).
var noOpenat2ForTest = false

func openEachStep(dirfd int, rel string) (int, error) {
	parts := strings.Split(rel, "/")
	at := dirfd
	for i, p := range parts {
		if p == ".." {
			return -1, unix.EXDEV
		}
		flags := openFlags
		if i < len(parts)-1 {
			flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
		}
		fd, err := unix.Openat(at, p, flags, 0)
		if at != dirfd {
			unix.Close(at)
		}
		if err != nil {
			return -1, err
		}
		at = fd
	}
	return at, nil
}

// ID is what tells one file from another: its device and inode.
type ID struct{ Dev, Ino uint64 }

// IDOf is fi's device and inode (zero where fi has none).
func IDOf(fi fs.FileInfo) ID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return ID{uint64(st.Dev), st.Ino}
	}
	return ID{}
}

// Link makes dst a hard link to the file open as f (linkat of
// /proc/self/fd/N, which names the file f holds whatever its path now is).
func Link(f *os.File, dst string) error {
	err := unix.Linkat(unix.AT_FDCWD, fmt.Sprintf("/proc/self/fd/%d", f.Fd()), unix.AT_FDCWD, dst, unix.AT_SYMLINK_FOLLOW)
	if err != nil {
		return &os.LinkError{Op: "link", Old: f.Name(), New: dst, Err: err}
	}
	return nil
}

// Copy writes f's bytes, from its start, to a new file dst of mode perm;
// at most limit bytes (more is an error), returned as n.
func Copy(f *os.File, dst string, perm fs.FileMode, limit int64) (n int64, err error) {
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return 0, err
	}
	n, err = io.Copy(out, io.NewSectionReader(f, 0, limit+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > limit {
		err = fmt.Errorf("more than %d bytes", limit)
	}
	return n, err
}
