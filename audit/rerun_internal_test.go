package audit

import (
	"slices"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/runrecord"
)

// modelNotebook is a notebook with one model cell of question-1 per output
// text (an empty text: a cell that failed).
func modelNotebook(texts ...string) *nbformat.Notebook {
	nb := nbformat.New()
	nb.AddMarkdown("# intro")
	for i, text := range texts {
		outs := []nbformat.Output{nbformat.Stream("stdout", text)}
		if text == "" {
			outs = []nbformat.Output{nbformat.Error("KeyError", "'revenue'", nil)}
		}
		nb.AddCode("x", outs, i+1, nbformat.StageTag("question-1"), nbformat.TagModel, nbformat.TurnTag(1))
	}
	return nb
}

func TestRelocate(t *testing.T) {
	phases := map[string]bool{nbformat.StageTag("question-1"): true}
	tests := []struct {
		name     string
		old, new []string
		value    string
		want     string // "" when not located
		why      string
	}{
		{"top of a sorted table", []string{"region\nEast    40\nWest    20\n"}, []string{"region\nWest    70\nEast    40\n"}, "East", "West", ""},
		{"a number as printed", []string{"total 90\n"}, []string{"total 140\n"}, "90", "140", ""},
		{"rounded as recorded", []string{"mean    12.3456\n"}, []string{"mean    13.98761\n"}, "12.35", "13.99", ""},
		{"the last cell that shows it", []string{"East first\n", "answer: East\n"}, []string{"East first\n", "answer: West\n"}, "East", "West", ""},
		{"two words", []string{"city: New York\n"}, []string{"city: San Diego\n"}, "New York", "San Diego", ""},
		{"text where a number was", []string{"total 90\n"}, []string{"total n/a\n"}, "90", "", "not the same kind"},
		{"a shorter output", []string{"a b c 7\n"}, []string{"a b\n"}, "7", "", "shorter on the new data"},
		{"the cell failed", []string{"total 90\n"}, []string{""}, "90", "", "failed on the new data"},
		{"the replay stopped before it", []string{"ok\n", "total 90\n"}, []string{"ok\n"}, "90", "", "stopped before"},
		{"not shown anywhere", []string{"total 90\n"}, []string{"total 91\n"}, "42", "", "shows in no output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := relocate(agent.NamedValue{Name: "v", Value: tt.value}, modelCells(modelNotebook(tt.old...)), modelCells(modelNotebook(tt.new...)), phases)
			if got.Old != tt.value || got.Located != (tt.want != "") || got.New != tt.want || !strings.Contains(got.Why, tt.why) {
				t.Errorf("got %+v, want new %q (why %q)", got, tt.want, tt.why)
			}
			if got.Located && !strings.HasPrefix(got.Where, "cell ") {
				t.Errorf("where: %q", got.Where)
			}
		})
	}
}

func TestSchemaDiffAndLikelyCause(t *testing.T) {
	prof := func(cols ...string) *eda.Profile {
		p := &eda.Profile{}
		for _, c := range cols {
			name, dtype, _ := strings.Cut(c, ":")
			p.ColumnInfo = append(p.ColumnInfo, eda.Column{Name: name, Dtype: dtype})
		}
		return p
	}
	diff := SchemaDiff(prof("date:datetime64[ns]", "region:object", "revenue:int64", "units:int64"),
		prof("date:datetime64[ns]", "region:object", "units:object", "amount:int64"))
	var got []string
	for _, c := range diff {
		got = append(got, c.String())
	}
	want := `column "revenue" removed (was int64); column "units" changed type: int64 → object; column "amount" added (int64)`
	if strings.Join(got, "; ") != want {
		t.Errorf("diff: %s", strings.Join(got, "; "))
	}
	causes := []struct{ exception, code, want string }{
		{"KeyError: 'revenue'", `df["revenue"].sum()`, `column "revenue" is not in the new data (removed or renamed); new columns: "amount"`},
		{"TypeError: unsupported operand", `df["units"] * 2`, `column "units" changed type from int64 to object`},
		{"ValueError: x", `df.region.head()`, `the new data's schema differs`},
	}
	for _, c := range causes {
		if got := likelyCause(c.exception, c.code, diff); !strings.HasPrefix(got, c.want) {
			t.Errorf("likelyCause(%q, %q) = %q, want %q…", c.exception, c.code, got, c.want)
		}
	}
	if got := likelyCause("ValueError: x", "y", nil); !strings.Contains(got, "columns and types are the recorded ones") {
		t.Errorf("no schema change: %q", got)
	}
}

// Each recorded reply is matched with its model call — the goals proposed,
// each goal's, the ranking, each question's; the errors have none — and
// Asked reads the recording's next call after the replies played.
func TestReplyCallsAndAsked(t *testing.T) {
	calls := func(phase string, turns ...int) []agent.ModelCall {
		var out []agent.ModelCall
		for _, n := range turns {
			out = append(out, agent.ModelCall{Phase: phase, Turn: n})
		}
		return out
	}
	recordCalls := func(mc []agent.ModelCall) []agent.ModelCall {
		var out []agent.ModelCall
		for _, c := range mc {
			out = append(out, agent.ModelCall{Phase: c.Phase, Turn: c.Turn})
		}
		return out
	}
	ok, refused, failed := runrecord.Reply{}, runrecord.Reply{Error: "no tools", ErrorKind: "tools-unsupported"}, runrecord.Reply{Error: "server gone", ErrorKind: "unreachable"}
	rec := &runrecord.Record{
		Exploration: &runrecord.Exploration{Proposal: &agent.GoalSet{Calls: calls("goals", 1)}, Ranking: &agent.Ranking{},
			Goals: []*runrecord.ExploredGoal{{Answer: &agent.Answer{Calls: recordCalls(calls("goal-1", 1))}}}},
		Questions: []*agent.Answer{
			{Calls: recordCalls(calls("question-1", 1, 2))},
			{Calls: recordCalls(calls("question-2", 1, 2))},
		},
		// The goals' proposal was refused tools once; the run stopped on a
		// model error in question 2's fourth turn.
		Replies: &runrecord.Recording{Replies: []runrecord.Reply{refused, ok, ok, ok, ok, ok, ok, failed}},
	}
	got, err := replyCalls(rec)
	if err != nil {
		t.Fatal(err)
	}
	want := []agent.ModelCall{{}, {Phase: "goals", Turn: 1}, {Phase: "goal-1", Turn: 1}, {Phase: "question-1", Turn: 1}, {Phase: "question-1", Turn: 2}, {Phase: "question-2", Turn: 1}, {Phase: "question-2", Turn: 2}, {}}
	if !slices.Equal(got, want) {
		t.Fatalf("reply calls:\n%v\nwant\n%v", got, want)
	}

	r := &Rerun{run: &Run{Record: rec}, calls: got}
	asks := []struct {
		played int
		phase  string
		turn   int
		want   bool
	}{
		{0, "goals", 0, true},       // past the refusal: the proposal
		{2, "goal-1", 0, true},      // the goal's conversation opens
		{3, "goal-1", 1, false},     // no second turn: question-1 follows
		{3, "question-1", 0, true},  //
		{4, "question-1", 1, true},  // the recorded run asked again (a push-back)
		{5, "question-1", 2, false}, // and no more
		{7, "question-2", 2, true},  // the model error the run stopped on
		{8, "question-2", 3, false}, // nothing recorded after it
	}
	for _, a := range asks {
		r.replayed = a.played
		if got := r.Asked(a.phase, a.turn); got != a.want {
			t.Errorf("after %d replies, Asked(%s, %d) = %v, want %v", a.played, a.phase, a.turn, got, a.want)
		}
	}

	rec.Replies.Replies = rec.Replies.Replies[1:3]
	if _, err := replyCalls(rec); err == nil || !strings.Contains(err.Error(), "records 6 model calls and 2 model replies") {
		t.Errorf("calls and replies that do not match: %v", err)
	}
}
