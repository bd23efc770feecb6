package dataset

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/analyst-cli/analyst/internal/dirfd"
	"github.com/analyst-cli/analyst/kernel"
)

// The kernel reads the user's file itself (a hard link to it is mounted,
// never a copy), so a file rewritten in place while a run reads it would
// give outputs computed from bytes run.json does not hash. A run therefore
// checks, after each stage that reads the data, that the file is still the
// one CheckFile hashed (same inode, size and modification time: a stat),
// and once the kernel is gone, that its bytes still have the recorded
// sha256: then the hash in run.json is the hash of every byte the kernel
// can have read. docs/benchmarks.md has what this costs against reading
// from a private copy.

// fileID is what tells a file's content apart without reading it: the
// inode, its size and modification time. The inode's change time moves
// with its content too, but also with its metadata (a chmod, the hard link
// the kernel stages), so a ctime that moved calls for reading the file
// again, not for a verdict.
type fileID struct {
	dev, ino     uint64
	size         int64
	mtime, ctime time.Time
}

func idOf(fi fs.FileInfo) fileID {
	id := fileID{size: fi.Size(), mtime: fi.ModTime(), ctime: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(st.Dev), st.Ino
		id.ctime = time.Unix(st.Ctim.Unix())
	}
	return id
}

// dirfdID is the file's device and inode, as staging checks them.
func (id fileID) dirfdID() dirfd.ID { return dirfd.ID{Dev: id.dev, Ino: id.ino} }

// dataFile is the file as the kernel stages it at /data/path: opened by
// its folder's descriptor, and refused unless it is the file hashed.
func (in *Input) dataFile(path string) kernel.DataFile {
	return kernel.DataFile{Path: path, Source: in.Path, Dir: in.dir, Rel: in.rel, ID: in.id.dirfdID()}
}

// changed says how now differs from id in what it holds ("" when it does
// not); with ctime, a moved change time counts too.
func (id fileID) changed(now fileID, ctime bool) string {
	switch {
	case id.dev != now.dev || id.ino != now.ino:
		return "it was replaced by another file"
	case id.size != now.size:
		return fmt.Sprintf("its size went from %d to %d bytes", id.size, now.size)
	case !id.mtime.Equal(now.mtime):
		return "it was modified at " + now.mtime.UTC().Format("2006-01-02 15:04:05.000 UTC")
	case ctime && !id.ctime.Equal(now.ctime):
		return "its inode changed at " + now.ctime.UTC().Format("2006-01-02 15:04:05.000 UTC")
	}
	return ""
}

// steadyReads bounds how often a file is read again while only its inode's
// change time moves.
const steadyReads = 3

// readSteady reads the file open as f whole, from its start, with read
// (which returns the sha256 of what it read), and returns the file's state
// after the read it keeps, and why the file counts as changed ("" when it
// does not). The inode's change time moves with a file's bytes but also
// with its links and mode: another run staging the same file (a hard link
// made, then removed) moves it while this one reads. So a read during which
// only the change time moved is done again, and kept when no change time
// moved during it or when it hashed as the read before it did; after
// steadyReads reads the move is the change. A moved inode, size or
// modification time is a change at once.
func readSteady(f *os.File, read func(io.Reader) ([]byte, error)) (after fs.FileInfo, sum []byte, why string, err error) {
	var last []byte
	for n := 1; ; n++ {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, nil, "", err
		}
		before, err := f.Stat()
		if err != nil {
			return nil, nil, "", err
		}
		if sum, err = read(f); err != nil {
			return nil, nil, "", err
		}
		if after, err = f.Stat(); err != nil {
			return nil, nil, "", err
		}
		from, to := idOf(before), idOf(after)
		switch {
		case from.changed(to, false) != "":
			return after, sum, from.changed(to, false), nil
		case from.ctime.Equal(to.ctime) || bytes.Equal(sum, last):
			return after, sum, "", nil
		case n == steadyReads:
			return after, sum, from.changed(to, true), nil
		}
		last = sum
	}
}

// changedWhileRead is the refusal of a file that changed while checked.
func changedWhileRead(why string) string {
	return "the file changed while analyst read it (" + why + "); run again once whatever writes it has finished"
}

// Unchanged checks that the data file is still what CheckFile hashed: by
// a stat, and with rehash also by its sha256. The error is a *DataError
// that names what changed.
func (in *Input) Unchanged(rehash bool) error {
	if in.Folder != nil {
		// A folder: each of its tables and documents, as a file of its own.
		for _, f := range in.Folder.Files {
			if f.In == nil || (f.Kind != InputTable && f.Kind != InputDocument) {
				continue
			}
			if err := f.In.Unchanged(rehash); err != nil {
				return err
			}
		}
		return nil
	}
	// By the descriptor, as the file was hashed: a path swapped for a link
	// in between is refused, not followed.
	f, err := in.open()
	if err != nil {
		return in.unreadable(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return in.unreadable(err)
	}
	if why := in.id.changed(idOf(fi), false); why != "" {
		return in.changedError(why)
	}
	if !rehash {
		return nil
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return in.unreadable(err)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != in.SHA256 {
		return in.changedError(fmt.Sprintf("its sha256 is now %s, its size and modification time as before", sum))
	}
	return nil
}

func (in *Input) changedError(why string) error {
	return &DataError{Path: in.Path, Msg: "the file changed while the run read it (" + why + "), so the outputs may come from other bytes than " +
		"the sha256 run.json records; run again once whatever writes it has finished, or analyse a copy that nothing writes to"}
}

func (in *Input) unreadable(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &DataError{Path: in.Path, Msg: "the file was removed or renamed during the run, so the outputs cannot be checked against " +
			"the bytes run.json records; run again with the file in place"}
	case errors.Is(err, fs.ErrPermission):
		return &DataError{Path: in.Path, Msg: "permission denied: the file was made unreadable during the run; check its permissions (chmod a+r) and run again"}
	}
	return &DataError{Path: in.Path, Msg: fmt.Sprintf("the file cannot be read again to check it did not change during the run: %v", err)}
}
