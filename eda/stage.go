package eda

// Cell is one notebook cell of a stage.
type Cell struct {
	Markdown bool
	Source   string
	// Tags go into the notebook cell's metadata (for example "profile-json"
	// on the cell whose output the Go side reads).
	Tags []string
}

// Stage is a named group of cells; the pipeline runs them in order and the
// notebook tags each cell "stage:NAME".
type Stage struct {
	Name  string // setup, load, profile, distributions, visualization
	Title string // shown as a heading in the notebook and report
	Cells []Cell
}

// Markdown and Code build cells.
func Markdown(src string, tags ...string) Cell { return Cell{Markdown: true, Source: src, Tags: tags} }
func Code(src string, tags ...string) Cell     { return Cell{Source: src, Tags: tags} }
