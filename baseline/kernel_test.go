package baseline

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/examples"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/nbformat"
)

// The comparison end to end in a real kernel, on generated sales data: the
// profile's sketch, checked by ParseSketch, compared by the What changed
// stage with another run's, the changes read back by ParseChanges.

const rows = 100_000

// salesFiles writes the generated sales (seed 1), another sample of the
// same distribution (seed 2) and a changed export (seed 3) into a folder.
func salesFiles(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, seed uint64, ch examples.SalesChange) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		n := rows
		if strings.HasPrefix(name, "small") {
			n = 500
		}
		if err := examples.WriteSalesChanged(f, n, seed, ch); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	write("base.csv", 1, examples.SalesChange{})
	write("same.csv", 2, examples.SalesChange{})
	write("small-a.csv", 4, examples.SalesChange{})
	write("small-b.csv", 5, examples.SalesChange{})
	write("changed.csv", 3, examples.SalesChange{PriceFactor: 1.3, NewRegion: "Islands", MissingFactor: 2, DropColumn: "channel",
		UnitsAsText: true, RenameFrom: "product", RenameTo: "item", GapMonth: "2024-03"})
	return dir
}

// session is one kernel with the data folder mounted at /data.
type session struct {
	t *testing.T
	k *kernel.Kernel
}

func newSession(t *testing.T, dir string) *session {
	k := kerneltest.Start(t, func(o *kernel.Options) { o.Data = dir })
	s := &session{t: t, k: k}
	s.run(eda.Setup())
	return s
}

// run runs a stage's code cells and returns their outputs, failing the
// test on a cell that does not end ok.
func (s *session) run(st eda.Stage) []nbformat.Output {
	s.t.Helper()
	var outs []nbformat.Output
	for _, c := range st.Cells {
		if c.Markdown {
			continue
		}
		ex, err := s.k.Execute(context.Background(), c.Source, kernel.ExecOptions{Timeout: 5 * time.Minute})
		if err != nil || ex.Status != kernel.StatusOK {
			s.t.Fatalf("stage %s, cell %v: %v %v %s", st.Name, c.Tags, err, ex.Error, ex.Stderr())
		}
		if strings.Contains(ex.Stderr(), "Warning") {
			s.t.Errorf("stage %s, cell %v wrote a warning:\n%s", st.Name, c.Tags, ex.Stderr())
		}
		outs = append(outs, ex.Outputs...)
	}
	return outs
}

// sketch loads name and profiles it (in memory, or out of core with small
// chunks), and returns the sketch the profile kept.
func (s *session) sketch(name string, outOfCore bool) *Sketch {
	s.t.Helper()
	stages := []eda.Stage{eda.Load("/data/" + name), eda.ProfileStage()}
	if outOfCore {
		stages = []eda.Stage{eda.LoadOutOfCore(eda.Source{Path: "/data/" + name}, eda.OutOfCore{ChunkRows: 7_000, SampleRows: 20_000}),
			eda.ProfileOutOfCore()}
	}
	var raw []byte
	for _, st := range stages {
		if b, ok := find(s.run(st), eda.MimeSketch); ok {
			raw = b
		}
	}
	sk, err := ParseSketch(raw)
	if err != nil {
		s.t.Fatalf("the sketch of %s: %v", name, err)
	}
	return sk
}

// compare runs the What changed stage against base and returns the
// changes and the stage's outputs.
func (s *session) compare(base *Sketch, rules eda.ChangeRules) (*Changes, []nbformat.Output) {
	s.t.Helper()
	outs := s.run(eda.Changes(eda.CompareInput{Manifest: "base.run.json", Data: "base.csv", SHA256: "00", Sketch: base.JSON(), Rules: rules}))
	raw, ok := find(outs, eda.MimeChanges)
	if !ok {
		s.t.Fatal("the changes cell showed no changes")
	}
	c, err := ParseChanges(raw)
	if err != nil {
		s.t.Fatal(err)
	}
	return c, outs
}

func find(outs []nbformat.Output, mime string) ([]byte, bool) {
	for _, o := range outs {
		if raw, ok := o.Data[mime]; ok {
			return raw, true
		}
	}
	return nil, false
}

// judged lists the changes at warn and fail as "level check column".
func judged(c *Changes) []string {
	var out []string
	for _, ch := range c.Changes {
		if ch.Level != eda.LevelInfo {
			col := ""
			if ch.Column != nil {
				col = *ch.Column
			}
			out = append(out, ch.Level+" "+ch.Check+" "+col)
		}
	}
	slices.Sort(out)
	return out
}

func TestCompareSales(t *testing.T) {
	dir := salesFiles(t)
	s := newSession(t, dir)
	base := s.sketch("base.csv", false)

	// Two samples of one distribution, 100,000 rows each: nothing at warn.
	s.sketch("same.csv", false)
	same, outs := s.compare(base, eda.DefaultChangeRules())
	if got := judged(same); len(got) > 0 || same.Worst != eda.LevelInfo {
		t.Errorf("two samples of one distribution: worst %s, changes %v; want none at warn or fail", same.Worst, got)
	}
	for _, ch := range same.Changes {
		if ch.Check == eda.CheckNumericShift && *ch.Value >= 0.02 {
			t.Errorf("no drift, yet %s's W/σ is %g", *ch.Column, *ch.Value)
		}
	}
	// The same inputs, the same outputs (the cells' sources are the same by construction).
	_, again := s.compare(base, eda.DefaultChangeRules())
	if a, b := marshal(t, outs), marshal(t, again); a != b {
		t.Errorf("the comparison's outputs differ between two runs on the same inputs")
	}

	// Out of core, the sketch comes from the profile's pass chunk by chunk:
	// it compares with the in-memory sketch of the same file as the same data.
	chunked := s.sketch("base.csv", true)
	for i, c := range chunked.Columns {
		m := base.Columns[i]
		if c.Name != m.Name || c.Kind != m.Kind || c.Missing != m.Missing ||
			(c.Numbers != nil) != (m.Numbers != nil) || (c.Values != nil) != (m.Values != nil) || (c.Dates != nil) != (m.Dates != nil) {
			t.Errorf("column %d: out of core %+v, in memory %+v", i, c, m)
		}
	}
	s.sketch("base.csv", false) // this run's sketch: in memory; the baseline's: out of core
	oocChanges, _ := s.compare(chunked, eda.DefaultChangeRules())
	for _, ch := range oocChanges.Changes {
		if ch.Level != eda.LevelInfo || (ch.Value != nil && ch.Check == eda.CheckNumericShift && *ch.Value > 0.002) {
			t.Errorf("out of core against in memory, one file: %s %v %s", ch.Level, ch.Check, ch.Text)
		}
	}

	// Small samples (500 rows) of one distribution: the tests' significance
	// keeps their noise below warn too.
	small := s.sketch("small-a.csv", false)
	s.sketch("small-b.csv", false)
	if c, _ := s.compare(small, eda.DefaultChangeRules()); len(judged(c)) > 0 {
		t.Errorf("two samples of 500 rows of one distribution: %v", judged(c))
	}

	// Each kind of change raises what it should.
	s.sketch("changed.csv", false)
	changed, outs := s.compare(base, eda.DefaultChangeRules())
	want := []string{"fail removed channel", "fail type units", "warn category-shift region", "warn gaps date", "warn missing discount",
		"warn new-category region", "warn numeric-shift revenue", "warn numeric-shift unit_price", "warn renamed item"}
	if got := judged(changed); !slices.Equal(got, want) {
		t.Errorf("changed export: changes at warn and fail\n got %q\nwant %q", got, want)
	}
	if changed.Worst != eda.LevelFail {
		t.Errorf("worst %s, want fail", changed.Worst)
	}
	var texts []string
	for _, ch := range changed.Changes {
		texts = append(texts, ch.Text)
	}
	text := strings.Join(texts, "\n")
	for _, w := range []string{`new value 'Islands'`, `renamed from 'product'`, `31 day(s) without rows inside the new range (2024-03-01`,
		`missing 3.1% → 6.03%`} {
		if !strings.Contains(text, w) {
			t.Errorf("the changes do not say %q:\n%s", w, text)
		}
	}
	charts := chartsOf(outs)
	if len(charts) != 1 || !strings.Contains(charts[0], `"title": "Baseline and new data: the columns that shifted"`) ||
		!strings.Contains(charts[0], `"label": "baseline"`) || !strings.Contains(charts[0], `"title": "unit_price"`) {
		t.Errorf("overlay charts: %d, %v", len(charts), charts)
	}

	// A column's own rules: unit_price may shift by up to 0.5 σ, channel may go.
	rules := eda.DefaultChangeRules()
	half := 0.5
	rules.Columns = map[string]eda.ColumnRules{"unit_price": {Thresholds: map[string]eda.ChangeRule{eda.CheckNumericShift: {Warn: &half}}},
		"channel": {Severities: map[string]string{eda.ChangeRemoved: eda.LevelInfo}}}
	ruled, _ := s.compare(base, rules)
	if got := judged(ruled); slices.Contains(got, "warn numeric-shift unit_price") || slices.Contains(got, "fail removed channel") {
		t.Errorf("per-column rules not applied: %v", got)
	}
}

func marshal(t *testing.T, outs []nbformat.Output) string {
	outs = slices.Clone(outs)
	for i := range outs {
		outs[i].ExecutionCount = nil
	}
	b, err := json.MarshalIndent(outs, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func chartsOf(outs []nbformat.Output) []string {
	var out []string
	for _, o := range outs {
		if raw, ok := o.Data[nbformat.MimeChart]; ok {
			var v any
			_ = json.Unmarshal(raw, &v)
			b, _ := json.MarshalIndent(v, "", " ")
			out = append(out, string(b))
		}
	}
	return out
}

// Columns the profile leaves partly undescribed: infinite values only, a
// date column with a time zone, booleans, integers with missing values, a
// constant, one value per row; compared without an error or a warning, and
// judged where they can be.
func TestCompareEdgeColumns(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, flagEvery int, extra bool) {
		var b strings.Builder
		infs := "infs" // infinite values only: renamed, not alike (no values to compare)
		if extra {
			infs = "infs2"
		}
		b.WriteString("id,when,flag,count,ratio,constant,code,some_inf," + infs)
		if extra {
			b.WriteString(",added")
		}
		b.WriteString("\n")
		for i := range 300 {
			count := fmt.Sprint(i % 7)
			if i%11 == 0 {
				count = ""
			}
			someInf := fmt.Sprint(i%5 + flagEvery) // shifted with flagEvery; its mean is infinite
			if i%3 == 0 {
				someInf = "inf"
			}
			fmt.Fprintf(&b, "%d,2024-03-%02dT%02d:00:00+01:00,%t,%s,inf,same,K%03d,%s,-inf", i, 1+i%28, i%24, i%flagEvery == 0, count, i, someInf)
			if extra {
				b.WriteString(",x")
			}
			b.WriteString("\n")
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.csv", 2, false)
	write("b.csv", 5, true)
	s := newSession(t, dir)
	base := s.sketch("a.csv", false)
	if c := base.Columns[4]; c.Name != "ratio" || c.Numbers == nil || c.Numbers.Count != 0 || c.Numbers.Infinite != 300 {
		t.Errorf("ratio's sketch: %+v %+v", c, c.Numbers)
	}
	if c := base.Columns[1]; c.Dates == nil || c.Dates.Zone == nil || *c.Dates.Unit != "h" {
		t.Errorf("when's sketch: %+v", c.Dates)
	}
	s.sketch("b.csv", false)
	changes, _ := s.compare(base, eda.DefaultChangeRules())
	want := []string{"fail numeric-shift some_inf", "fail removed infs", "warn category-shift flag"}
	if got := judged(changes); !slices.Equal(got, want) {
		t.Errorf("changes at warn and fail: %q, want %q", got, want)
	}
}
