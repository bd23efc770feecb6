package pipeline

import (
	"fmt"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/dataset"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
)

// A dataset's load stages run like any other (runStage); what they found
// is kept here, for the stages and the model that follow.

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
	kept          bool // Main is dataset.Dataset.Main, not chosen by rows
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

// RunLoad runs the stages every analysis of dataset d starts with, each
// with run (which returns the profile a stage displayed, or nil), and
// returns what they found; it stops at the first error. For a folder, the
// tables' stages are followed by the relationships between the tables
// (when there are several) and the stage that makes the main table df.
// A profile that did not come is a *StageError.
func RunLoad(d *dataset.Dataset, ooc *eda.OutOfCore, run func(eda.Stage) (StageResult, error)) (*Loaded, error) {
	l := &Loaded{}
	for _, st := range d.LoadStages(ooc) {
		res, err := run(st)
		if err != nil {
			return l, err
		}
		for _, t := range res.Tables {
			l.Tables = append(l.Tables, LoadedTable{Name: t.Name, Path: d.TablePath(t.Name), Profile: t.Profile})
		}
		switch p := res.Profile; {
		case p == nil:
		case st.Table != "":
			l.Tables = append(l.Tables, LoadedTable{Name: st.Table, Path: d.TablePath(st.Table), Profile: p})
		default:
			l.Profile = p
		}
	}
	if !d.IsFolder() {
		if l.Profile == nil {
			return l, &StageError{Stage: eda.StageProfile, Err: &kernel.ExecError{Name: "NoProfile", Value: "the profile cell produced no profile"}}
		}
		return l, nil
	}
	if len(l.Tables) != len(d.Tables()) {
		return l, &StageError{Stage: eda.StageProfile, Err: &kernel.ExecError{Name: "NoProfile",
			Value: fmt.Sprintf("%d of the folder's %d tables were profiled", len(l.Tables), len(d.Tables()))}}
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
	for _, st := range tablesTogether(l) {
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
func tablesTogether(l *Loaded) []eda.Stage {
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

// AgentFolder is d's folder as the model is told of it (its tables with
// their profiles, its documents with their headings); nil for a file.
func AgentFolder(d *dataset.Dataset, l *Loaded) *agent.Folder {
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
