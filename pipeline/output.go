package pipeline

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/analyst-cli/analyst/internal/owner"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/nbformat"
)

// staging is a hidden folder inside the output folder where a run writes
// everything first. commit moves the finished run into place, replacing the
// previous run of the same name whole, so the folder never holds a mix of
// two runs.
type staging struct {
	outDir string
	dir    string
}

func newStaging(outDir, name string) (*staging, error) {
	if outDir == "" {
		outDir = "."
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the output folder: %w", err)
	}
	dir, err := os.MkdirTemp(outDir, "."+name+stagingInfix)
	if err != nil {
		return nil, fmt.Errorf("creating the output folder: %w", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	s := &staging{outDir: outDir, dir: dir}
	// So a later run can tell this folder, if a kill leaves it, from a
	// run going on (removeLeftoverStaging).
	if err := owner.WriteFile(dir); err != nil {
		s.discard()
		return nil, err
	}
	if err := os.Mkdir(s.filesDir(), 0o755); err != nil {
		return nil, fmt.Errorf("creating the output folder: %w", err)
	}
	return s, nil
}

// filesDir holds the run's charts (NAME_files in the output folder); it is
// also the kernel's writable /output.
func (s *staging) filesDir() string { return filepath.Join(s.dir, "files") }

func (s *staging) path(name string) string { return filepath.Join(s.dir, name) }

// writeCharts writes every PNG in the notebook, with its description, to
// files/chart-N.png and chart-N.json; it returns their names relative to the
// output folder.
func (s *staging) writeCharts(nb *nbformat.Notebook, name string) ([]string, error) {
	var charts []string
	n := 0
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			png, ok := o.DataString(nbformat.MimePNG)
			if !ok {
				continue
			}
			b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(png))
			if err != nil {
				return nil, fmt.Errorf("decoding a chart of cell %s: %w", c.ID, err)
			}
			n++
			base := fmt.Sprintf("chart-%d", n)
			chart := kernel.Chart{PNG: b, Description: compactJSON(o.Data[nbformat.MimeChart])}
			if err := chart.WriteFiles(filepath.Join(s.filesDir(), base)); err != nil {
				return nil, err
			}
			charts = append(charts, filepath.Join(name+"_files", base+".png"))
		}
	}
	return charts, nil
}

// compactJSON is raw without the notebook's indentation (as it was read
// back from the notebook file), or raw itself when it is not JSON.
func compactJSON(raw []byte) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

// commit moves the run into the output folder: NAME_files, then NAME.ipynb,
// NAME.html and last NAME.run.json, each by rename. The previous run's
// NAME_files goes as a whole.
func (s *staging) commit(name string) (Files, error) {
	final := func(n string) string { return filepath.Join(s.outDir, n) }
	filesFinal := final(name + "_files")
	old := filepath.Join(s.dir, "previous_files")
	if _, err := os.Stat(filesFinal); err == nil {
		if err := os.Rename(filesFinal, old); err != nil {
			return Files{}, fmt.Errorf("replacing %s: %w", filesFinal, err)
		}
	}
	if err := os.Rename(s.filesDir(), filesFinal); err != nil {
		return Files{}, fmt.Errorf("writing %s: %w", filesFinal, err)
	}
	for _, ext := range []string{".ipynb", ".html", ".run.json"} {
		if err := os.Rename(s.path(name+ext), final(name+ext)); err != nil {
			return Files{}, fmt.Errorf("writing %s: %w", final(name+ext), err)
		}
	}
	files := Files{Notebook: final(name + ".ipynb"), Report: final(name + ".html"), Manifest: final(name + ".run.json")}
	matches, _ := filepath.Glob(filepath.Join(filesFinal, "chart-*.png"))
	files.Charts = matches
	return files, nil
}

// stagingInfix is in every staging folder's name: .NAME.run-RANDOM.
const stagingInfix = ".run-"

// leftover is a staging folder a killed run left.
type leftover struct {
	path     string
	ownerPID int
}

// removeLeftoverStaging removes the staging folders in outDir whose run was
// killed before it could (its owner process is gone), and returns them.
// Folders without an owner file, made by older versions, are left alone.
func removeLeftoverStaging(outDir string) ([]leftover, error) {
	if outDir == "" {
		outDir = "."
	}
	dirs, err := filepath.Glob(filepath.Join(outDir, ".*"+stagingInfix+"*"))
	if err != nil {
		return nil, err
	}
	var removed []leftover
	for _, dir := range dirs {
		o, err := owner.ReadFile(dir)
		if err != nil || o.Alive() {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			return removed, fmt.Errorf("removing what a killed run left in the output folder: %w", err)
		}
		removed = append(removed, leftover{path: dir, ownerPID: o.PID})
	}
	return removed, nil
}

// discard removes the staging folder (after commit it holds only the
// previous run's files).
func (s *staging) discard() { _ = os.RemoveAll(s.dir) }
