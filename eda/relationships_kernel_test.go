package eda

import (
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/evals/dabstep"
	"github.com/analyst-cli/analyst/evals/dabstep/dabsteptest"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/nbformat"
)

// relatedTables is a test cell: DABstep-like tables (payments, merchants,
// fee rules with lists, merchant category codes) with the counter-cases
// real exports produce. The seed fixes every value.
const relatedTables = `rng = np.random.default_rng(7)
n = 5000
merchants = pd.DataFrame({"merchant": ["Tulip_Bakery", "Harbor_Cycles", "Lumen_Books", "Vesper_Bistro", "Granite_Hardware", "Orchid_Yoga"],
                          "mcc": [5462, 5940, 5942, 5812, 5251, 7997],
                          "account_type": ["R", "D", "R", "H", "F", "S"]})
# The same merchants keyed again: payments.merchant refers to both tables.
merchant_profiles = pd.DataFrame({"merchant": merchants["merchant"][::-1].to_numpy(), "since": range(2010, 2016)})
mcc_codes = [5411, 5462, 5812, 5814, 5940, 5942, 5251, 7997, 7011, 5999, 4121, 8299]
# "Unnamed: 0": the index pandas writes into a CSV, 0 to 11.
mccs = pd.DataFrame({"Unnamed: 0": range(12), "mcc": mcc_codes, "description": [f"category {c}" for c in mcc_codes]})
account_types = pd.DataFrame({"code": list("RDHFSO"), "description": ["retail", "digital", "hospitality", "franchise", "school", "other"]})
payments = pd.DataFrame({
    "psp_reference": rng.choice(89_999_999_999, n, replace=False) + 10_000_000_000,
    "merchant": rng.choice(merchants["merchant"].to_numpy(), n),
    "card_scheme": rng.choice(["OrbitPay", "CardStream", "PayWave"], n),
    "year": rng.choice([2022, 2023], n),  # every year is an id of a table numbered from 1
    "hour_of_day": rng.integers(0, 24, n),  # 0 to 23: all ids of mccs' "Unnamed: 0"... and more
    "is_credit": rng.random(n) < 0.7,  # booleans are no key and refer to none
    "eur_amount": np.round(rng.lognormal(4, 1, n), 2),
    "booking_date": pd.Timestamp("2023-01-01") + pd.to_timedelta(rng.integers(0, 365, n), unit="D"),
    "acquirer_country": rng.choice(["NL", "DE", "FR"], n),
})
payments["mcc"] = payments["merchant"].map(dict(zip(merchants["merchant"], merchants["mcc"])))
fees = pd.DataFrame({
    "ID": range(1, 151),
    "card_scheme": rng.choice(["OrbitPay", "CardStream", "PayWave"], 150),
    "account_type": [json.dumps(list(rng.choice(list("RDHFSO"), rng.integers(0, 3), replace=False))) for _ in range(150)],
    "merchant_category_code": [json.dumps([int(c) for c in rng.choice(mcc_codes, rng.integers(0, 4), replace=False)]) for _ in range(150)],
    "aci": [json.dumps(list(rng.choice(list("ABCDEFG"), rng.integers(1, 3), replace=False))) for _ in range(150)],
})
fees.loc[[3, 40], "merchant_category_code"] = json.dumps([5411, 9999])  # 9999 is no merchant category code
customers = pd.DataFrame({"id": range(1, 2501), "name": [f"customer {i}" for i in range(1, 2501)]})
products = pd.DataFrame({"id": range(1, 51), "name": [f"product {i}" for i in range(1, 51)]})
orders = pd.DataFrame({"order_id": range(1, 2001),
                       "customer_id": rng.integers(1, 401, 2000).astype(float),
                       "product_id": rng.integers(1, 51, 2000),
                       "quantity": rng.integers(1, 21, 2000)})  # 1 to 20: all ids of products, by chance
orders.loc[orders.index % 100 == 0, "customer_id"] = 9999  # 20 orders of a customer that is gone
orders.loc[[5, 6], "customer_id"] = np.nan
# Zero-padded ids as text, against the integer ids of customers.
accounts = pd.DataFrame({"customer_id": [f"{i:04d}" for i in range(1, 301)], "balance": rng.normal(100, 20, 300)})
country_rates = pd.DataFrame({"country": ["NL", "NL", "DE", "FR"], "rate": [0.1, 0.2, 0.3, 0.4],  # NL twice: no key
                              "tags": [["eu"], ["eu", "euro"], [], ["eu"]]})  # Python lists in cells: not comparable
empty = pd.DataFrame({"id": pd.Series([], dtype="int64"), "merchant": pd.Series([], dtype=object)})
calendar = pd.DataFrame({"day": pd.date_range("2023-01-01", "2023-12-31", freq="D"), "weekday": 0})
calendar["weekday"] = calendar["day"].dt.day_name()
# Refunds, in pandas' own types: nullable integers (one missing, two unknown payments), a category,
# pandas' text, and dates with a time zone (which a join does not match to the calendar's plain dates).
refunds = pd.DataFrame({
    "psp_reference": pd.array(list(payments["psp_reference"][:57]) + [1, 2, None], dtype="Int64"),
    "merchant": pd.Categorical(payments["merchant"][:60]),
    "reason": pd.array(rng.choice(["fraud", "duplicate"], 60), dtype="string"),
    "day": pd.Timestamp("2023-03-01", tz="UTC") + pd.to_timedelta(rng.integers(0, 10, 60), unit="D"),
})
# A column that refers to its own table's key.
employees = pd.DataFrame({"name": [f"employee {i}" for i in range(30)], "manager": [f"employee {i // 3}" for i in range(30)]})
tables = {"payments": payments, "merchants": merchants, "merchant_profiles": merchant_profiles, "mccs": mccs,
          "account_types": account_types, "fees": fees, "customers": customers, "products": products, "orders": orders,
          "refunds": refunds, "employees": employees, "accounts": accounts, "country_rates": country_rates, "empty": empty, "calendar": calendar}
print(len(tables), "tables")`

var relatedTableNames = []string{"payments", "merchants", "merchant_profiles", "mccs", "account_types", "fees",
	"customers", "products", "orders", "refunds", "employees", "accounts", "country_rates", "empty", "calendar"}

// relationshipsOf finds the relationships among a stage's outputs.
func relationshipsOf(t testing.TB, r stageRun) *RelationshipProfile {
	t.Helper()
	for _, ex := range r.execs {
		for _, o := range ex.Outputs {
			p, ok, err := RelationshipsFromData(o.Data)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				return p
			}
		}
	}
	t.Fatal("no output with the relationships' mime type")
	return nil
}

// linkName is "from.column → to.column", with [] after a column of lists.
func linkName(l Link) string {
	list := ""
	if l.List {
		list = "[]"
	}
	return l.From + "." + l.FromColumn + list + " → " + l.To + "." + l.ToColumn
}

func (p *RelationshipProfile) find(t *testing.T, name string) Relationship {
	t.Helper()
	for _, r := range p.Relationships {
		if linkName(r.Link) == name {
			return r
		}
	}
	t.Fatalf("no relationship %s", name)
	return Relationship{}
}

func (p *RelationshipProfile) table(t *testing.T, name string) TableKeys {
	t.Helper()
	for _, tk := range p.Tables {
		if tk.Name == name {
			return tk
		}
	}
	t.Fatalf("no table %s", name)
	return TableKeys{}
}

// The relationships among DABstep-like tables: the links a person would
// draw are found, with their orphans; booleans, years, hours, quantities,
// dates, zero-padded text ids, tables without a key and an empty table
// make none.
//
// The notebook of those cells then re-runs in Jupyter (nbconvert --execute,
// ipykernel) to the same printed text, JSON summary line and diagram, byte
// for byte.
func TestRelationshipsFound(t *testing.T) {
	k := kerneltest.Start(t, nil)
	nb := nbformat.New()
	inNotebook(t, k, nb, Setup())
	inNotebook(t, k, nb, Stage{Name: "tables", Cells: []Cell{Code(relatedTables)}})
	r := inNotebook(t, k, nb, Relationships(relatedTableNames))
	p := relationshipsOf(t, r)

	var names []string
	for _, rel := range p.Relationships {
		names = append(names, linkName(rel.Link))
	}
	want := []string{
		"payments.merchant → merchants.merchant",
		"payments.merchant → merchant_profiles.merchant",
		"payments.mcc → mccs.mcc",
		"merchants.merchant → merchant_profiles.merchant",
		"merchants.mcc → mccs.mcc",
		"merchants.account_type → account_types.code",
		"merchant_profiles.merchant → merchants.merchant",
		"fees.account_type[] → account_types.code",
		"fees.merchant_category_code[] → mccs.mcc",
		"orders.customer_id → customers.id",
		"orders.product_id → products.id",
		"refunds.psp_reference → payments.psp_reference",
		"refunds.merchant → merchants.merchant",
		"refunds.merchant → merchant_profiles.merchant",
		"employees.manager → employees.name",
	}
	if !slices.Equal(names, want) {
		t.Errorf("relationships:\n%s\nwant:\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}

	// Orphans: 20 orders of customer 9999 (2 orders have no customer);
	// two fee rules name MCC 9999.
	o := p.find(t, "orders.customer_id → customers.id")
	if o.Rows != 1998 || o.OrphanRows != 20 || o.MatchedRows != 1978 || o.OrphanValues != 1 || o.MatchedDistinct != o.Distinct-1 ||
		len(o.OrphanSample) != 1 || o.OrphanSample[0].Value != "9999" || o.OrphanSample[0].Count != 20 ||
		o.Evidence != EvidenceNames {
		t.Errorf("orders → customers: %+v", o)
	}
	f := p.find(t, "fees.merchant_category_code[] → mccs.mcc")
	if f.OrphanRows != 2 || f.OrphanValues != 1 || f.OrphanSample[0] != (TopValue{Value: "9999", Count: 2, Share: 2 / float64(f.Rows)}) ||
		f.MatchedDistinct != f.Distinct-1 || f.Evidence != EvidenceValues {
		t.Errorf("fees → mccs: %+v", f)
	}
	if m := p.find(t, "payments.merchant → merchants.merchant"); m.Broken() || m.ShareRows != 1 || m.Rows != 5000 ||
		m.Evidence != EvidenceValuesAndNames || m.Chance != nil {
		t.Errorf("payments → merchants: %+v", m)
	}
	if m := p.find(t, "payments.mcc → mccs.mcc"); m.Chance == nil || *m.Chance > chanceBound {
		t.Errorf("payments.mcc → mccs.mcc: chance %v, want a bound under %g", m.Chance, chanceBound)
	}
	if r := p.find(t, "refunds.psp_reference → payments.psp_reference"); r.Rows != 59 || r.OrphanRows != 2 ||
		r.Evidence != EvidenceValuesAndNames || len(r.OrphanSample) != 2 || r.OrphanSample[0].Value != "1" {
		t.Errorf("refunds → payments: %+v", r)
	}

	// Not counted: numbers that are keys by chance and do not say so.
	var coincidences []string
	for _, c := range p.NotCounted {
		coincidences = append(coincidences, linkName(c)+" ("+strings.SplitN(c.Reason, ":", 2)[0]+")")
	}
	for _, c := range []string{"payments.year → customers.id (chance)", "payments.hour_of_day → customers.id (chance)",
		"orders.quantity → products.id (chance)", "payments.booking_date → calendar.day (chance)",
		"mccs.Unnamed: 0 → fees.ID (chance)", "payments.mcc → merchants.mcc (implied)"} {
		if !slices.Contains(coincidences, c) {
			t.Errorf("%s is not among the coincidences %q", c, coincidences)
		}
	}
	for _, name := range names {
		for _, never := range []string{"is_credit", "year", "hour_of_day", "quantity", "booking_date", "accounts.",
			"country_rates", "empty", "Unnamed", "eur_amount", "acquirer_country", "refunds.day", "refunds.reason"} {
			if strings.Contains(name, never) {
				t.Errorf("relationship %s: %s must not make one", name, never)
			}
		}
	}

	// Keys, lists and what was not compared.
	wantKeys := map[string][]string{"payments": {"psp_reference"}, "merchants": {"merchant", "mcc"},
		"fees": {"ID"}, "orders": {"order_id"}, "accounts": {"customer_id"}, "country_rates": nil, "empty": nil,
		"calendar": {"day"}}
	for name, keys := range wantKeys {
		if got := p.table(t, name).Keys; !slices.Equal(got, keys) {
			t.Errorf("%s keys %q, want %q", name, got, keys)
		}
	}
	fees := p.table(t, "fees")
	if got := fmt.Sprint(fees.ListColumns); got != "[{account_type text} {merchant_category_code integer} {aci text}]" {
		t.Errorf("fees' columns of lists: %s", got)
	}
	if got := fmt.Sprint(p.table(t, "payments").NotCompared); got != "[{is_credit booleans} {eur_amount fractional numbers}]" {
		t.Errorf("payments not compared: %s", got)
	}
	if got := fmt.Sprint(p.table(t, "country_rates").NotCompared); got != "[{rate fractional numbers} {tags values that are not comparable (lists or objects)}]" {
		t.Errorf("country_rates not compared: %s", got)
	}
	if e := p.table(t, "empty"); e.Rows != 0 || e.Columns != 2 {
		t.Errorf("empty table: %+v", e)
	}

	// Alerts: each broken relationship, and the zero-padded text ids.
	var alerts []string
	for _, a := range p.Alerts {
		alerts = append(alerts, a.Type+": "+strings.Join(a.Tables, ",")+": "+strings.Join(a.Columns, ","))
	}
	wantAlerts := []string{
		"broken_relationship: fees,mccs: merchant_category_code,mcc",
		"broken_relationship: orders,customers: customer_id,id",
		"broken_relationship: refunds,payments: psp_reference,psp_reference",
		"type_mismatch: accounts,customers: customer_id,id",
	}
	if !slices.Equal(alerts, wantAlerts) {
		t.Errorf("alerts %q, want %q", alerts, wantAlerts)
	}
	for _, a := range p.Alerts {
		if a.Type == AlertBrokenRelationship && a.Tables[0] == "orders" &&
			!strings.Contains(a.Message, "20 of 1,998 rows (1.0%) have a value that is not a key of customers") {
			t.Errorf("broken relationship message: %s", a.Message)
		}
		if a.Type == AlertTypeMismatch && !strings.Contains(a.Message, `tables['accounts']['customer_id'].astype("int64")`) {
			t.Errorf("type mismatch message: %s", a.Message)
		}
	}

	// The printed text says the same.
	text := r.execs[0].Stdout()
	t.Logf("the relationships cell printed:\n%s", text)
	for _, line := range []string{
		"1,978 of 1,998 rows with a value (99.0%) match; 20 orphan rows, such as '9999' (20). Evidence: names.",
		"- fees.merchant_category_code (the elements of its lists) → mccs.mcc:",
		"- empty: 0 rows × 2 columns; no single-column key",
		"- payments: booleans: is_credit; fractional numbers: eur_amount",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("printed text lacks %q:\n%s", line, text)
		}
	}
	checkDiagram(t, r, p)

	// Ruling columns out on samples of 100 rows gives what reading every
	// column whole gives.
	var same struct {
		Same          bool
		Relationships int
	}
	pyValue(t, k, `frames = {name: tables[name] for name in RELATIONSHIP_TABLES}
SAMPLE_ROWS, kept = 100, SAMPLE_ROWS
sampled = find_relationships(frames)
SAMPLE_ROWS = 10**15
whole = find_relationships(frames)
SAMPLE_ROWS = kept
print(json.dumps({"Same": sampled == whole, "Relationships": len(sampled["relationships"])}))`, &same)
	if !same.Same || same.Relationships != len(want) {
		t.Errorf("sampled first and read whole differ (%+v)", same)
	}

	// A table that is not loaded is named.
	bad := runStage(t, k, Relationships([]string{"payments", "chargebacks"}))
	if bad.err == nil || bad.err.Error == nil || bad.err.Error.Name != "KeyError" ||
		!strings.Contains(bad.err.Error.Value, "tables has no 'chargebacks': load each table into tables[name] first") {
		t.Errorf("a table not loaded: %+v", bad.err)
	}
	reexecutes(t, nb)
}

// inNotebook runs st's code cells like mustRun and adds every cell, with its
// outputs, to nb.
func inNotebook(t *testing.T, k *kernel.Kernel, nb *nbformat.Notebook, st Stage) stageRun {
	t.Helper()
	r := mustRun(t, k, st)
	i := 0
	for _, c := range st.Cells {
		if c.Markdown {
			nb.AddMarkdown(c.Source, c.Tags...)
			continue
		}
		r.execs[i].AddToNotebook(nb, c.Tags...)
		i++
	}
	return r
}

// reexecutes re-runs nb in Jupyter and compares every output, the
// diagram's SVG text among them.
func reexecutes(t *testing.T, nb *nbformat.Notebook) {
	t.Helper()
	share := t.TempDir()
	if err := nbformat.WriteFile(filepath.Join(share, "relationships.ipynb"), nb); err != nil {
		t.Fatal(err)
	}
	theirs := kerneltest.Nbconvert(t, share, "relationships.ipynb")
	if len(theirs.Cells) != len(nb.Cells) {
		t.Fatalf("re-run has %d cells, ours %d", len(theirs.Cells), len(nb.Cells))
	}
	diagrams := 0
	for i, ours := range nb.Cells {
		for _, d := range nbformat.CompareOutputs(ours.Outputs, theirs.Cells[i].Outputs) {
			t.Errorf("cell %d %v: %s", i, ours.Metadata.Tags, d)
		}
		if !ours.HasTag(RelationshipsChartTag) {
			continue
		}
		diagrams++
		if a, b := diagramSVG(t, ours.Outputs), diagramSVG(t, theirs.Cells[i].Outputs); a != b {
			t.Errorf("the diagram's SVG differs in Jupyter (%d vs %d bytes)", len(a), len(b))
		}
	}
	if diagrams != 1 {
		t.Errorf("%d diagrams compared, want 1", diagrams)
	}
}

// diagramSVG is the SVG among outs, which must be the only output.
func diagramSVG(t *testing.T, outs []nbformat.Output) string {
	t.Helper()
	if len(outs) != 1 {
		t.Fatalf("the chart cell has %d outputs, want the diagram", len(outs))
	}
	svg, ok := outs[0].DataString(nbformat.MimeSVG)
	if !ok {
		t.Fatalf("the chart cell's output has no SVG, only %v", slices.Sorted(maps.Keys(outs[0].Data)))
	}
	return svg
}

// checkDiagram checks the diagram's SVG: a box per drawn table (its name
// in a text), an arrow per relationship between drawn tables with its
// label, dashed and red when broken; and its title.
func checkDiagram(t *testing.T, r stageRun, p *RelationshipProfile) {
	t.Helper()
	outs := r.execs[len(r.execs)-1].Outputs
	d := parseDiagram(t, diagramSVG(t, outs))
	title, _ := outs[0].DataString(nbformat.MimePlain)
	if !slices.Contains(d.texts, title) || !strings.HasPrefix(title, "Tables and their relationships") {
		t.Errorf("title %q, not among the drawing's texts", title)
	}
	drawn := map[string]bool{}
	for _, tk := range p.Tables {
		drawn[tk.Name] = slices.Contains(d.texts, tk.Name)
	}
	if n := len(p.Tables); n > diagramTables {
		if !strings.Contains(title, fmt.Sprintf("(%d of %d tables)", diagramTables, n)) {
			t.Errorf("title %q does not say how many tables are drawn", title)
		}
	}
	var names []string
	for name, ok := range drawn {
		if ok {
			names = append(names, name)
		}
	}
	if len(names) != min(len(p.Tables), diagramTables) || drawn["calendar"] || drawn["empty"] {
		t.Errorf("boxes %q: want %d, the last unlinked tables (empty, calendar) left out", names, min(len(p.Tables), diagramTables))
	}
	arrows, dashed := 0, 0
	for _, rel := range p.Relationships {
		if !drawn[rel.From] || !drawn[rel.To] {
			continue
		}
		arrows++
		if rel.Broken() {
			dashed++
		}
		list := ""
		if rel.List {
			list = "[]"
		}
		label := fmt.Sprintf("%s%s → %s", rel.FromColumn, list, rel.ToColumn)
		if !slices.Contains(d.texts, label) || !slices.Contains(d.texts, fmt.Sprintf("%.1f%% of rows match", 100*rel.ShareRows)) {
			t.Errorf("no label %q with its share among the texts %q", label, d.texts)
		}
	}
	if d.arrows != arrows || d.dashed != dashed {
		t.Errorf("%d arrows, %d of them dashed red; want %d, %d", d.arrows, d.dashed, arrows, dashed)
	}
}

type diagram struct {
	texts          []string // each <text>'s, a line of a box, a label or the title
	arrows, dashed int      // the unfilled lines drawn in the arrows' colours; those dashed in red
}

// parseDiagram reads the SVG Matplotlib wrote with text as text.
func parseDiagram(t *testing.T, svg string) diagram {
	t.Helper()
	var d diagram
	dec := xml.NewDecoder(strings.NewReader(svg))
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return d
		}
		if err != nil {
			t.Fatalf("reading the diagram's SVG: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			inText = e.Name.Local == "text"
			if e.Name.Local != "path" {
				continue
			}
			for _, a := range e.Attr {
				if a.Name.Local != "style" || !strings.Contains(a.Value, "fill: none") {
					continue
				}
				if strings.Contains(a.Value, "stroke: #3b5b92") || strings.Contains(a.Value, "stroke: #c0392b") {
					d.arrows++
				}
				if strings.Contains(a.Value, "stroke: #c0392b") && strings.Contains(a.Value, "stroke-dasharray") {
					d.dashed++
				}
			}
		case xml.CharData:
			if inText {
				d.texts = append(d.texts, string(e))
			}
		case xml.EndElement:
			inText = false
		}
	}
}

// The DABstep-shaped fixture's tables, each read by the loader (nested
// JSON flattened, lists kept as JSON text): the links a person draws from
// its files are found, and none between its small integer columns.
func TestRelationshipsDABstepFixture(t *testing.T) {
	dir := t.TempDir()
	if _, err := dabsteptest.Write(dir, dabsteptest.Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	k := kerneltest.Start(t, func(o *kernel.Options) { o.Data = filepath.Join(dir, dabstep.ContextDir) })
	mustRun(t, k, Setup())
	mustRun(t, k, Stage{Name: "tables", Cells: []Cell{Code("tables = {}")}})
	files := []string{"payments.csv", "fees.json", "merchant_data.json", "merchant_category_codes.csv", "acquirer_countries.csv"}
	var names []string
	for _, f := range files {
		name := strings.TrimSuffix(f, filepath.Ext(f))
		names = append(names, name)
		mustRun(t, k, LoadFrom(Source{Path: "/data/" + f}))
		mustRun(t, k, Stage{Name: "keep", Cells: []Cell{Code(fmt.Sprintf("tables[%s] = df", pyString(name)))}})
	}
	r := mustRun(t, k, Relationships(names))
	p := relationshipsOf(t, r)
	t.Logf("the relationships cell printed:\n%s", r.execs[0].Stdout())

	var got []string
	for _, rel := range p.Relationships {
		got = append(got, fmt.Sprintf("%s (%.0f%% of rows)", linkName(rel.Link), 100*rel.ShareRows))
	}
	for _, want := range []string{
		"payments.merchant → merchant_data.merchant (100% of rows)",
		"fees.merchant_category_code[] → merchant_category_codes.mcc (100% of rows)",
		"merchant_data.acquirer[] → acquirer_countries.acquirer (100% of rows)",
		"merchant_data.merchant_category_code → merchant_category_codes.mcc (100% of rows)",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("no relationship %s among:\n%s", want, strings.Join(got, "\n"))
		}
	}
	for _, g := range got {
		// Hours, minutes, days, card bins, rates and pandas' index
		// columns are small integers in the range of the fee rules' IDs.
		for _, never := range []string{"hour_of_day", "minute_of_hour", "day_of_year", "year", "card_bin", "rate",
			"Unnamed", "is_credit", "intracountry", "psp_reference"} {
			if strings.Contains(g, "."+never) {
				t.Errorf("relationship %s: %s must not make one", g, never)
			}
		}
	}
	// acquirer_countries.country_code repeats NL: no key, so
	// payments.acquirer_country refers to nothing.
	if ac := p.table(t, "acquirer_countries"); slices.Contains(ac.Keys, "country_code") || !slices.Contains(ac.Keys, "acquirer") {
		t.Errorf("acquirer_countries keys %q", ac.Keys)
	}
	var lists []string
	for _, c := range p.table(t, "fees").ListColumns {
		lists = append(lists, c.Column+" "+c.Elements)
	}
	if !slices.Equal(lists, []string{"account_type text", "merchant_category_code integer", "aci text"}) {
		t.Errorf("fees' columns of lists: %q", lists)
	}
	prompt := RelationshipsPrompt(p)
	for _, want := range []string{`tables["payments"]["merchant"] → tables["merchant_data"]["merchant"]: 100% of 3000 rows match`,
		`tables["fees"]["merchant_category_code"] (the elements of its lists) → tables["merchant_category_codes"]["mcc"]`,
		`"fees": "account_type" (text), "merchant_category_code" (integer), "aci" (text)`, "json.loads"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the prompt does not say %s:\n%s", want, prompt)
		}
	}
}
