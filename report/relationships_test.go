package report

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/nbformat"
)

// diagramSVG stands for the relationships cell's SVG: text as text, and a
// script the report must leave out.
const diagramSVG = `<svg xmlns="http://www.w3.org/2000/svg" width="40pt" height="30pt"><text>orders</text><script>alert(1)</script></svg>`

func relationshipsInput() Input {
	nb := nbformat.New()
	nb.AddCode("relationships_figure = draw_relationships(relationships)", []nbformat.Output{
		nbformat.DisplayData(nbformat.MimeBundle{
			nbformat.MimeSVG:   jstr(diagramSVG),
			nbformat.MimePlain: jstr("Tables and their relationships"),
		}, nil)}, 1, nbformat.StageTag(eda.StageRelationships), eda.RelationshipsChartTag)
	chance := 1e-12
	return Input{Title: "t", Notebook: nb, Run: RunInfo{Stages: []StageInfo{{Name: eda.StageRelationships, Title: "Relationships between tables", Status: StatusOK}}},
		Relationships: &eda.RelationshipProfile{
			Rule: eda.RelationshipRule{MatchShare: 0.9, MinDistinct: 2, Chance: 1e-6},
			Tables: []eda.TableKeys{
				{Name: "orders", Rows: 2000, Columns: 4, Keys: []string{"order_id"}},
				{Name: "customers<script>", Rows: 2500, Columns: 2, Keys: []string{"id"}},
				{Name: "fees", Rows: 150, Columns: 5, Keys: []string{"ID"}, ListColumns: []eda.ListColumn{{Column: "mcc", Elements: "integer"}}},
				{Name: "rates", Rows: 4, Columns: 2},
			},
			Relationships: []eda.Relationship{
				{Link: eda.Link{From: "orders", FromColumn: "customer_id", To: "customers<script>", ToColumn: "id", Distinct: 397, MatchedDistinct: 396, ShareDistinct: 396.0 / 397},
					Rows: 1998, MatchedRows: 1978, ShareRows: 1978.0 / 1998, OrphanRows: 20, OrphanValues: 1, Evidence: eda.EvidenceNames,
					OrphanSample: []eda.TopValue{{Value: `<img src=x onerror=alert(1)>`, Count: 20}}},
				{Link: eda.Link{From: "fees", FromColumn: "mcc", To: "orders", ToColumn: "order_id", List: true, Distinct: 12, MatchedDistinct: 12, ShareDistinct: 1, Chance: &chance},
					Rows: 119, MatchedRows: 119, ShareRows: 1, Evidence: eda.EvidenceValues},
			},
			NotCounted: []eda.Link{{From: "orders", FromColumn: "quantity", To: "orders", ToColumn: "order_id", Reason: "chance: ..."}},
			Alerts: []eda.Alert{{Type: eda.AlertBrokenRelationship, Tables: []string{"orders", "customers<script>"},
				Columns: []string{"customer_id", "id"}, Message: "orders.customer_id → customers.id: 20 of 1,998 rows <b>orphans</b>"}},
		}}
}

// The section shows each table's keys and lists, each relationship with
// what matched and its orphans, the alerts and the diagram; every name and
// value from the data is escaped.
func TestRelationshipsSection(t *testing.T) {
	doc := render(t, relationshipsInput())
	i := strings.Index(doc, `<section id="relationships"`)
	if i < 0 {
		t.Fatalf("no relationships section:\n%s", doc)
	}
	section := doc[i : i+strings.Index(doc[i:], "</section>")]
	for _, want := range []string{
		`<li><a href="#relationships">Tables and relationships</a></li>`,
		"at least 90% of its distinct values (at least 2 of them)", "at most 1e-06 likely",
		`Computed in <a href="#stage-relationships">the relationships stage</a>`,
		`<th scope="row" class="colname">customers&lt;script&gt;</th><td class="num">2,500</td>`,
		`<code>mcc (integer)</code>`, `<span class="muted">no single-column key</span>`,
		`<tr class="broken"><th scope="row" class="colname"><code>orders.customer_id</code></th><td class="colname"><code>customers&lt;script&gt;.id</code></td>`,
		`<td>396 of 397 values (99.7%)</td><td>1,978 of 1,998 rows (99.0%)</td>`,
		`20 rows (1 distinct): &#34;&lt;img src=x onerror=alert(1)&gt;&#34; × 20`,
		`<code>fees.mcc</code> <span class="muted">(list elements)</span>`, `119 of 119 rows with elements (100%)`,
		"1 containment(s) not counted",
		`<span class="badge alert-badge alert-broken-relationship">broken relationship</span> orders.customer_id → customers.id: 20 of 1,998 rows &lt;b&gt;orphans&lt;/b&gt;`,
		`<figure class="chart"><img src="data:image/svg+xml;base64,` +
			base64.StdEncoding.EncodeToString([]byte(`<svg xmlns="http://www.w3.org/2000/svg" width="40pt" height="30pt"><text>orders</text></svg>`)) +
			`" alt="Diagram: Tables and their relationships"></figure>`,
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("report lacks %s", want)
		}
	}
	if strings.Contains(section, "<script>") || strings.Contains(section, "<img src=x") {
		t.Errorf("unescaped markup from the data in:\n%s", section)
	}
	if strings.Index(doc, `<section id="overview"`) > i || strings.Index(doc, `<section id="stage-relationships"`) < i {
		t.Error("the section is not between the data overview and the stages")
	}
}

// One table: no section, and the report is as before.
func TestNoRelationshipsSection(t *testing.T) {
	in := relationshipsInput()
	in.Relationships = nil
	if doc := render(t, in); strings.Contains(doc, `id="relationships"`) || strings.Contains(doc, `href="#relationships"`) {
		t.Error("a relationships section without relationships")
	}
}
