package kernel

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/analyst-cli/analyst/internal/units"
)

// A bind mount shows, in the container's /proc/self/mountinfo, the path of
// its source inside the source's filesystem: mounting the user's data file
// directly would tell the sandbox where it lives on the host. So the data
// is staged under the kernel's private temporary folder first, as a hard
// link (instant, whatever the size, and the same inode: the content is
// never copied nor changed; the mount is read-only) or, where a link is
// impossible (another filesystem, or fs.protected_hardlinks for a file the
// caller does not own), as a copy.

// maxStageCopy bounds what staging copies where it cannot link.
const maxStageCopy = 2 << 30

// staged is the data as the container mounts it.
type staged struct {
	path   string // the staged file or folder, under the kernel's temp folder
	dir    bool
	copied int64 // bytes copied because a hard link was not possible
}

// stageData makes src (a file or a folder) available at dst/NAME.
func stageData(src, dst string) (*staged, error) {
	fi, err := os.Stat(src)
	if err != nil {
		return nil, err
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		return nil, err
	}
	s := &staged{path: filepath.Join(dst, filepath.Base(filepath.Clean(src))), dir: fi.IsDir()}
	if !s.dir {
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file", src)
		}
		return s, s.linkOrCopy(src, s.path, fi)
	}
	// A folder: the same tree of folders, each file linked (symbolic links
	// are kept as they are: they resolve inside the container, as before).
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dst {
			return filepath.SkipDir // the data folder holds $TMPDIR
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(s.path, rel)
		switch {
		case d.IsDir():
			return os.Mkdir(to, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case d.Type().IsRegular():
			fi, err := d.Info()
			if err != nil {
				return err
			}
			return s.linkOrCopy(p, to, fi)
		}
		return nil // sockets, fifos, devices: not data
	})
	return s, err
}

// stageFiles makes a folder of files at dst/data, each at its path.
func stageFiles(files []DataFile, dst string) (*staged, error) {
	if err := os.Mkdir(dst, 0o755); err != nil {
		return nil, err
	}
	s := &staged{path: filepath.Join(dst, "data"), dir: true}
	if err := os.Mkdir(s.path, 0o755); err != nil {
		return nil, err
	}
	for _, f := range files {
		rel := filepath.FromSlash(f.Path)
		if !filepath.IsLocal(rel) {
			return nil, fmt.Errorf("data file %q: not a relative path inside the data folder", f.Path)
		}
		fi, err := os.Stat(f.Source)
		if err != nil {
			return nil, err
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file", f.Source)
		}
		to := filepath.Join(s.path, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return nil, err
		}
		if err := s.linkOrCopy(f.Source, to, fi); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *staged) linkOrCopy(src, dst string, fi fs.FileInfo) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	} else if !errors.Is(err, os.ErrPermission) && !isCrossDevice(err) {
		return fmt.Errorf("staging %s: %w", src, err)
	}
	if s.copied+fi.Size() > maxStageCopy {
		return fmt.Errorf("staging %s: it cannot be hard-linked into %s (another filesystem, or a file you do not own), and copying more than %s of data for each kernel is refused; set TMPDIR to a folder on the data's filesystem",
			src, os.TempDir(), units.Bytes(maxStageCopy))
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return fmt.Errorf("staging %s: %w", src, err)
	}
	n, err := io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("staging %s: copying it: %w", src, err)
	}
	s.copied += n
	return nil
}

func isCrossDevice(err error) bool { return errors.Is(err, syscall.EXDEV) }
