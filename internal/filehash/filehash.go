// Package filehash is the one way a file's sha256 is computed for run
// manifests, suites and verification, so the recorded and checked values
// always agree.
package filehash

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"sort"
)

// SHA256 is the lower-case hex sha256 of the file's bytes.
func SHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Listed is a file's path (relative, with '/') and its sha256.
type Listed struct{ Path, SHA256 string }

// ListingSHA256 is the sha256 of the sha256sum listing of files ("HASH
// PATH" lines, two spaces between) sorted by path byte by byte: what
// `sha256sum FILES | LC_ALL=C sort -k2 | sha256sum` prints, a folder
// dataset's digest.
func ListingSHA256(files []Listed) string {
	sorted := append([]Listed(nil), files...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	h := sha256.New()
	for _, f := range sorted {
		io.WriteString(h, f.SHA256+"  "+f.Path+"\n")
	}
	return hex.EncodeToString(h.Sum(nil))
}
