package audit

import (
	"github.com/analyst-cli/analyst/internal/filehash"

	"errors"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// FileCheck is one file of the run against its recorded sha256.
type FileCheck struct {
	Path   string `json:"path"`
	Status string `json:"status"` // ok, changed, missing, unrecorded
	Want   string `json:"want,omitempty"`
	Got    string `json:"got,omitempty"`
}

// checkFiles hashes every recorded file, and lists files in NAME_files the
// run did not write.
func checkFiles(run *Run) []FileCheck {
	var out []FileCheck
	sums := fileSums(run.Record)
	for _, rel := range sortedKeys(sums) {
		want := sums[rel]
		got, err := FileSHA256(filepath.Join(run.Dir, filepath.FromSlash(rel)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			out = append(out, FileCheck{Path: rel, Status: "missing", Want: want})
		case err != nil:
			out = append(out, FileCheck{Path: rel, Status: "unreadable: " + err.Error(), Want: want})
		case got != want:
			out = append(out, FileCheck{Path: rel, Status: "changed", Want: want, Got: got})
		default:
			out = append(out, FileCheck{Path: rel, Status: "ok", Want: want})
		}
	}
	// A chart folder is the run's alone: anything added there is reported.
	dirs := map[string]bool{}
	for rel := range sums {
		if d, _, ok := strings.Cut(rel, "/"); ok {
			dirs[d] = true
		}
	}
	for d := range dirs {
		_ = filepath.WalkDir(filepath.Join(run.Dir, d), func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(run.Dir, p)
			if _, ok := sums[filepath.ToSlash(rel)]; !ok {
				out = append(out, FileCheck{Path: filepath.ToSlash(rel), Status: "unrecorded"})
			}
			return nil
		})
	}
	return out
}

// FileSHA256 is the hex sha256 of a file's bytes, as run.json records it.
func FileSHA256(path string) (string, error) { return filehash.SHA256(path) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
