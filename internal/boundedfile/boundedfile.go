// Package boundedfile reads a file analyst did not necessarily write
// itself (a run's record given back, a shard's results from an artifact)
// with a bound: its size is checked before any byte is read, and again
// while it is read, so a huge, growing or endless file is refused at once
// instead of filling memory, and a FIFO in its place is refused instead of
// waited on.
package boundedfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/analyst-cli/analyst/internal/units"
)

// ErrNotRegular is a path that is no regular file (a folder, a pipe, a
// device).
var ErrNotRegular = errors.New("not a regular file")

// TooLargeError is a file over the bound it was read with.
type TooLargeError struct {
	Path string
	Size int64 // at least this many bytes
	Max  int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is %s, over the %s it may be", e.Path, units.Bytes(e.Size), units.Bytes(e.Max))
}

// Read is the bytes of the regular file at path, refused (TooLargeError)
// when it is over max bytes before any is read, and again if it grows
// past max while read.
func Read(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a pipe does not block the open
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	if fi.Size() > max {
		return nil, &TooLargeError{Path: path, Size: fi.Size(), Max: max}
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if int64(len(b)) > max {
		return nil, &TooLargeError{Path: path, Size: int64(len(b)), Max: max}
	}
	return b, nil
}
