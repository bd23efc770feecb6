package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/internal/filehash"
	"github.com/analyst-cli/analyst/kernel"
)

// checkFolderData finds a folder dataset (given, else where run.json
// records it, else next to run.json) and checks each table's and
// document's sha256 against run.json's inputs, then the folder's digest;
// it returns the files to mount. A file missing or changed is a
// *DataError naming it.
func checkFolderData(run *Run, given string, dc *DataCheck) ([]kernel.DataFile, error) {
	rec := run.Record
	dc.Want = rec.Data.SHA256
	locate, where := folderLocator(run, given)
	dc.Path = where
	var listed []filehash.Listed
	var files []kernel.DataFile
	missing := false
	for _, in := range rec.Inputs {
		if in.Kind != eda.InputTable && in.Kind != eda.InputDocument {
			continue
		}
		p := locate(in.Path)
		got, err := FileSHA256(p)
		switch {
		case err != nil:
			missing = true
			dc.Files = append(dc.Files, fmt.Sprintf("%s: missing (%v)", in.Path, err))
		case got != in.SHA256:
			dc.Files = append(dc.Files, fmt.Sprintf("%s: sha256 %s, the run recorded %s", in.Path, got, in.SHA256))
		}
		listed = append(listed, filehash.Listed{Path: in.Path, SHA256: got})
		files = append(files, kernel.DataFile{Path: in.Path, Source: p})
	}
	dc.Got = filehash.ListingSHA256(listed)
	switch {
	case missing:
		dc.Status = "missing"
	case len(dc.Files) > 0 || dc.Got != dc.Want:
		dc.Status = "changed"
	default:
		dc.Status = CellOK
		return files, nil
	}
	msg := fmt.Sprintf("%s is not the run's data: %s", where, strings.Join(dc.Files, "; "))
	if len(dc.Files) == 0 {
		msg = fmt.Sprintf("%s is not the run's data: its files' digest is %s, the run recorded %s", where, dc.Got, dc.Want)
	}
	if missing {
		msg += "; give the run's folder with --data FOLDER"
	}
	return nil, &DataError{Msg: msg}
}

// folderLocator maps a file's path in the folder to where it is on the
// host: under the folder given, the one run.json records, or one of that
// name next to run.json; for a set of files and folders given one by one,
// each under its recorded path. where names it for messages.
func folderLocator(run *Run, given string) (locate func(string) string, where string) {
	d := run.Record.Data
	if given == "" && len(d.Paths) > 0 {
		byName := map[string]string{}
		for _, p := range d.Paths {
			byName[filepath.Base(p)] = p
		}
		return func(rel string) string {
			first, rest, _ := strings.Cut(rel, "/")
			if p, ok := byName[first]; ok && rest != "" {
				return filepath.Join(p, filepath.FromSlash(rest))
			}
			return byName[rel]
		}, strings.Join(d.Paths, ", ")
	}
	dir := given
	if dir == "" {
		dir = d.Path
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			if alt := filepath.Join(run.Dir, d.Name); isDir(alt) {
				dir = alt
			}
		}
	}
	return func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }, dir
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
