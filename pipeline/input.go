package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// InputError is a dataset analyst cannot use: missing, unreadable, empty, or
// in a format the kernel cannot read. Its message says what to do.
type InputError struct {
	Path string
	Msg  string
}

func (e *InputError) Error() string { return e.Path + ": " + e.Msg }

// readable lists the file types the kernel's loader reads, by extension.
var readable = []string{".csv", ".tsv", ".tab", ".txt", ".json", ".jsonl", ".ndjson", ".xlsx", ".xlsm"}

// Input is a checked dataset.
type Input struct {
	Path   string // absolute
	Name   string // base name, as mounted at /data/NAME
	Bytes  int64
	SHA256 string
}

// CheckInput makes sure path is a dataset the kernel can read, before any
// container starts, and hashes it for the run manifest.
func CheckInput(path string) (*Input, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &InputError{path, err.Error()}
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &InputError{path, "no such file; check the path"}
	case errors.Is(err, fs.ErrPermission):
		return nil, &InputError{path, "permission denied; check the folder's permissions"}
	case err != nil:
		return nil, &InputError{path, err.Error()}
	case fi.IsDir():
		return nil, &InputError{path, "is a folder; give one data file (CSV, TSV, JSON, JSON Lines or Excel)"}
	case !fi.Mode().IsRegular():
		return nil, &InputError{path, "is not a regular file"}
	case fi.Size() == 0:
		return nil, &InputError{path, "the file is empty"}
	}
	f, err := os.Open(abs)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, &InputError{path, "permission denied: analyst cannot read the file; check its permissions (chmod a+r)"}
		}
		return nil, &InputError{path, err.Error()}
	}
	defer f.Close()
	head := make([]byte, 8)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if err := checkFormat(abs, head); err != nil {
		return nil, &InputError{path, err.Error()}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, &InputError{path, err.Error()}
	}
	h := sha256.New()
	size, err := io.Copy(h, f)
	if err != nil {
		return nil, &InputError{path, "reading: " + err.Error()}
	}
	if strings.ContainsAny(abs, ",:") {
		return nil, &InputError{path, "the path contains ',' or ':', which podman cannot mount; copy or link the file to a plain path"}
	}
	return &Input{Path: abs, Name: filepath.Base(abs), Bytes: size, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// checkFormat rejects what the image cannot read, by extension and magic.
func checkFormat(path string, head []byte) error {
	lower := strings.ToLower(filepath.Base(path))
	ext := filepath.Ext(lower)
	if ext == ".gz" || ext == ".gzip" {
		ext = filepath.Ext(strings.TrimSuffix(lower, ext))
	}
	switch {
	case bytes.HasPrefix(head, []byte("PAR1")) || ext == ".parquet" || ext == ".pq":
		return errors.New("Parquet needs pyarrow, which the kernel image does not have (Debian 12 packages no pyarrow); " +
			"convert it to CSV first, for example with duckdb: COPY (SELECT * FROM 'data.parquet') TO 'data.csv'")
	case ext == ".xls":
		return errors.New("old Excel files (.xls) are not supported; save the sheet as .xlsx or CSV")
	case ext == ".feather" || ext == ".arrow" || ext == ".orc":
		return fmt.Errorf("%s files need pyarrow, which the kernel image does not have; convert to CSV first", ext)
	}
	for _, r := range readable {
		if ext == r {
			return nil
		}
	}
	if ext == "" {
		return errors.New("the file has no extension; name it .csv, .tsv, .json, .jsonl or .xlsx so analyst knows how to read it")
	}
	return fmt.Errorf("unknown file type %s; analyst reads %s (optionally gzip-compressed, .gz)", ext, strings.Join(readable, " "))
}
