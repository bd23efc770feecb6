package pipeline

import (
	"fmt"
	"math"
	"time"

	"github.com/analyst-cli/analyst/dataset"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/report"
	"github.com/analyst-cli/analyst/runrecord"
)

// What a run writes about its dataset where a folder differs from a file:
// the notebook's title and provenance, run.json's tables and load rate,
// and the report's list of files.

// notebookData is the notebook's provenance of the data: a folder's lists
// its files.
func (r *runner) notebookData() map[string]any {
	d := map[string]any{"name": r.in.Name, "sha256": r.in.SHA256, "bytes": r.in.Bytes}
	if r.in.Folder != nil {
		var files []map[string]any
		for _, f := range r.in.Folder.Files {
			if f.Kind == dataset.InputTable || f.Kind == dataset.InputDocument {
				files = append(files, map[string]any{"path": f.Path, "kind": f.Kind, "sha256": f.SHA256, "bytes": f.Bytes})
			}
		}
		d["files"] = files
	}
	return d
}

// notebookTitle opens the notebook: what it analyses, and how to re-run it.
func (r *runner) notebookTitle() string {
	if r.in.Folder == nil {
		return fmt.Sprintf("# Exploratory analysis of `%s`\n\n"+
			"Written by analyst %s. Every number and chart below comes from the code cells in this notebook; "+
			"to re-run it elsewhere, point `DATA_PATH` in the load cell at the file "+
			"(sha256 `%s`).", r.in.Name, r.opts.AnalystVersion, r.in.SHA256)
	}
	f := r.in.Folder
	return fmt.Sprintf("# Exploratory analysis of the folder `%s`\n\n"+
		"Written by analyst %s. Every number and chart below comes from the code cells in this notebook; "+
		"to re-run it elsewhere, point `DATA_DIR` in the load cell at the folder. It holds %d table(s) and %d document(s) "+
		"(each file's sha256 is in the notebook's metadata and in run.json; the folder's digest, the sha256 of their sorted "+
		"sha256sum listing, is `%s`).", r.in.Name, r.opts.AnalystVersion, len(f.Tables()), len(f.Documents()), r.in.SHA256)
}

// manifestTables records a folder's main table and tables.
func (r *runner) manifestTables(d *runrecord.Data) {
	if r.in.Folder == nil {
		return
	}
	d.Format, d.Paths = dataset.FormatFolder, r.in.Folder.Given
	if r.loaded == nil {
		return
	}
	d.MainTable = r.loaded.Main
	for _, t := range r.loaded.Tables {
		d.Tables = append(d.Tables, runrecord.Table{Name: t.Name, Path: t.Path, Rows: t.Profile.Rows, Columns: t.Profile.Columns, Format: t.Profile.Load.Format})
	}
}

// loadRate is the data's bytes over the time its load stages took, in MB
// per second, when they all ended well.
func (r *runner) loadRate() (float64, bool) {
	var took time.Duration
	bytes := r.in.Bytes
	if r.in.Folder != nil {
		bytes = 0
		for _, t := range r.in.Folder.Tables() {
			bytes += t.Bytes
		}
	}
	found := false
	for _, s := range r.stages {
		if !r.loadStage(s.Name) {
			continue
		}
		if s.Status != report.StatusOK {
			return 0, false
		}
		took += s.Duration
		found = true
	}
	if !found {
		return 0, false
	}
	return math.Round(mbPerS(bytes, took)*1000) / 1000, true
}

// loadStage says whether the stage named name reads the data: the load
// stage, a folder's tables' own, and the one of its other tables.
func (r *runner) loadStage(name string) bool {
	if name == eda.StageLoad || name == eda.StageOtherTables && r.in.Folder != nil {
		return true
	}
	if r.in.Folder == nil {
		return false
	}
	for _, t := range r.in.Folder.Tables() {
		if name == eda.TableStage(eda.StageLoad, t.Table) {
			return true
		}
	}
	return false
}

// reportInputs is the report's list of a folder's files (run.json's
// inputs), its tables with their shapes; nil for a file.
func reportInputs(m *runrecord.Record) *report.Inputs {
	if m.Data.Format != dataset.FormatFolder {
		return nil
	}
	in := &report.Inputs{Folder: m.Data.Name, Digest: m.Data.SHA256, Main: m.Data.MainTable}
	shapes := map[string]runrecord.Table{}
	for _, t := range m.Data.Tables {
		shapes[t.Name] = t
	}
	for _, f := range m.Inputs {
		ri := report.InputFile{Path: f.Path, Kind: f.Kind, Format: f.Format, Bytes: f.Bytes, SHA256: f.SHA256, Table: f.Table,
			Reason: f.Reason, Headings: f.HeadingCount}
		if t, ok := shapes[f.Table]; ok && f.Kind == dataset.InputTable {
			ri.Rows, ri.Columns = t.Rows, t.Columns
		}
		in.Files = append(in.Files, ri)
	}
	return in
}

// dataTitle names the dataset of the run m records in the report's title.
func dataTitle(m *runrecord.Record) string {
	if m.Data.Format == dataset.FormatFolder {
		return "Analysis of the folder " + m.Data.Name
	}
	return "Analysis of " + m.Data.Name
}
