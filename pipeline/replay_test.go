package pipeline_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/llm/llmtest"
	"github.com/analyst-cli/analyst/runrecord"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/audit"
	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/pipeline"
)

// regionsCSV writes a small sales file with the given header and rows.
func regionsCSV(t testing.TB, path, header string, rows ...string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(header+"\n"+strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const regionCell = `top = df.groupby("region")["revenue"].sum().sort_values(ascending=False)
print(top)
top.plot.bar(title="Revenue by region", xlabel="region", ylabel="revenue")
plt.show()`

// replayOptions are opts of a recorded run made again from its run.json,
// the way analyst replay makes them, with model the replaying client.
// recorded makes c the run's model, its replies recorded as analyst run
// records them.
func recorded(opts *pipeline.Options, c llm.Client) {
	r := audit.NewRecorder(c)
	opts.Model, opts.Recorder = r, r
}

// replayOptions are the options of a replay of run whose model is model,
// recorded.
func replayOptions(t *testing.T, run *audit.Run, data, out string, model llm.Client) pipeline.Options {
	opts := options(t, data, out)
	opts.Name = run.Name()
	for _, q := range run.Record.Questions {
		opts.Questions = append(opts.Questions, q.Question)
	}
	m := run.Record.Model
	recorded(&opts, model)
	opts.ModelSpec, opts.MaxTurns, opts.MaxRepairs, opts.Seed, opts.ReflectRounds = m.Spec, m.MaxTurns, m.MaxRepairs, m.Seed, &m.ReflectRounds
	opts.NoExplore, opts.Goals = !m.Explore, m.Goals // explored as the run did
	opts.Independent = run.Record.Independent
	return opts
}

func openRun(t *testing.T, res *pipeline.Result) *audit.Run {
	t.Helper()
	run, err := audit.Open(res.Files.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// withoutOccasion is run.json without "occasion", and its model-call times.
func withoutOccasion(t *testing.T, path string) (map[string]any, []any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	occ, _ := m["occasion"].(map[string]any)
	calls, _ := occ["model_calls"].([]any)
	delete(m, "occasion")
	return m, calls
}

// A run in code-block mode (no tool calling: fenced ```python blocks) with a
// repair and a follow-up question, replayed from its run.json without the
// model server: the same notebook, report and chart bytes, and a run.json
// that differs only under "occasion", where the model calls' times are.
func TestReplayCodeBlocksIsByteIdentical(t *testing.T) {
	dir := t.TempDir()
	data := regionsCSV(t, filepath.Join(dir, "sales.csv"), "date,region,revenue",
		"2024-01-01,East,10", "2024-02-01,West,20", "2024-03-01,East,30")
	f := newFakeModel(t, "ollama",
		turn{Text: "Let me sum it.\n```python\nprint(df['revnue'].sum())\n```"},
		turn{Text: "Fixed the column name.\n```python\n" + regionCell + "\n```"},
		turn{Text: "@top_region[East] East has the most revenue (40)."},
		turn{Text: "VERDICT: ACCEPT\nThe bar chart shows East ahead."},
		turn{Text: "```python\nprint(df['revenue'].mean())\n```"},
		turn{Text: "@mean_revenue[20.0] The mean revenue is 20.0."},
	)
	f.Caps = `["completion"]`
	opts := options(t, data, filepath.Join(dir, "a"))
	opts.Questions = []string{"Which region has the most revenue?", "What is the mean revenue?"}
	opts.NoExplore = true // the exploration's replay is tested in run_explore.txtar
	recorded(&opts, f.Client(t, false))
	opts.ModelSpec = "ollama:qwen2.5-coder:7b"
	first := run(t, opts)
	if m := first.Manifest.Model; m.Mode != "code-blocks" || m.Repairs != 1 || m.Unanswered != 0 || m.Calls != 6 {
		t.Fatalf("the recorded run: %+v", m)
	}
	asked := len(f.Requests())

	rec := openRun(t, first)
	again := run(t, replayOptions(t, rec, data, filepath.Join(dir, "b"), audit.NewReplayer(rec.Record.Replies)))
	if n := len(f.Requests()); n != asked {
		t.Errorf("the replay asked the model server %d times", n-asked)
	}
	files := [][2]string{{first.Files.Notebook, again.Files.Notebook}, {first.Files.Report, again.Files.Report}}
	if len(first.Files.Charts) == 0 || len(first.Files.Charts) != len(again.Files.Charts) {
		t.Fatalf("charts: %v then %v", first.Files.Charts, again.Files.Charts)
	}
	for i := range first.Files.Charts {
		files = append(files, [2]string{first.Files.Charts[i], again.Files.Charts[i]})
	}
	for _, p := range files {
		a, _ := os.ReadFile(p[0])
		b, _ := os.ReadFile(p[1])
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s and %s differ (%d and %d bytes)", p[0], p[1], len(a), len(b))
		}
	}
	ma, callsA := withoutOccasion(t, first.Files.Manifest)
	mb, callsB := withoutOccasion(t, again.Files.Manifest)
	if len(callsA) != 6 || len(callsB) != 6 {
		t.Errorf("occasion.model_calls: %d and %d, want 6", len(callsA), len(callsB))
	}
	if !reflect.DeepEqual(ma, mb) {
		for k := range ma {
			if !reflect.DeepEqual(ma[k], mb[k]) {
				t.Errorf("run.json differs outside occasion at %q:\n%v\n%v", k, ma[k], mb[k])
			}
		}
	}
	if rest, _ := json.Marshal(ma); bytes.Contains(rest, []byte(`_ms"`)) {
		t.Errorf("times outside occasion: %s", rest)
	}
}

// A replay on new data whose recorded cell fails (a renamed column), with a
// live model (--model): the recorded replies are played up to that cell, then
// the model is asked with the conversation so far — the recorded reply and
// the real error — and goes on; run.json says which cells were replayed.
func TestReplayOnNewDataRepairsWithModelFromFailingCell(t *testing.T) {
	dir := t.TempDir()
	data := regionsCSV(t, filepath.Join(dir, "sales.csv"), "date,region,revenue",
		"2024-01-01,East,10", "2024-02-01,West,20", "2024-03-01,East,30")
	f := newFakeModel(t, "ollama",
		turn{Calls: []call{code(regionCell)}},
		turn{Calls: []call{final(map[string]any{"top_region": "East"}, "East has the most revenue.")}},
	)
	opts := options(t, data, filepath.Join(dir, "a"))
	opts.Questions = []string{"Which region has the most revenue?"}
	opts.NoExplore = true
	recorded(&opts, f.Client(t, false))
	opts.ModelSpec, opts.ReflectRounds = "ollama:qwen2.5-coder:7b", new(int)
	rec := openRun(t, run(t, opts))

	renamed := regionsCSV(t, filepath.Join(dir, "renamed.csv"), "date,region,amount",
		"2024-01-01,East,10", "2024-02-01,West,20", "2024-03-01,East,30", "2024-12-01,West,50")
	fixed := strings.ReplaceAll(regionCell, `"revenue"`, `"amount"`)
	live := newFakeModel(t, "ollama",
		turn{Calls: []call{code(fixed)}},
		turn{Calls: []call{final(map[string]any{"top_region": "West"}, "West has the most revenue.")}},
	)
	rerun, err := audit.NewRerun(rec, runrecord.DataID{Name: "renamed.csv"}, live.Client(t, false), "ollama:live")
	if err != nil {
		t.Fatal(err)
	}
	ropts := replayOptions(t, rec, renamed, filepath.Join(dir, "b"), rerun.Client())
	ropts.Rerun = rerun
	res := run(t, ropts)

	// What the live model was sent first: the recorded conversation up to
	// the failing cell (the recorded call, its code as recorded), then the
	// real error of that cell on the new data.
	msgs := live.Messages(t, 0)
	if len(msgs) != 4 || msgs[0]["role"] != "system" || msgs[1]["role"] != "user" || msgs[2]["role"] != "assistant" || msgs[3]["role"] != "tool" {
		t.Fatalf("first request to the live model: %v", msgs)
	}
	if msgs[1]["content"] != "Question: Which region has the most revenue?" {
		t.Errorf("question sent: %v", msgs[1]["content"])
	}
	calls := llmtest.AsList(msgs[2]["tool_calls"])
	if len(calls) != 1 {
		t.Fatalf("recorded reply sent with %d tool calls", len(calls))
	}
	args := calls[0].(map[string]any)["function"].(map[string]any)["arguments"].(map[string]any)
	if args["code"] != regionCell {
		t.Errorf("recorded code sent as %q", args["code"])
	}
	if fb := llmtest.ContentText(msgs[3]["content"]); !strings.Contains(fb, "KeyError") || !strings.Contains(fb, "revenue") || !strings.Contains(fb, "amount") {
		t.Errorf("the error fed back: %q", fb)
	}
	live.CheckProtocol(t)

	rr := res.Manifest.Rerun
	if rr == nil || rr.Failure == nil || rr.Model != "ollama:live" || rr.ReplayedReplies != 1 || rr.ModelReplies != 2 {
		t.Fatalf("rerun record: %+v", rr)
	}
	if !strings.Contains(rr.Failure.Exception, "KeyError") || !strings.Contains(rr.Failure.Cause, `column "revenue" is not in the new data`) {
		t.Errorf("failure: %+v", rr.Failure)
	}
	want := []runrecord.RerunCell{
		{Phase: "question-1", Turn: 1, Source: audit.SourceReplayed, Status: "error", RecordedStatus: "ok"},
		{Source: audit.SourceModel, Status: "ok"},
	}
	if !reflect.DeepEqual(rr.Cells, want) {
		t.Errorf("cells: %+v", rr.Cells)
	}
	if len(rr.Answers) != 1 || len(rr.Answers[0].Values) != 1 {
		t.Fatalf("answers: %+v", rr.Answers)
	}
	if v := rr.Answers[0].Values[0]; v.Old != "East" || v.New != "West" || !v.Located {
		t.Errorf("top_region: %+v", v)
	}
	var schema []string
	for _, c := range rr.Schema {
		schema = append(schema, c.String())
	}
	if got := strings.Join(schema, "; "); got != `column "revenue" removed (was int64); column "amount" added (int64)` {
		t.Errorf("schema changes: %s", got)
	}
	html, _ := os.ReadFile(res.Files.Report)
	for _, s := range []string{"Schema changes", "fails on the new data", "was asked again", "East → <strong>West</strong>"} {
		if !strings.Contains(string(html), s) {
			t.Errorf("report lacks %q", s)
		}
	}
}

// A replay on new data follows the recording both ways. The recorded run
// sent its first answer back (99 was in no output of the old data) and the
// model answered again; on the new data that first answer's numbers all
// show, so a run would take it — the replay still plays the recorded second
// answer, whose 30 no output shows on the new data, and takes it as the
// recorded run did. The recorded cell drew no chart (three rows), so the
// run asked no reflection round; on the new data (four rows) it draws one,
// and the replay asks none either. No model server is asked; the checks
// are in run.json.
func TestReplayOnNewDataFollowsTheRecordedPushBack(t *testing.T) {
	dir := t.TempDir()
	data := regionsCSV(t, filepath.Join(dir, "sales.csv"), "region,revenue", "East,10", "West,20", "North,30")
	const cell = `print("total", df["revenue"].sum())
print("largest", df["revenue"].max())
if len(df) > 3:
    df.plot.bar(x="region", y="revenue", title="Revenue by region", xlabel="region", ylabel="revenue")`
	f := newFakeModel(t, "ollama",
		turn{Calls: []call{code(cell)}},
		turn{Calls: []call{final(map[string]any{"total": 60}, "The total is 60; the largest is 99.")}},
		turn{Calls: []call{final(map[string]any{"total": 60}, "The total is 60; the largest is 30.")}},
	)
	opts := options(t, data, filepath.Join(dir, "a"))
	opts.Questions = []string{"What is the total revenue?"}
	opts.NoExplore = true
	recorded(&opts, f.Client(t, false))
	opts.ModelSpec = "ollama:qwen2.5-coder:7b"
	first := run(t, opts)
	if a := first.Answers[0]; strings.Join(a.TraceTold, ",") != "99" || !a.TraceCorrected || first.Manifest.Model.Calls != 3 ||
		len(a.Verdicts) != 1 || !strings.HasPrefix(a.Verdicts[0].Note, "no chart was made") {
		t.Fatalf("the recorded run: told %v, corrected %v, %d calls, verdicts %+v", a.TraceTold, a.TraceCorrected, first.Manifest.Model.Calls, a.Verdicts)
	}
	asked := len(f.Requests())
	rec := openRun(t, first)

	// Total 60 and largest 99 on the new data.
	newData := regionsCSV(t, filepath.Join(dir, "new.csv"), "region,revenue", "East,-39", "West,0", "North,99", "South,0")
	rerun, err := audit.NewRerun(rec, runrecord.DataID{Name: "new.csv"}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	ropts := replayOptions(t, rec, newData, filepath.Join(dir, "b"), rerun.Client())
	ropts.Rerun = rerun
	res := run(t, ropts)
	if n := len(f.Requests()); n != asked {
		t.Errorf("the replay asked the model server %d times", n-asked)
	}
	a := res.Answers[0]
	if !a.Answered || a.Summary != "The total is 60; the largest is 30." {
		t.Errorf("answer: answered %v, %q (stop %q)", a.Answered, a.Summary, a.Stop)
	}
	if len(a.Verdicts) != 1 || !strings.HasPrefix(a.Verdicts[0].Note, "not checked: the recorded run asked the model no reflection round here") {
		t.Errorf("verdicts: %+v", a.Verdicts)
	}
	rr := res.Manifest.Rerun
	want := []agent.Finding{
		{Phase: "question-1", Turn: 2, Check: agent.FindingUntraced, Asked: true,
			Found: "on the new data the model would not be asked here; the recorded run asked it"},
		{Phase: "question-1", Turn: 3, Check: agent.FindingUntraced, Asked: false,
			Found: "numbers of the answer that no output shows on the new data: 30"},
		{Phase: "reflection-1", Turn: 0, Check: agent.FindingReflection, Asked: false,
			Found: "on the new data the model would be asked here; the recorded run did not ask it"},
	}
	if rr.ReplayedReplies != 3 || rr.ModelReplies != 0 || !reflect.DeepEqual(rr.Checks, want) {
		t.Errorf("replayed %d, new %d, checks:\n%+v\nwant\n%+v", rr.ReplayedReplies, rr.ModelReplies, rr.Checks, want)
	}
	if v := rr.Answers[0].Values[0]; v.Old != "60" || v.New != "60" || !v.Located || v.Cell == "" {
		t.Errorf("total: %+v", v)
	}
	html, _ := os.ReadFile(res.Files.Report)
	for _, s := range []string{"Checks on the new data", "the recorded run asked the model again here: its recorded reply is played",
		`60 → <strong>60</strong> (read from <a href="#cell-` + rr.Answers[0].Values[0].Cell + `">`} {
		if !strings.Contains(string(html), s) {
			t.Errorf("report lacks %q", s)
		}
	}
}
