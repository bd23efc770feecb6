package dataset

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/analyst-cli/analyst/internal/parquetnpy"
	"github.com/analyst-cli/analyst/kernel"
)

// Converted is a Parquet file converted for the kernel (which has no
// Parquet reader): a folder of per-column .npy files, mounted read-only at
// Target, next to the file.
type Converted struct {
	Dir    string // on the host, inside base
	base   string // the private (0700) temporary folder; Remove deletes it
	Target string // in the kernel: /data/NAME.columns
	Schema *parquetnpy.Schema
}

// Mount is the kernel mount of the converted folder.
func (c *Converted) Mount() kernel.Mount { return kernel.Mount{Source: c.Dir, Target: c.Target} }

// Remove deletes the converted files.
func (c *Converted) Remove() error { return os.RemoveAll(c.base) }

// ConvertedSuffix is appended to the data file's name for the folder the
// kernel sees the converted columns in.
const ConvertedSuffix = ".columns"

// ConvertParquet converts the Parquet file in into a temporary folder. Its
// errors are *InputError (the file cannot be read as Parquet) or the
// system's (disk full).
func ConvertParquet(in *Input) (*Converted, error) {
	// The folder in the shared $TMPDIR is 0700 (no other local user reads
	// the data's columns); the kernel's user (another uid when podman runs
	// as root) reads the folder inside it, its mount's root.
	base, err := os.MkdirTemp("", "analyst-parquet-")
	if err != nil {
		return nil, fmt.Errorf("converting %s: %w", in.Name, err)
	}
	dir := filepath.Join(base, "columns")
	if err := os.Mkdir(dir, 0o755); err != nil {
		os.RemoveAll(base)
		return nil, err
	}
	s, err := parquetnpy.Convert(in.Path, dir)
	if err != nil {
		os.RemoveAll(base)
		if pe, ok := err.(*parquetnpy.Error); ok {
			return nil, &InputError{in.Path, pe.Msg}
		}
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Path == in.Path && errors.Is(err, fs.ErrPermission) {
			return nil, &InputError{in.Path, "permission denied: the file was made unreadable after it was checked; check its permissions (chmod a+r) and run again"}
		}
		return nil, fmt.Errorf("converting %s: %w", in.Path, err)
	}
	return &Converted{Dir: dir, base: base, Target: kernel.DataMount + "/" + in.Name + ConvertedSuffix, Schema: s}, nil
}
