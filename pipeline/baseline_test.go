package pipeline_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/audit"
	"github.com/analyst-cli/analyst/baseline"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/pipeline"
	"github.com/analyst-cli/analyst/runrecord"
)

// amountsCSV writes 200 rows of region and amount, missing amounts where
// i%10 < missingTenths.
func amountsCSV(t *testing.T, path string, missingTenths int) string {
	t.Helper()
	var rows []string
	for i := range 200 {
		amount := fmt.Sprint(10 + i%37)
		if i%10 < missingTenths {
			amount = ""
		}
		rows = append(rows, fmt.Sprintf("%s,%s", []string{"North", "South"}[i%2], amount))
	}
	return regionsCSV(t, path, "region,amount", rows...)
}

// A run compared with a baseline, with a model: the model is given the
// changes (not the rows) and writes the key changes at the top of What
// changed, each number traced to the cell that shows it or marked
// untraced; run.json records the sketch, the baseline, the changes and the
// key changes; a replay from run.json compares with the run's copy of the
// baseline's sketch and gives the same notebook and report bytes.
func TestBaselineKeyChanges(t *testing.T) {
	dir := t.TempDir()
	old := run(t, options(t, amountsCSV(t, filepath.Join(dir, "old.csv"), 1), filepath.Join(dir, "old")))
	if m := old.Manifest; m.Sketch == nil || m.Sketch.File != "old_files/sketch.json" || m.Baseline != nil {
		t.Fatalf("the baseline run's manifest: sketch %+v, baseline %+v", m.Sketch, m.Baseline)
	}
	m, err := runrecord.Read(old.Files.Manifest)
	must(t, err)
	base, err := baseline.Open(old.Files.Manifest, m.AnalystVersion, baseline.Data{Name: m.Data.Name, SHA256: m.Data.SHA256}, m.Sketch, m.Files)
	if err != nil {
		t.Fatal(err)
	}

	reply := "- **amount**: the missing share rose from 10% to 40% (20 → 80 rows), a fail.\n" +
		"- **amount**: 12345 rows were lost."
	f := newFakeModel(t, "ollama", turn{Text: reply})
	data := amountsCSV(t, filepath.Join(dir, "new.csv"), 4)
	opts := options(t, data, filepath.Join(dir, "new"))
	recorded(&opts, f.Client(t, false))
	opts.ModelSpec, opts.NoExplore = "ollama:qwen2.5-coder:7b", true
	opts.Baseline, opts.ChangeRules, opts.ExplainChanges = base, eda.DefaultChangeRules(), true
	first := run(t, opts)

	if first.Changes == nil || first.Changes.Worst != eda.LevelFail {
		t.Fatalf("changes: %+v", first.Changes)
	}
	f.CheckProtocol(t)
	if n := len(f.Requests()); n != 1 {
		t.Fatalf("the model got %d requests, want 1", n)
	}
	prompt := f.LastText(t, 0, "user")
	for _, want := range []string{`"new.csv" was compared with an earlier version of it, "old.run.json (data old.csv)"`,
		"- fail missing amount: missing 10% → 40% (20 → 80 rows)", "- info rows (table): rows 200 → 200"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, prompt)
		}
	}
	if strings.Contains(prompt, "North,") || strings.Contains(prompt, "South,") {
		t.Errorf("the prompt holds data rows:\n%s", prompt)
	}

	// The key changes open the What changed stage, under its heading.
	nb := first.Notebook
	at := slices.IndexFunc(nb.Cells, func(c *nbformat.Cell) bool { return c.HasTag(nbformat.StageTag(eda.StageChanges)) })
	kc := nb.Cells[at+1]
	if !kc.HasTag(pipeline.PhaseKeyChanges) || !kc.HasTag(nbformat.TagModel) || !strings.HasSuffix(kc.Source, reply) ||
		!strings.HasPrefix(kc.Source, "**Key changes**, as the model `ollama:qwen2.5-coder:7b` read the changes") {
		t.Errorf("the cell under What changed: %v\n%s", kc.Metadata.Tags, kc.Source)
	}
	k := first.Manifest.KeyChanges
	if k == nil || k.Cell != kc.ID || k.Numbers == nil {
		t.Fatalf("run.json key_changes: %+v", k)
	}
	var traced []string
	for _, n := range k.Numbers.Traced {
		traced = append(traced, n.Text)
	}
	if !slices.Contains(traced, "10%") || !slices.Contains(traced, "40%") || !slices.Contains(traced, "80") {
		t.Errorf("traced: %v, want 10%%, 40%% and 80 among them", traced)
	}
	if u := k.Numbers.UntracedTexts(); !slices.Equal(u, []string{"12345"}) {
		t.Errorf("untraced: %v, want 12345", u)
	}
	html, _ := os.ReadFile(first.Files.Report)
	if !bytes.Contains(html, []byte("12345")) || bytes.Index(html, []byte("Key changes")) > bytes.Index(html, []byte(`id="overview"`)) {
		t.Errorf("the report does not show the key changes before the data overview")
	}
	if m := first.Manifest; m.Baseline == nil || !m.Baseline.Explained || m.Baseline.File != "new_files/baseline.json" ||
		m.Model == nil || m.Model.Calls != 1 {
		t.Errorf("run.json: baseline %+v, model %+v", m.Baseline, m.Model)
	}

	// A replay, as analyst replay makes it: the run's copy of the sketch, its rules.
	rec := openRun(t, first)
	record := rec.Record.Baseline
	if record == nil || !record.Explained {
		t.Fatalf("the run's record of its baseline: %+v", record)
	}
	b, err := baseline.FromRecord(rec.Dir, record)
	if err != nil {
		t.Fatalf("baseline.FromRecord: %v", err)
	}
	again := replayOptions(t, rec, data, filepath.Join(dir, "again"), audit.NewReplayer(rec.Record.Replies))
	again.Baseline, again.ChangeRules, again.ExplainChanges = b, *record.Rules, true
	second := run(t, again)
	for _, p := range [][2]string{{first.Files.Notebook, second.Files.Notebook}, {first.Files.Report, second.Files.Report}} {
		x, _ := os.ReadFile(p[0])
		y, _ := os.ReadFile(p[1])
		if !bytes.Equal(x, y) {
			t.Errorf("%s and %s differ", p[0], p[1])
		}
	}
}
