package eda

import "strings"

// Cell is one notebook cell of a stage.
type Cell struct {
	Markdown bool
	Source   string
	// Tags go into the notebook cell's metadata (for example "profile-json"
	// on the cell whose output the Go side reads).
	Tags []string
	// Summary, when set, marks plumbing: code a reader of the notebook need
	// not read to follow the analysis (imports, the loader, the profile's
	// computation). It is the comment on the cell's first line, and the
	// notebook folds the cell's code (Jupyter's source_hidden) so that it
	// opens on results.
	Summary string
	// Table is the folder table whose profile the cell displays, in a
	// stage of many tables (OtherTables); "" elsewhere.
	Table string
}

// Stage is a named group of cells; the pipeline runs them in order and the
// notebook tags each cell "stage:NAME".
type Stage struct {
	Name  string // setup, load, profile, distributions, visualization
	Title string // shown as a heading in the notebook and report
	Cells []Cell
	// Table is the folder table a stage is about (its load or profile);
	// "" for the dataset's own stages.
	Table string
}

// Plumbing is c marked as plumbing, summed up in one line.
func Plumbing(summary string, c Cell) Cell {
	c.Summary = summary
	return c
}

// Code is the cell's code as it runs and as the notebook shows it: the
// summary of plumbing first, as a comment.
func (c Cell) Code() string {
	if c.Summary == "" {
		return c.Source
	}
	return "# " + c.Summary + "\n" + c.Source
}

// Markdown and Code build cells.
func Markdown(src string, tags ...string) Cell { return Cell{Markdown: true, Source: src, Tags: tags} }
func Code(src string, tags ...string) Cell     { return Cell{Source: src, Tags: tags} }

// Generated says whether the stage named name is one eda generates (a
// folder table's own, "load:payments", included): its markdown explains
// how its numbers were computed, which the report folds away below them.
// The model's stages (questions, reflections, the exploration) are not.
func Generated(name string) bool {
	base, _, _ := strings.Cut(name, tableStageSep)
	switch base {
	case StageSetup, StageLoad, StageProfile, StageDistributions, StageVisualization,
		StageRelationships, StageChanges, StageMainTable, StageIndependent, StageOtherTables:
		return true
	}
	return false
}
