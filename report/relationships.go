package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/internal/clip"
	"github.com/analyst-cli/analyst/nbformat"
)

//go:embed relationships.html.tmpl
var relationshipsTemplateText string

// relationshipsView is the "Tables and relationships" section: the
// profile of the tables together (eda.Relationships), with its diagram.
type relationshipsView struct {
	Rule      string
	Tables    []tableKeysView
	Links     []linkView
	NotCount  int // containments not counted (implied or chance), said in a line
	Alerts    []alertView
	Picture   template.HTML // the diagram's <figure>, "" when the notebook has none
	StageID   string        // the stage whose cells compute it, to link to
	StageName string
}

type tableKeysView struct {
	Name, Rows, Columns string
	Keys, Lists         []string
}

type linkView struct {
	From, To, Values, Rows, Evidence string
	List, Broken                     bool
	Orphans                          string // "" when none
}

// maxOrphanSamples is how many orphan values a relationship lists.
const maxOrphanSamples = 5

// buildRelationships is the section for rel, its diagram taken from the
// notebook's cell tagged eda.RelationshipsChartTag.
func buildRelationships(rel *eda.RelationshipProfile, nb *nbformat.Notebook) *relationshipsView {
	if rel == nil {
		return nil
	}
	v := &relationshipsView{Rule: relationshipRule(rel.Rule), NotCount: len(rel.NotCounted),
		StageName: eda.StageRelationships}
	for _, t := range rel.Tables {
		tv := tableKeysView{Name: t.Name, Rows: groupDigits(int64(t.Rows)), Columns: groupDigits(int64(t.Columns)), Keys: t.Keys}
		for _, c := range t.ListColumns {
			tv.Lists = append(tv.Lists, c.Column+" ("+c.Elements+")")
		}
		v.Tables = append(v.Tables, tv)
	}
	for _, r := range rel.Relationships {
		v.Links = append(v.Links, linkViewOf(r))
	}
	v.Alerts = alertLines(rel.Alerts)
	v.Picture = diagramFigure(nb)
	return v
}

func linkViewOf(r eda.Relationship) linkView {
	what, rows := "values", "rows"
	if r.List {
		what, rows = "elements", "rows with elements"
	}
	lv := linkView{From: r.From + "." + r.FromColumn, To: r.To + "." + r.ToColumn, List: r.List, Broken: r.Broken(),
		Values:   fmt.Sprintf("%s of %s %s (%s)", groupDigits(int64(r.MatchedDistinct)), groupDigits(int64(r.Distinct)), what, percent(r.ShareDistinct)),
		Rows:     fmt.Sprintf("%s of %s %s (%s)", groupDigits(int64(r.MatchedRows)), groupDigits(int64(r.Rows)), rows, percent(r.ShareRows)),
		Evidence: r.Evidence}
	if r.Broken() {
		var sample []string
		for i, o := range r.OrphanSample {
			if i == maxOrphanSamples {
				break
			}
			sample = append(sample, fmt.Sprintf("%q × %s", clip.Runes(o.Value, 40), groupDigits(int64(o.Count))))
		}
		lv.Orphans = fmt.Sprintf("%s rows (%s distinct): %s", groupDigits(int64(r.OrphanRows)),
			groupDigits(int64(r.OrphanValues)), strings.Join(sample, ", "))
	}
	return lv
}

// relationshipRule is the rule in one paragraph, with the thresholds the
// relationships were found with.
func relationshipRule(r eda.RelationshipRule) string {
	return fmt.Sprintf("A key is a column whose values are all different and never missing. A column refers to another "+
		"table's key when at least %s of its distinct values (at least %d of them) are keys there, compared as a join "+
		"compares them; for numbers, landing on that many keys by chance must be at most %g likely (a Chernoff bound), "+
		"or the column's name must name the key or its table. A column of lists refers by its elements. Orphans are "+
		"the rows whose value is not a key. The stage's notes say the rule in full.",
		strconv.FormatFloat(100*r.MatchShare, 'f', -1, 64)+"%", r.MinDistinct, r.Chance)
}

// diagramFigure is the diagram's image from the notebook (SVG; a PNG in
// notebooks written before it was), as a <figure>.
func diagramFigure(nb *nbformat.Notebook) template.HTML {
	if nb == nil {
		return ""
	}
	for _, c := range nb.Cells {
		if !c.HasTag(eda.RelationshipsChartTag) {
			continue
		}
		for _, o := range c.Outputs {
			if img, ok := outputImage(o, diagramAlt(o)); ok {
				return template.HTML(`<figure class="chart">` + img + "</figure>")
			}
		}
	}
	return ""
}

// diagramAlt is the diagram's alternative text: its title (the output's
// text), or its chart description's.
func diagramAlt(o nbformat.Output) string {
	if desc, ok := o.Data[nbformat.MimeChart]; ok {
		return chartAlt(desc)
	}
	title, _ := o.DataString(nbformat.MimePlain)
	return "Diagram: " + strings.TrimSpace(title)
}

// stageID is the id of the section of the stage named name, "" for none.
func stageID(stages []*stageView, name string) string {
	for _, s := range stages {
		if s.Name == name {
			return s.ID
		}
	}
	return ""
}
