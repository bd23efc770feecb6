package pipeline_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/pipeline"
	"github.com/analyst-cli/analyst/runrecord"
)

// Model code of the exploration test: a chart the checks reject (no title,
// no y label), the same chart fixed, a revision in reflection, and a
// second goal's chart.
const (
	regionChartBad = `by_region = df.groupby('region')['revenue'].sum().sort_values(ascending=False)
fig, ax = plt.subplots()
by_region.plot.bar(ax=ax)`
	regionChartFixed = `fig, ax = plt.subplots()
by_region.plot.bar(ax=ax)
ax.set(title='Revenue by region', xlabel='Region', ylabel='Revenue')
print(by_region.round(2).to_string())`
	regionChartRevised = `fig, ax = plt.subplots()
by_region.sort_values().plot.barh(ax=ax)
ax.set(title='Revenue by region, largest at the top', xlabel='Revenue', ylabel='Region')
print(f"top region share = {by_region.iloc[0] / by_region.sum():.3f}")
print(f"orders = {len(df)}")`
	productChart = `units_by_product = df.groupby('product')['units'].sum().sort_values(ascending=False)
fig, ax = plt.subplots()
units_by_product.plot.bar(ax=ax)
ax.set(title='Units sold by product', xlabel='Product', ylabel='Units')
print(units_by_product.to_string())`
)

func goalsJSON(goals ...map[string]any) string {
	b, _ := json.Marshal(map[string]any{"goals": goals})
	return string(b)
}

func goal(q, chart string, cols ...string) map[string]any {
	return map[string]any{"question": q, "chart": chart, "columns": cols, "visualization": chart + " of " + strings.Join(cols, " and "),
		"rationale": "it matters"}
}

// exploreScript is the scripted model of an exploration: four goals
// proposed (one repeats a histogram the report has, one names a column the
// data lacks), the first goal's chart rejected by the checks and fixed, then
// revised in reflection, its finding citing a number a cell printed; the
// second's finding states a number no cell shows (told once, restated,
// accepted with a reason that states one traced number and one untraced);
// the ranking puts goal 2 first.
func exploreScript() []turn {
	proposal := goalsJSON(
		goal("Which region brings the most revenue?", "bar chart", "region", "revenue"),
		goal("How is revenue distributed?", "histogram", "revenue"),
		goal("Does profit grow over time?", "line", "date", "profit"),
		goal("Which product sells the most units?", "bar", "product", "units"),
	)
	return []turn{
		{Calls: []call{{Name: "propose_goals", Args: proposal}}},
		{Calls: []call{code(regionChartBad)}},
		{Calls: []call{code(regionChartFixed)}},
		{Calls: []call{final(map[string]any{"top_region": "West"}, "West brings the most revenue, @top_region[West], of the four regions.")}},
		{Calls: []call{{Name: "revise", Args: `{"reason": "the bars are hard to compare; sort them and show the share"}`}, code(regionChartRevised)}},
		{Calls: []call{final(map[string]any{"top_region": "West"}, "West brings the most revenue (@top_region[West]) of the 400 orders; the share is printed under the chart.")}},
		{Calls: []call{code(productChart)}},
		{Calls: []call{final(map[string]any{"top_product": "Pen"}, "Pens sell the most units: @top_product[Pen], 98765 units in all.")}},
		{Calls: []call{final(map[string]any{"top_product": "Pen"}, "Pens sell the most units: @top_product[Pen], 98765 units in all.")}},
		{Calls: []call{{Name: "accept", Args: `{"reason": "titled, labelled, supports the finding: 400 orders, the tallest bar 31337 units"}`}}},
		{Text: "Here is my ranking:\n```json\n{\"key_findings\": [2, 1]}\n```"},
	}
}

// analyst run DATA --model M, no question: the model proposes goals from
// the profile summary, each is drawn in the kernel, checked, reflected on
// and stated as a finding; the report opens with the Key findings linked
// to their cells, run.json records it all, and the notebook re-executes
// under nbconvert to the same outputs. Ollama's wire format.
func TestExploreOllama(t *testing.T) {
	dir := t.TempDir()
	data := salesCSV(t, dir, 400)
	f := newFakeModel(t, "ollama", exploreScript()...)
	res := reexecuteWith(t, dir, data, nil, true, func(o *pipeline.Options) {
		o.Model, o.ModelSpec, o.Goals = f.Client(t, false), "ollama:qwen2.5-coder:7b", 3
	})
	checkExploration(t, f, res, false)
}

// The same exploration over OpenAI's wire format (SSE, tool call ids).
func TestExploreOpenAI(t *testing.T) {
	f, res := runExploration(t, "openai", false)
	checkExploration(t, f, res, false)
}

// checkExploration checks what exploreScript's run sent and wrote, the
// reflection requests as a model with vision or without gets them.
func checkExploration(t *testing.T, f *fakeModel, res *pipeline.Result, vision bool) {
	t.Helper()
	checkReflectionSent(t, f, res, vision)
	f.CheckProtocol(t)
	if n := len(f.Requests()); n != 11 {
		t.Fatalf("the model got %d requests, want 11", n)
	}
	// What was sent for the goals: the profile summary, the charts already
	// drawn, the request; no data rows beyond the short samples.
	sys, user := f.LastText(t, 0, "system"), f.LastText(t, 0, "user")
	for _, want := range []string{`"revenue": numeric`, `"region": categorical`, "Alerts:", "strongest |r| with another column",
		"Charts the report already has", `- hist of "revenue"`, `- box of "`, `- scatter of "`} {
		if !strings.Contains(sys, want) {
			t.Errorf("the goal prompt lacks %q", want)
		}
	}
	if dates := regexp.MustCompile(`20\d\d-\d\d-\d\d`).FindAllString(sys, -1); len(dates) > 5 {
		t.Errorf("the goal prompt holds %d dates, more than the samples and range: %v", len(dates), dates)
	}
	if ids := regexp.MustCompile(`C\d{5}`).FindAllString(sys, -1); len(ids) > 3 {
		t.Errorf("the goal prompt holds %d customer ids, more than the sample: %v", len(ids), ids)
	}
	if !strings.Contains(user, "Propose 3 analysis goals") || strings.Join(f.ToolNames(t, 0), ",") != "propose_goals" {
		t.Errorf("goal request: %q, tools %v", user, f.ToolNames(t, 0))
	}
	// The checks sent the rejected chart back with what is wrong.
	if fb := f.LastText(t, 2, "tool"); !strings.Contains(fb, "chart check") || !strings.Contains(fb, "no title") ||
		!strings.Contains(fb, "the y axis has no label") {
		t.Errorf("feedback on the bad chart: %s", fb)
	}
	if fb := f.LastText(t, 3, "tool"); strings.Contains(fb, "chart check") {
		t.Errorf("the fixed chart was rejected: %s", fb)
	}
	// The ranking call saw both findings.
	// The untraced number of goal 2's finding was sent back once.
	if fb := f.LastText(t, 8, "tool"); !strings.Contains(fb, "appear in no output") || !strings.Contains(fb, "98765") {
		t.Errorf("feedback on the untraced number: %s", fb)
	}
	if rank := f.LastText(t, 10, "user"); !strings.Contains(rank, "1. West brings the most revenue") || !strings.Contains(rank, "2. Pens sell") {
		t.Errorf("ranking prompt: %s", rank)
	}

	// run.json: goals, what was dropped and why, checks, verdicts, findings.
	var m struct {
		Model struct {
			Explore  bool `json:"explore"`
			Goals    int  `json:"goals"`
			Calls    int  `json:"calls"`
			Untraced int  `json:"untraced_numbers"`
		} `json:"model"`
		Stages      []struct{ Name, Status string } `json:"stages"`
		Exploration *runrecord.Exploration          `json:"exploration"`
	}
	b, _ := os.ReadFile(res.Files.Manifest)
	if err := json.Unmarshal(b, &m); err != nil || m.Exploration == nil {
		t.Fatalf("run.json: %v", err)
	}
	ex := m.Exploration
	if !m.Model.Explore || m.Model.Goals != 3 || m.Model.Calls != 11 || m.Model.Untraced != 2 {
		t.Errorf("run.json model: %+v", m.Model)
	}
	if last := m.Stages[len(m.Stages)-1]; last.Name != pipeline.StageExploration || last.Status != "ok" {
		t.Errorf("stages %+v", m.Stages)
	}
	p := ex.Proposal
	if len(p.Goals) != 2 || p.Goals[0].Chart != "bar" || p.Goals[1].Question != "Which product sells the most units?" || len(p.Dropped) != 2 {
		t.Fatalf("proposal %+v", p)
	}
	if !strings.Contains(p.Dropped[0].Reason, `already shows: hist of "revenue"`) || !strings.Contains(p.Dropped[1].Reason, `not in the data: "profit"`) {
		t.Errorf("dropped: %+v", p.Dropped)
	}
	if !strings.Contains(p.Note, "2 of the 3 goals asked for are explored") {
		t.Errorf("note %q", p.Note)
	}
	g1, g2 := ex.Goals[0], ex.Goals[1]
	if g1.Answer.ChartRejections != 1 || len(g1.Answer.ChartChecks) != 1 || !g1.Answer.Revised || g1.Answer.Verdicts[0].Accepted {
		t.Errorf("goal 1: rejections %d, checks %+v, revised %v, verdicts %+v", g1.Answer.ChartRejections, g1.Answer.ChartChecks,
			g1.Answer.Revised, g1.Answer.Verdicts)
	}
	if !strings.Contains(g1.Finding, "the share is printed") || !strings.Contains(g1.Chart, "largest at the top") {
		t.Errorf("goal 1 finding %q, chart %q", g1.Finding, g1.Chart)
	}
	if g2.Answer.Revised || !g2.Answer.Verdicts[0].Accepted || g2.Cell == "" || !strings.Contains(g2.Chart, "Units sold by product") {
		t.Errorf("goal 2 %+v", g2)
	}
	// Numbers: goal 1's 400 is traced to a cell, goal 2's 98765 to none.
	if n := g1.Answer.Numbers; n == nil || len(n.Untraced) != 0 || len(n.Traced) == 0 {
		t.Errorf("goal 1 numbers %+v", n)
	}
	if n := g2.Answer.Numbers; n == nil || len(n.Untraced) != 1 || n.Untraced[0].Text != "98765" || len(g2.Answer.TraceTold) != 1 {
		t.Errorf("goal 2 numbers %+v, told %v", n, g2.Answer.TraceTold)
	}
	// The reason goal 2's chart was accepted states 400 (traced) and 31337
	// (untraced, counted); goal 1's revision restates its answer.
	if v := g2.Answer.Verdicts[0]; v.Numbers == nil || len(v.Numbers.Untraced) != 1 || v.Numbers.Untraced[0].Text != "31337" ||
		len(v.Numbers.Traced) != 1 || v.Numbers.Traced[0].Text != "400" {
		t.Errorf("goal 2 verdict numbers %+v", v.Numbers)
	}
	if v := g1.Answer.Verdicts[0]; !v.Revised || v.Numbers == nil || len(v.Numbers.Traced) == 0 {
		t.Errorf("goal 1 verdict %+v", v)
	}
	if len(ex.KeyFindings) != 2 || ex.KeyFindings[0].Goal != 2 || ex.KeyFindings[1].Goal != 1 || ex.KeyFindings[0].Cell != g2.Cell {
		t.Errorf("key findings %+v", ex.KeyFindings)
	}

	// The notebook: the exploration's cells under its stage, tagged like
	// the questions'; the cell a key finding names drew its chart.
	nb, err := nbformat.ReadFile(res.Files.Notebook)
	if err != nil {
		t.Fatal(err)
	}
	var model, findings int
	var chartCell *nbformat.Cell
	for _, c := range nb.Cells {
		if !c.HasTag("stage:" + pipeline.StageExploration) {
			continue
		}
		if c.HasTag(nbformat.TagModel) {
			model++
		}
		if c.HasTag("finding") {
			findings++
		}
		if c.ID == g2.Cell {
			chartCell = c
		}
	}
	if model != 4 || findings != 2 || chartCell == nil || !strings.Contains(chartCell.Source, "Units sold by product") || !chartCell.HasTag("goal-2") {
		t.Errorf("notebook: %d model cells, %d findings, chart cell %v", model, findings, chartCell)
	}

	// The report opens with the Key findings, linked to the cells, before
	// the data; the exploration comes after the deterministic stages.
	html, _ := os.ReadFile(res.Files.Report)
	page := string(html)
	order := []string{`<section id="key-findings"`, `<section id="overview"`, `id="stage-visualization"`, `id="stage-exploration"`}
	for i := 1; i < len(order); i++ {
		if a, b := strings.Index(page, order[i-1]), strings.Index(page, order[i]); a < 0 || b < 0 || a > b {
			t.Errorf("report: %s at %d, %s at %d", order[i-1], a, order[i], b)
		}
	}
	key := page[strings.Index(page, `<section id="key-findings"`):strings.Index(page, `<section id="overview"`)]
	if i, j := strings.Index(key, "Pens sell the most units"), strings.Index(key, "West brings the most revenue"); i < 0 || j < i {
		t.Errorf("key findings out of order: %s", key)
	}
	if !strings.Contains(key, `class="untraced"`) || !regexp.MustCompile(`<a class="traced"[^>]*>400</a>`).MatchString(key) {
		t.Errorf("the key findings do not mark 98765 untraced and link 400 to its cell: %s", key)
	}
	// Each goal's finding, where the exploration states it, has its
	// numbers marked as in the Key findings: the same claims, the same
	// marks.
	if g1.FindingCell == "" || g2.FindingCell == "" {
		t.Errorf("run.json names no finding cell: %q, %q", g1.FindingCell, g2.FindingCell)
	}
	explored := page[strings.Index(page, `id="stage-exploration"`):]
	if !regexp.MustCompile(`accepted\.</strong>[^<]*</p>\s*<blockquote>\s*<p>titled, labelled, supports the finding: <a class="traced"[^>]*>400</a> orders, the tallest bar <span class="untraced"[^>]*>31337<sup`).MatchString(explored) {
		t.Errorf("goal 2's verdict does not link 400 and mark 31337 untraced: %s", explored)
	}
	if !regexp.MustCompile(`<span class="untraced"[^>]*>98765<sup`).MatchString(explored) ||
		!regexp.MustCompile(`<a class="traced" href="#cell-[^"]+"[^>]*>400</a>`).MatchString(explored) {
		t.Errorf("the exploration's findings do not mark 98765 untraced and link 400 to its cell: %s", explored)
	}
	for _, id := range []string{g1.Cell, g2.Cell} {
		if !strings.Contains(key, `href="#cell-`+id+`"`) || !strings.Contains(page, `id="cell-`+id+`"`) {
			t.Errorf("no link to cell %s in the key findings, or no such cell: %s", id, key)
		}
	}
	if !strings.Contains(page, "it draws what the report already shows") || !strings.Contains(page, "Goals dropped") {
		t.Errorf("the report does not say which goals were dropped and why")
	}
}

// A model that proposes nonsense: prose instead of JSON, then, asked to
// restate, goals over columns the data lacks. The run completes with the
// EDA and a clear note; the question asked as well runs after it.
func TestExploreNonsenseGoals(t *testing.T) {
	dir := t.TempDir()
	data := salesCSV(t, dir, 200)
	f := newFakeModel(t, "ollama",
		turn{Text: "You should look at the revenue trends and the regions, they are interesting."},
		turn{Text: goalsJSON(goal("What is the profit margin?", "bar", "profit", "margin"))},
		turn{Calls: []call{code("print(df['region'].value_counts().idxmax())")}},
		turn{Calls: []call{final(map[string]any{"top": "West"}, "West has the most rows.")}},
	)
	opts := options(t, data, filepath.Join(dir, "out"))
	opts.Model = f.Client(t, false)
	opts.Questions = []string{"Which region has the most rows?"}
	opts.ReflectRounds = new(int) // none
	res := run(t, opts)
	if res.Failure != "" || len(res.Answers) != 1 || !res.Answers[0].Answered {
		t.Fatalf("failure %q, answers %+v", res.Failure, res.Answers)
	}
	if fix := f.LastText(t, 1, "user"); !strings.Contains(fix, "could not be read: no JSON found") {
		t.Errorf("restatement request: %s", fix)
	}
	var names []string
	for _, s := range res.Stages {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); !strings.HasSuffix(got, ",visualization,exploration,question-1") {
		t.Errorf("stages %s", got)
	}
	var m struct {
		Exploration *runrecord.Exploration `json:"exploration"`
	}
	b, _ := os.ReadFile(res.Files.Manifest)
	json.Unmarshal(b, &m)
	p := m.Exploration.Proposal
	if !p.Restated || len(p.Goals) != 0 || len(p.Dropped) != 1 || !strings.Contains(p.Dropped[0].Reason, `not in the data: "profit", "margin"`) ||
		!strings.Contains(p.Note, "0 of the 5 goals asked for are explored") {
		t.Errorf("proposal %+v", p)
	}
	html, _ := os.ReadFile(res.Files.Report)
	key := string(html)
	key = key[strings.Index(key, `<section id="key-findings"`):]
	key = key[:strings.Index(key, "</section>")]
	if !strings.Contains(key, "0 of the 5 goals asked for are explored") || !strings.Contains(key, "no finding") {
		t.Errorf("key findings: %s", key)
	}
}

// Prose twice: the goals cannot be read after one restatement; a note says
// so and the run completes (a model without tools: code-block mode).
func TestExploreUnreadableGoals(t *testing.T) {
	dir := t.TempDir()
	data := salesCSV(t, dir, 200)
	f := newFakeModel(t, "ollama", turn{Text: "Revenue by region would be a good start."}, turn{Text: `{"goals": [{"chart": "bar"}]}`})
	f.Caps = `["completion"]`
	opts := options(t, data, filepath.Join(dir, "out"))
	opts.Model = f.Client(t, false)
	res := run(t, opts)
	if res.Failure != "" || len(f.Requests()) != 2 {
		t.Fatalf("failure %q, %d requests", res.Failure, len(f.Requests()))
	}
	if tools := f.ToolNames(t, 0); len(tools) != 0 {
		t.Errorf("tools offered to a model without tools: %v", tools)
	}
	if user := f.LastText(t, 0, "user"); !strings.Contains(user, `Reply with only this JSON`) {
		t.Errorf("goal request: %s", user)
	}
	html, _ := os.ReadFile(res.Files.Report)
	if want := "could not be read after one request to restate them (goal 1 has no question)"; !strings.Contains(string(html), want) {
		t.Errorf("the report does not say %q", want)
	}
}
