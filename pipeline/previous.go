package pipeline

import (
	"github.com/analyst-cli/analyst/audit"
	"github.com/analyst-cli/analyst/runrecord"

	"errors"
	"fmt"
	"github.com/analyst-cli/analyst/internal/runfile"
	"io/fs"
	"os"
	"path/filepath"
)

// OutputConflictError is a file or folder in the way of a run's outputs
// that no previous run wrote, or that was changed since: the run stops
// before it starts rather than replace it.
type OutputConflictError struct {
	Path     string // the file or folder in the way
	Manifest string // the previous run's manifest, if there is one
	Changed  bool   // written by a previous run, changed since
	Name     string // the run's name
}

func (e *OutputConflictError) Error() string {
	var why string
	switch {
	case e.Changed:
		why = fmt.Sprintf("%s was written by a previous run but has been changed since (its sha256 differs from the one in %s)", e.Path, e.Manifest)
	case e.Manifest != "":
		why = fmt.Sprintf("%s is not from a previous run (%s does not list it)", e.Path, e.Manifest)
	default:
		why = fmt.Sprintf("%s exists and analyst did not write it (there is no manifest of a previous run, %s.run.json)", e.Path, e.Name)
	}
	return why + "; not replacing it. Write this run elsewhere with --name NAME or --out DIR, or replace it with --force " +
		fmt.Sprintf("(which replaces %[1]s.ipynb, %[1]s.html, %[1]s.run.json and the whole %[1]s_files folder)", e.Name)
}

// outputNames are what a run named name writes in its output folder.
func outputNames(name string) []string {
	return []string{name + ".ipynb", name + ".html", name + ".run.json", name + "_files"}
}

// CheckOutputs makes sure a run named name may write into outDir: each of
// its outputs that already exists must be listed, unchanged, by the
// manifest of the previous run of that name. It reads, never writes.
func CheckOutputs(outDir, name string) error {
	if outDir == "" {
		outDir = "."
	}
	var present []string
	for _, n := range outputNames(name) {
		if _, err := os.Lstat(filepath.Join(outDir, n)); err == nil {
			present = append(present, n)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("checking the output folder: %w", err)
		}
	}
	if len(present) == 0 {
		return nil
	}
	manifestPath := filepath.Join(outDir, name+".run.json")
	written, isManifest := readWritten(manifestPath)
	conflict := &OutputConflictError{Name: name}
	if isManifest {
		conflict.Manifest = manifestPath
	}
	for _, n := range present {
		if n == name+".run.json" {
			if !isManifest {
				conflict.Path = manifestPath
				return conflict
			}
			continue
		}
		err := filepath.WalkDir(filepath.Join(outDir, n), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(outDir, p)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				rel += "/"
			}
			w, listed := written[rel]
			switch {
			case !listed, !d.IsDir() && !d.Type().IsRegular():
				conflict.Path = p
				return conflict
			case d.Type().IsRegular():
				sum, err := audit.FileSHA256(p)
				if err != nil {
					return err
				}
				if sum != w.SHA256 {
					conflict.Path, conflict.Changed = p, true
					return conflict
				}
			}
			return nil
		})
		if err != nil {
			var ce *OutputConflictError
			if errors.As(err, &ce) {
				return ce
			}
			return fmt.Errorf("checking the output folder: %w", err)
		}
	}
	return nil
}

// readWritten reads what a previous run's manifest says it wrote; ok is
// false when path is no run manifest.
func readWritten(path string) (files map[string]runfile.File, ok bool) {
	rec, err := runrecord.Read(path)
	if err != nil || rec.AnalystVersion == "" {
		return nil, false
	}
	files = map[string]runfile.File{}
	for _, f := range rec.Files {
		files[f.Path] = f
	}
	return files, true
}

// written lists what the staged run holds, under the names it will have in
// the output folder. Whatever the sandbox left in the chart folder that is
// neither a file nor a folder (links, pipes) is removed first: a run's
// outputs are plain files.
func (s *staging) written(name string) ([]runfile.File, error) {
	var out []runfile.File
	for _, n := range []string{name + ".ipynb", name + ".html"} {
		f, err := describe(s.path(n), n)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	err := filepath.WalkDir(s.filesDir(), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(s.filesDir(), p)
		rel = filepath.ToSlash(filepath.Join(name+"_files", rel))
		switch {
		case d.IsDir():
			out = append(out, runfile.File{Path: rel + "/"})
		case d.Type().IsRegular():
			f, err := describe(p, rel)
			if err != nil {
				return err
			}
			out = append(out, f)
		default:
			return os.Remove(p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the run's files: %w", err)
	}
	return out, nil
}

func describe(path, rel string) (runfile.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return runfile.File{}, err
	}
	sum, err := audit.FileSHA256(path)
	if err != nil {
		return runfile.File{}, err
	}
	return runfile.File{Path: rel, Bytes: fi.Size(), SHA256: sum}, nil
}
