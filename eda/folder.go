package eda

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A folder dataset: every table is read by the loader into tables[NAME]
// (how, into load_infos[NAME]), each table in its own load and profile
// stage; the documents beside them are read with read_doc. df is then the
// main table, the one with the most rows.

// FormatFolder is a folder dataset's format (run.json's data.format).
const FormatFolder = "folder"

// Kinds of a dataset's files, as run.json's inputs and the report name them.
const (
	InputTable    = "table"
	InputDocument = "document"
	InputIgnored  = "ignored"
	// InputSkipped is a table or document that cannot be read, left out
	// because the run was told to (--skip-unreadable).
	InputSkipped = "skipped"
)

// StageMainTable binds df to the main table of a folder dataset.
const StageMainTable = "main-table"

// StageOtherTables reads and profiles a folder's tables past the first
// FolderSections, one cell each (OtherTables).
const StageOtherTables = "other-tables"

// TableStage is the name of a folder table's own stage: "load:payments".
func TableStage(stage, table string) string { return stage + tableStageSep + table }

const tableStageSep = ":"

// FolderTable is a table of a folder dataset as the kernel reads it.
type FolderTable struct {
	Name string // tables[Name]
	Path string // in the folder, with '/'
	// Converted is the folder (in the kernel) a Parquet file was converted
	// into, Converter what converted it, as Source's.
	Converted, Converter string
}

// Folder is a folder dataset as the kernel sees it, and how to read it.
type Folder struct {
	Dir       string // in the kernel, /data
	Tables    []FolderTable
	Documents []string // paths in the folder
	LoadOptions
}

// DocMaxBytes is how much of a document read_doc reads.
const DocMaxBytes = 64 << 20

var (
	readDocPy          = pyFile("read_doc.py")
	loadFolderSourcePy = pyFile("load_folder_source.py")
	loadFolderCallPy   = pyFile("load_folder_call.py")
	otherTablesPy      = pyFile("other_tables.py")
)

const summaryReadDoc = "Documents: read_doc(name, heading) prints a document, or the section under a heading."

// SetupFolder is Setup, with read_doc defined when the folder has
// documents.
func SetupFolder(f Folder) Stage {
	st := Setup()
	if len(f.Documents) == 0 {
		return st
	}
	st.Cells = append(st.Cells,
		Markdown("The folder holds documents beside its tables ("+mdCodes(f.Documents, 10)+"). They are not loaded: "+
			"`read_doc(name)` prints one, `read_doc(name, heading)` only its section under that heading (its subsections "+
			"included), so that a long manual is read where it matters."),
		Plumbing(summaryReadDoc, Code(constants(readDocPy, readDocConstants(f.Dir)...), TagSetup)))
	return st
}

// readDocConstants are read_doc's folder and size bound, for constants.
func readDocConstants(dir string) []string {
	return []string{"DOCS_DIR", pyString(dir), "DOC_MAX_BYTES", underscored(DocMaxBytes)}
}

// LoadFolder defines the loader once for every table of the folder: the
// same functions as a file's load cell, reading each table into
// tables[NAME] (LoadTable).
func LoadFolder(f Folder) Stage {
	intro := fmt.Sprintf("The dataset is the folder `%s`: %s. Each table is read by the loader below into `tables[NAME]` "+
		"(how it was read into `load_infos[NAME]`), in a section of its own, then profiled. A table's name is its path in "+
		"the folder without its extensions; tables whose names would clash keep their extensions.\n\n",
		f.Dir, tableList(f.Tables))
	loaderMd := strings.Replace(LoadFrom(Source{Path: f.Dir + "/TABLE"}).Cells[0].Source, "The loader below reads `TABLE`.", "The loader below reads each table the same way.", 1)
	return Stage{Name: StageLoad, Title: "Load the tables", Cells: []Cell{
		Markdown(intro + loaderMd),
		Plumbing(summaryLoadFolder, Code(loader(constants(loadFolderSourcePy, "DATA_DIR", pyString(f.Dir)), loadFolderCallPy, naValues(f.NAValues)), TagLoadData)),
	}}
}

// profiledPy is what a table's profile computed that the stages after it
// read: they run on the main table, chosen once every table is profiled.
var profiledPy = profiledDict(profiledNames)

// profiledNames are the names of profiledPy, in other_tables.py's PROFILED.
var profiledNames = []string{"rows", "column_info", "value_counts", "profile"} //houserules:literal Python variables of the profile

// profiledDict is the Python dict of the names' values, by name.
func profiledDict(names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = pyString(n) + ": " + n
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

const summaryKeepProfile = "Kept for the main table: what the profile computed that the distributions read."

const summaryLoadFolder = "Loader: reads each table of the folder into tables[NAME] as the text above says; load_infos[NAME] records each decision."

// tableList names the tables and their files, the first 20.
func tableList(tables []FolderTable) string {
	var parts []string
	for i, t := range tables {
		if i == 20 {
			parts = append(parts, fmt.Sprintf("and %d more", len(tables)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("`%s` (%s)", t.Name, mdCode(t.Path)))
	}
	return fmt.Sprintf("%d table(s), %s", len(tables), strings.Join(parts, ", "))
}

// LoadTable reads one table of the folder into tables[NAME].
func LoadTable(t FolderTable) Stage {
	call := "load_into_tables(" + pyString(t.Name) + ", " + pyString(t.Path)
	if t.Converted != "" {
		call += ", converted=" + pyString(t.Converted)
	}
	intro := "Reads " + mdCode(t.Path) + " into `tables[" + pyString(t.Name) + "]`."
	if t.Converted != "" {
		intro += " It is Parquet: " + t.Converter + " converted it before the run into " + mdCode(t.Converted) +
			" (see the loader's notes on Parquet, and set `converted=None` to read it with `pd.read_parquet` where pyarrow is installed)."
	}
	return Stage{Name: TableStage(StageLoad, t.Name), Title: "Load " + t.Name, Table: t.Name, Cells: []Cell{
		Markdown(intro),
		Code(call+")", TagLoadData),
		Markdown("The first rows, as loaded."),
		Code("tables[" + pyString(t.Name) + "].head()"),
	}}
}

// ProfileTable profiles tables[NAME] with the profile stage's cells, df
// and load_info naming the table while they run. The first table's
// section defines the stage's code once, as functions (profileFunctions),
// and explains the profile in full; each table's cells, the first's too,
// call the functions (the same tags: the Go side reads their outputs), and
// the other sections refer to the first.
func ProfileTable(name string, first bool) Stage {
	cells := []Cell{
		Markdown("The profile of `tables[" + pyString(name) + "]`: `df` and `load_info` name it while the cells below run."),
		Code("df, load_info = tables[" + pyString(name) + "], load_infos[" + pyString(name) + "]"),
	}
	if first {
		cells = append(cells, Markdown("The profile's code is defined here once, for every table: each function below runs one "+
			"of the profile's cells as it would run at top level (the names it sets are the notebook's), and each table's "+
			"section calls them on its `df` and `load_info`."), profileFunctions())
	} else {
		cells[0].Source += " Its code is the functions defined in the first table's profile; what each column's figures " +
			"mean, and the alerts' thresholds, are said there too."
	}
	cells = append(cells, profileCalls(first)...)
	cells = append(cells, Plumbing(summaryKeepProfile, Code("profiled["+pyString(name)+"] = "+profiledPy)))
	return Stage{Name: TableStage(StageProfile, name), Title: "Profile of " + name, Table: name, Cells: cells}
}

// OtherTables reads and profiles a folder's tables past the first
// FolderSections (of total) as their own sections would, one cell each,
// without a section each: a folder of a thousand tables would otherwise
// repeat the profile's code a thousand times (a 52 MB notebook). Each cell
// displays its table's profile (tagged ProfileTag, Cell.Table naming the
// table); the last sums them up: rows, columns and alerts per table.
func OtherTables(tables []FolderTable, total int) Stage {
	var profile []string
	for _, c := range ProfileStage().Cells {
		if !c.Markdown && !slices.Contains(c.Tags, SketchTag) {
			profile = append(profile, c.Code())
		}
	}
	cells := []Cell{
		Markdown(fmt.Sprintf("The folder has %d tables: the first %d have a load and a profile section of their own above; "+
			"the other %d are read and profiled here by the same code, one cell each, without a section. "+
			"`load_and_profile(NAME, PATH)` reads a table into `tables[NAME]` as its load section would, then runs the "+
			"profile's cells on it (`df` and `load_info` name it while they run) and displays its profile; the last cell "+
			"sums them up: each table's rows, columns and alerts. Their profiles are not kept beyond the main table's "+
			"choice; `tables[NAME]` and `load_infos[NAME]` are.", total, FolderSections, len(tables))),
		Plumbing(summaryOtherTables, Code(constants(otherTablesPy, "PROFILE_SOURCE", pyString(strings.Join(profile, "\n")),
			"PROFILED", pyList(profiledNames)))),
	}
	names := make([]string, len(tables))
	for i, t := range tables {
		call := loadAndProfile + pyString(t.Name) + ", " + pyString(t.Path)
		if t.Converted != "" {
			call += ", converted=" + pyString(t.Converted)
		}
		cells = append(cells, Cell{Source: call + ")", Tags: []string{ProfileTag}, Table: t.Name})
		names[i] = t.Name
	}
	cells = append(cells, Code("other_tables_summary("+pyList(names)+")"))
	return Stage{Name: StageOtherTables, Title: fmt.Sprintf("The other %d tables", len(tables)), Cells: cells}
}

// loadAndProfile opens a cell of OtherTables: the call, then the table's
// name as a Python string (OtherTable reads it back).
const loadAndProfile = "load_and_profile("

// OtherTable is the table a cell of OtherTables reads and profiles, read
// from its code; false for any other code.
func OtherTable(source string) (string, bool) {
	rest, ok := strings.CutPrefix(source, loadAndProfile)
	if !ok {
		return "", false
	}
	quoted, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return "", false
	}
	name, err := strconv.Unquote(quoted)
	return name, err == nil
}

const summaryOtherTables = "Load and profile: load_and_profile(name, path) reads a table and runs the profile's cells on it; other_tables_summary sums them up."

// MainTable makes the main table (the one with the most rows, rows of
// them, of tables in all; with replayed, the recorded run's main table) df,
// for the stages that follow and the model.
func MainTable(name string, rows, tables int, replayed bool) Stage {
	why := fmt.Sprintf("the table with the most rows (%s, of the folder's %d tables)", thousands(rows), tables)
	switch {
	case replayed:
		why = fmt.Sprintf("the main table of the recorded run this replays (%s rows here)", thousands(rows))
	case tables == 1:
		why = "the folder's only table"
	}
	return Stage{Name: StageMainTable, Title: "The main table: " + name, Cells: []Cell{
		Markdown("**The main table** is `tables[" + pyString(name) + "]`, " + why + ": from here on `df` is it, and `load_info` how it " +
			"was read. The distributions and charts below are of it; every table stays in `tables`."),
		Code("df, load_info = tables[" + pyString(name) + "], load_infos[" + pyString(name) + "]\n" +
			"# What its profile computed, which the stages below read; the other tables' are not needed.\n" +
			"kept = profiled.pop(" + pyString(name) + ")\n" +
			"rows, column_info, value_counts, profile = kept[\"rows\"], kept[\"column_info\"], kept[\"value_counts\"], kept[\"profile\"]\n" +
			"profiled.clear()\n" +
			`print(f"df: {len(df):,} rows × {len(df.columns):,} columns")`),
	}}
}

// mdCodes lists up to n paths as inline code.
func mdCodes(paths []string, n int) string {
	var parts []string
	for i, p := range paths {
		if i == n {
			parts = append(parts, "and "+strconv.Itoa(len(paths)-i)+" more")
			break
		}
		parts = append(parts, mdCode(p))
	}
	return strings.Join(parts, ", ")
}
