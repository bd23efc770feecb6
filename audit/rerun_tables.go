package audit

import (
	"fmt"
	"strings"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/runrecord"
)

// TableProfile is a folder's table and its profile.
type TableProfile struct {
	Name    string
	Profile *eda.Profile
}

// notebookTables are the profiles of a folder's tables, as the profile
// cells of their stages (profile:NAME) displayed them, then those of the
// other tables' stage (eda.OtherTables), in order.
func notebookTables(nb *nbformat.Notebook) ([]TableProfile, error) {
	prefix := eda.TableStage(eda.StageProfile, "")
	var out []TableProfile
	for _, c := range nb.Cells {
		stage, _ := c.Stage()
		name, ok := strings.CutPrefix(stage, prefix)
		if stage == eda.StageOtherTables { // past eda.FolderSections tables: a cell each
			name, ok = eda.OtherTable(c.Source)
		}
		if !ok || !c.HasTag(eda.ProfileTag) {
			continue
		}
		for _, o := range c.Outputs {
			if p, ok, err := eda.ProfileFromData(o.Data); ok {
				if err != nil {
					return nil, err
				}
				out = append(out, TableProfile{Name: name, Profile: p})
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no table's profile cell output (%s) in the notebook of a folder's run", nbformat.MimeProfile)
	}
	return out, nil
}

// CompareTables takes a folder's new tables: the tables removed, then each
// kept table's schema changes, in the recorded order, then the tables
// added. Tables are matched by name.
func (r *Rerun) CompareTables(tables []TableProfile) []runrecord.SchemaChange {
	changes := TablesDiff(r.oldTables, tables)
	r.mu.Lock()
	r.schema = changes
	r.mu.Unlock()
	return changes
}

// TablesDiff lists the tables removed and added from old to new, and the
// columns changed in the tables both have.
func TablesDiff(old, new []TableProfile) []runrecord.SchemaChange {
	byName := map[string]*eda.Profile{}
	for _, t := range new {
		byName[t.Name] = t.Profile
	}
	seen := map[string]bool{}
	var out []runrecord.SchemaChange
	for _, t := range old {
		seen[t.Name] = true
		p, ok := byName[t.Name]
		if !ok {
			out = append(out, runrecord.SchemaChange{Table: t.Name, Change: runrecord.TableRemoved, Old: shape(t.Profile)})
			continue
		}
		for _, c := range SchemaDiff(t.Profile, p) {
			c.Table = t.Name
			out = append(out, c)
		}
	}
	for _, t := range new {
		if !seen[t.Name] {
			out = append(out, runrecord.SchemaChange{Table: t.Name, Change: runrecord.TableAdded, New: shape(t.Profile)})
		}
	}
	return out
}

func shape(p *eda.Profile) string {
	return fmt.Sprintf("%d rows × %d columns", p.Rows, p.Columns)
}
