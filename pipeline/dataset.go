package pipeline

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
)

// Dataset is a checked input made ready for a kernel: a file, with its
// Parquet conversion if it needs one, or a folder of tables (each Parquet
// table converted) and documents; and where and how the kernel's loader
// reads it. analyst run and each analyst eval case open it the same way.
type Dataset struct {
	In     *Input
	Source eda.Source // a file's
	conv   *Converted // a Parquet file's columns, or nil
	// folder is a folder dataset as the kernel reads it (nil for a file);
	// convs its Parquet tables' columns, by table name.
	folder *eda.Folder
	convs  map[string]*Converted
	// Main, if set and a table of the folder, is its main table, whatever
	// the rows (a replay keeps the recorded run's).
	Main string
}

// OpenDataset makes the checked input in ready for a kernel: it checks the
// sheet or table asked for (an *InputError; a *UsageError for a folder),
// and converts a Parquet file, or a folder's Parquet tables (an
// *InputError when one cannot be read as Parquet). Close removes what it
// made.
func OpenDataset(in *Input, sheet, table string, load eda.LoadOptions) (*Dataset, error) {
	if in.Folder != nil {
		return openFolder(in, sheet, table, load)
	}
	if err := in.CheckSource(sheet, table); err != nil {
		return nil, err
	}
	d := &Dataset{In: in, Source: eda.Source{Path: kernel.DataMount + "/" + in.Name, Sheet: sheet, Table: table, LoadOptions: load}}
	if in.Format == "parquet" {
		conv, err := ConvertParquet(in)
		if err != nil {
			return nil, err
		}
		d.conv = conv
		d.Source.Converted, d.Source.Converter = conv.Target, conv.Schema.Converter
	}
	return d, nil
}

func openFolder(in *Input, sheet, table string, load eda.LoadOptions) (*Dataset, error) {
	if sheet != "" || table != "" {
		return nil, &UsageError{fmt.Errorf("%s: --sheet and --table choose the part of one file to read; in a folder, a spreadsheet is read at its "+
			"first sheet and a database at its only table: give the file itself (analyst run FOLDER/FILE --sheet NAME) to read another", in.Path)}
	}
	d := &Dataset{In: in, folder: &eda.Folder{Dir: kernel.DataMount, LoadOptions: load}, convs: map[string]*Converted{}}
	for _, f := range in.Folder.Files {
		switch f.Kind {
		case InputDocument:
			d.folder.Documents = append(d.folder.Documents, f.Path)
		case InputTable:
			t := eda.FolderTable{Name: f.Table, Path: f.Path}
			if f.Format == "parquet" {
				conv, err := ConvertParquet(f.In)
				if err != nil {
					d.Close()
					return nil, err
				}
				d.convs[f.Table] = conv
				t.Converted, t.Converter = conv.Target, conv.Schema.Converter
			}
			d.folder.Tables = append(d.folder.Tables, t)
		}
	}
	return d, nil
}

// IsFolder says whether the dataset is a folder.
func (d *Dataset) IsFolder() bool { return d.folder != nil }

// KernelOptions are opts with the dataset mounted, and the kernel's
// /output at outputDir. A folder is mounted as it is laid out, with only
// its tables and documents (and the columns of its Parquet tables) in it.
func (d *Dataset) KernelOptions(opts kernel.Options, outputDir string) kernel.Options {
	opts.OutputDir = outputDir
	if d.folder == nil {
		opts.Data, opts.DataID = d.In.Path, d.In.id.dirfdID()
		if d.conv != nil {
			opts.Mounts = append(append([]kernel.Mount(nil), opts.Mounts...), d.conv.Mount())
		}
		return opts
	}
	opts.Data = ""
	opts.DataFiles = nil
	for _, f := range d.In.Folder.Files {
		if f.Kind == InputTable || f.Kind == InputDocument {
			opts.DataFiles = append(opts.DataFiles, f.In.dataFile(f.Path))
		}
	}
	for _, t := range d.folder.Tables {
		if conv := d.convs[t.Name]; conv != nil {
			opts.DataFiles = append(opts.DataFiles, conv.files(t.Path+ConvertedSuffix)...)
		}
	}
	return opts
}

// LoadStages are the stages every analysis of the dataset starts with:
// setup, load and profile, read out of core when ooc is set. A folder's:
// setup (with read_doc when it has documents), the loader, then each
// table's load and profile, past eda.FolderSections tables the others in
// one stage (eda.OtherTables; see RunLoad for what follows them).
func (d *Dataset) LoadStages(ooc *eda.OutOfCore) []eda.Stage {
	if d.folder != nil {
		stages := []eda.Stage{eda.SetupFolder(*d.folder), eda.LoadFolder(*d.folder)}
		tables := d.folder.Tables
		for i, t := range tables[:min(len(tables), eda.FolderSections)] {
			stages = append(stages, eda.LoadTable(t), eda.ProfileTable(t.Name, i == 0))
		}
		if len(tables) > eda.FolderSections {
			stages = append(stages, eda.OtherTables(tables[eda.FolderSections:], len(tables)))
		}
		return stages
	}
	if ooc != nil {
		return []eda.Stage{eda.Setup(), eda.LoadOutOfCore(d.Source, *ooc), eda.ProfileOutOfCore()}
	}
	return []eda.Stage{eda.Setup(), eda.LoadFrom(d.Source), eda.ProfileStage()}
}

// Loaded is what a dataset's load stages found: the profile of the main
// table (a file's only one) and, for a folder, each table's profile.
type Loaded struct {
	Profile *eda.Profile
	// Main is the folder's main table (the one with the most rows, the
	// first of them on a tie), bound to df; Tables each table's profile, in
	// the order they were loaded.
	Main   string
	Tables []LoadedTable
	// Relationships are the tables' keys and references, with several
	// tables; nil otherwise.
	Relationships *eda.RelationshipProfile
	kept          bool // Main is Dataset.Main, not chosen by rows
}

// LoadedTable is a folder's table as loaded and profiled.
type LoadedTable struct {
	Name    string       `json:"name"`
	Path    string       `json:"path"`
	Profile *eda.Profile `json:"-"`
}

// TableProfile is the profile of the folder's table name, or nil.
func (l *Loaded) TableProfile(name string) *eda.Profile {
	for _, t := range l.Tables {
		if t.Name == name {
			return t.Profile
		}
	}
	return nil
}

// RunLoad runs the stages every analysis of the dataset starts with, each
// with run (which returns the profile a stage displayed, or nil), and
// returns what they found; it stops at the first error. For a folder, the
// tables' stages are followed by the relationships between the tables
// (when there are several) and the stage that makes the main table df.
// A profile that did not come is a *StageError.
func (d *Dataset) RunLoad(ooc *eda.OutOfCore, run func(eda.Stage) (StageResult, error)) (*Loaded, error) {
	l := &Loaded{}
	for _, st := range d.LoadStages(ooc) {
		res, err := run(st)
		if err != nil {
			return l, err
		}
		for _, t := range res.Tables {
			l.Tables = append(l.Tables, LoadedTable{Name: t.Name, Path: d.tablePath(t.Name), Profile: t.Profile})
		}
		switch p := res.Profile; {
		case p == nil:
		case st.Table != "":
			l.Tables = append(l.Tables, LoadedTable{Name: st.Table, Path: d.tablePath(st.Table), Profile: p})
		default:
			l.Profile = p
		}
	}
	if d.folder == nil {
		if l.Profile == nil {
			return l, &StageError{Stage: eda.StageProfile, Err: &kernel.ExecError{Name: "NoProfile", Value: "the profile cell produced no profile"}}
		}
		return l, nil
	}
	if len(l.Tables) != len(d.folder.Tables) {
		return l, &StageError{Stage: eda.StageProfile, Err: &kernel.ExecError{Name: "NoProfile",
			Value: fmt.Sprintf("%d of the folder's %d tables were profiled", len(l.Tables), len(d.folder.Tables))}}
	}
	main, kept := l.Tables[0], false
	for _, t := range l.Tables[1:] {
		if t.Profile.Rows > main.Profile.Rows {
			main = t
		}
	}
	for _, t := range l.Tables {
		if t.Name == d.Main {
			main, kept = t, true
		}
	}
	l.Main, l.Profile, l.kept = main.Name, main.Profile, kept
	for _, st := range d.tablesTogether(l) {
		res, err := run(st)
		if err != nil {
			return l, err
		}
		if res.Relationships != nil {
			l.Relationships = res.Relationships
		}
	}
	return l, nil
}

// tablesTogether are the stages after a folder's tables' own: the
// relationships between them, when there are several, then the main table
// made df.
func (d *Dataset) tablesTogether(l *Loaded) []eda.Stage {
	var stages []eda.Stage
	if len(l.Tables) > 1 {
		names := make([]string, len(l.Tables))
		for i, t := range l.Tables {
			names[i] = t.Name
		}
		stages = append(stages, eda.Relationships(names))
	}
	return append(stages, eda.MainTable(l.Main, l.Profile.Rows, len(l.Tables), l.kept))
}

func (d *Dataset) tablePath(name string) string {
	for _, t := range d.folder.Tables {
		if t.Name == name {
			return t.Path
		}
	}
	return ""
}

// StagePath is the file a stage reads, as the user knows it: a folder
// table's file for its stages, else the dataset.
func (d *Dataset) StagePath(st eda.Stage) string {
	if d.folder != nil && st.Table != "" {
		for _, f := range d.In.Folder.Tables() {
			if f.Table == st.Table {
				return f.Shown
			}
		}
	}
	return d.In.Path
}

// StageBytes is how much a load stage reads: a folder table's file for its
// stages, the dataset's bytes for the rest.
func (d *Dataset) StageBytes(st eda.Stage) int64 {
	if d.folder != nil && st.Table != "" {
		for _, f := range d.In.Folder.Tables() {
			if f.Table == st.Table {
				return f.Bytes
			}
		}
	}
	return d.In.Bytes
}

// ReadsData says whether st is a stage that reads a data file: the load
// stage of a file, the load stage of each folder table.
func ReadsData(st eda.Stage) bool {
	if st.Table != "" {
		return st.Name == eda.TableStage(eda.StageLoad, st.Table)
	}
	return st.Name == eda.StageLoad
}

// Inputs are the dataset's files for run.json: a file, or every file of a
// folder (tables, documents, ignored and skipped files).
func (d *Dataset) Inputs() []InputFile {
	if d.In.Folder == nil {
		return []InputFile{{Path: d.In.Name, Kind: InputTable, Format: d.In.Format, Bytes: d.In.Bytes, SHA256: d.In.SHA256}}
	}
	var out []InputFile
	for _, f := range d.In.Folder.Files {
		out = append(out, *f)
	}
	return out
}

// Documents are a folder's documents, nil for a file.
func (d *Dataset) Documents() []*InputFile {
	if d.In.Folder == nil {
		return nil
	}
	return d.In.Folder.Documents()
}

// Close removes the files OpenDataset made.
func (d *Dataset) Close() error {
	var errs []error
	if d.conv != nil {
		errs = append(errs, d.conv.Remove())
	}
	for _, name := range slices.Sorted(maps.Keys(d.convs)) {
		errs = append(errs, d.convs[name].Remove())
	}
	return errors.Join(errs...)
}

// files are the converted columns as data files under dir (a folder
// dataset mounts them beside its table: /data/TABLE.columns/...).
func (c *Converted) files(dir string) []kernel.DataFile {
	entries, err := os.ReadDir(c.Dir)
	if err != nil {
		return nil
	}
	var out []kernel.DataFile
	for _, e := range entries {
		if e.Type().IsRegular() {
			out = append(out, kernel.DataFile{Path: path.Join(dir, e.Name()), Source: filepath.Join(c.Dir, e.Name())})
		}
	}
	return out
}

// AgentFolder is the folder as the model is told of it (its tables with
// their profiles, its documents with their headings); nil for a file.
func (d *Dataset) AgentFolder(l *Loaded) *agent.Folder {
	if d.In.Folder == nil || l == nil {
		return nil
	}
	f := &agent.Folder{Name: d.In.Name, Main: l.Main}
	if l.Relationships != nil {
		f.Relationships = eda.RelationshipsPrompt(l.Relationships)
	}
	for _, t := range l.Tables {
		f.Tables = append(f.Tables, agent.Table{Name: t.Name, Path: t.Path, Profile: t.Profile})
	}
	for _, doc := range d.In.Folder.Documents() {
		f.Documents = append(f.Documents, agent.Document{Path: doc.Path, Bytes: doc.Bytes, Format: doc.Format, Headings: doc.Headings})
	}
	return f
}
