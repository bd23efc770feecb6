// Package runfile reads the bytes of NAME.run.json, the record a run
// writes beside its notebook, for runrecord (its schema, and the one
// reader every package uses): its size checked before any byte is read,
// so a huge or endless file named like a record is refused at once instead
// of filling memory. File, the entry of its "files", is here so baseline,
// below runrecord, names it too.
package runfile

import (
	"errors"
	"fmt"

	"github.com/analyst-cli/analyst/internal/boundedfile"
	"github.com/analyst-cli/analyst/internal/units"
)

// File is an entry of run.json's "files": a file or folder the run wrote, by
// its path relative to the run's folder ('/'-separated; a folder's ends in
// '/'), with a file's size and sha256. The writer and every reader of
// the list use this one type.
type File struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
}

// MaxBytes bounds a run.json: it holds every model reply of the run, far
// below this in any run analyst writes.
const MaxBytes = 256 << 20

// TooLargeError is a file over MaxBytes.
type TooLargeError struct {
	Path string
	Size int64 // at least this many bytes
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is %s, over the %s a run.json analyst writes can be: it is no run's record; "+
		"give the NAME.run.json a run wrote", e.Path, units.Bytes(e.Size), units.Bytes(MaxBytes))
}

// ErrNotRegular is a path that is no regular file (a folder, a pipe, a
// device), which a run never writes as its record.
var ErrNotRegular = boundedfile.ErrNotRegular

// Read is the bytes of the run.json at path, refused when it is over
// MaxBytes before any is read, and again if it grows past it while read.
func Read(path string) ([]byte, error) {
	b, err := boundedfile.Read(path, MaxBytes)
	var tooLarge *boundedfile.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		return nil, &TooLargeError{Path: path, Size: tooLarge.Size}
	case errors.Is(err, ErrNotRegular):
		return nil, fmt.Errorf("%w (a run.json is one)", err)
	}
	return b, err
}
