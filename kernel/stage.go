package kernel

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/analyst-cli/analyst/internal/dirfd"
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

// stageData makes src (a file or a folder) available at dst/NAME; a file
// must be id when id is set.
func stageData(src, dst string, id dirfd.ID) (*staged, error) {
	fi, err := os.Stat(src)
	if err != nil {
		return nil, err
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		return nil, err
	}
	s := &staged{path: filepath.Join(dst, filepath.Base(filepath.Clean(src))), dir: fi.IsDir()}
	if !s.dir {
		return s, s.stageFile(DataFile{Source: src, ID: id}, s.path)
	}
	// A folder: the same tree of folders, each file opened beneath the
	// folder's descriptor and linked (symbolic links are kept as they are:
	// they resolve inside the container, as before).
	dir, err := dirfd.OpenDir(src)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
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
			return s.stageFile(DataFile{Source: p, Dir: dir, Rel: filepath.ToSlash(rel)}, to)
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
		to := filepath.Join(s.path, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return nil, err
		}
		if err := s.stageFile(f, to); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// beforeStageFile, set by tests only, runs just before a file is opened
// for staging: the moment a folder's owner would swap it.
var beforeStageFile func(DataFile)

// stageFile opens f once (beneath its folder's descriptor, no link
// followed, when it has one), checks that it is a regular file and the
// one that was checked (f.ID), and links or copies it to dst from that
// descriptor: the staged file is the one hashed, whatever the path now
// names.
func (s *staged) stageFile(f DataFile, dst string) error {
	if beforeStageFile != nil {
		beforeStageFile(f)
	}
	var in *os.File
	var err error
	if f.Dir != nil {
		in, err = f.Dir.Open(f.Rel)
	} else {
		in, err = dirfd.OpenFile(f.Source)
	}
	var nr *dirfd.NotRegularError
	switch {
	case errors.Is(err, dirfd.ErrLink):
		return &DataChangedError{Path: f.Source, Why: dirfd.ErrLink.Error()}
	case errors.As(err, &nr):
		return &DataChangedError{Path: f.Source, Why: "it is now " + dirfd.Kind(nr.Mode) + ", not a regular file"}
	case err != nil:
		return fmt.Errorf("staging %s: %w", f.Source, err)
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return fmt.Errorf("staging %s: %w", f.Source, err)
	}
	if f.ID != (dirfd.ID{}) && dirfd.IDOf(fi) != f.ID {
		return &DataChangedError{Path: f.Source, Why: "it was replaced by another file"}
	}
	return s.linkOrCopy(in, f.Source, dst, fi)
}

func (s *staged) linkOrCopy(in *os.File, src, dst string, fi fs.FileInfo) error {
	if err := dirfd.Link(in, dst); err == nil {
		return nil
	} else if !errors.Is(err, os.ErrPermission) && !isCrossDevice(err) {
		return fmt.Errorf("staging %s: %w", src, err)
	}
	if s.copied+fi.Size() > maxStageCopy {
		return fmt.Errorf("staging %s: it cannot be hard-linked into %s (another filesystem, or a file you do not own), and copying more than %s of data for each kernel is refused; set TMPDIR to a folder on the data's filesystem",
			src, os.TempDir(), units.Bytes(maxStageCopy))
	}
	n, err := dirfd.Copy(in, dst, fi.Mode().Perm(), maxStageCopy-s.copied)
	if err != nil {
		return fmt.Errorf("staging %s: copying it: %w", src, err)
	}
	s.copied += n
	return nil
}

func isCrossDevice(err error) bool { return errors.Is(err, syscall.EXDEV) }
