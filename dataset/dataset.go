package dataset

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"

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

// Open makes the checked input in ready for a kernel: it checks the
// sheet or table asked for (an *InputError; a *UsageError for a folder),
// and converts a Parquet file, or a folder's Parquet tables (an
// *InputError when one cannot be read as Parquet). Close removes what it
// made.
func Open(in *Input, sheet, table string, load eda.LoadOptions) (*Dataset, error) {
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
// one stage (eda.OtherTables; see pipeline.RunLoad for what follows them).
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

// Tables are a folder's tables as the kernel reads them; nil for a file.
func (d *Dataset) Tables() []eda.FolderTable {
	if d.folder == nil {
		return nil
	}
	return d.folder.Tables
}

// TablePath is the path of the folder's table name in the kernel's data
// folder, "" for a file or a name that is no table.
func (d *Dataset) TablePath(name string) string {
	if d.folder == nil {
		return ""
	}
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
	if f := d.stageTable(st); f != nil {
		return f.Shown
	}
	return d.In.Path
}

// StageBytes is how much a load stage reads: a folder table's file for its
// stages, the dataset's bytes for the rest.
func (d *Dataset) StageBytes(st eda.Stage) int64 {
	if f := d.stageTable(st); f != nil {
		return f.Bytes
	}
	return d.In.Bytes
}

// stageTable is the folder table whose stage st is, or nil.
func (d *Dataset) stageTable(st eda.Stage) *File {
	if d.folder == nil || st.Table == "" {
		return nil
	}
	for _, f := range d.In.Folder.Tables() {
		if f.Table == st.Table {
			return f
		}
	}
	return nil
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
func (d *Dataset) Inputs() []File {
	if d.In.Folder == nil {
		return []File{{Path: d.In.Name, Kind: InputTable, Format: d.In.Format, Bytes: d.In.Bytes, SHA256: d.In.SHA256}}
	}
	var out []File
	for _, f := range d.In.Folder.Files {
		out = append(out, *f)
	}
	return out
}

// Documents are a folder's documents, nil for a file.
func (d *Dataset) Documents() []*File {
	if d.In.Folder == nil {
		return nil
	}
	return d.In.Folder.Documents()
}

// Close removes the files Open made.
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
