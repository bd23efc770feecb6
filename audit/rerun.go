package audit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/runrecord"
)

// Rerun is a recorded run replayed on new data (analyst replay --data).
// The model's recorded replies are played back, so the same cells run, on
// the new data. A cell that ran without error in the recording and fails
// now is never repaired silently: the replay stops there with a
// *CellFailure, or, given a live model (--model), hands the conversation to
// it from that cell on, the real error being the model's feedback.
//
// A Rerun serves one pipeline run: Client and Executor go into it, Compare,
// Relocate and Record are called by it.
type Rerun struct {
	run        *Run
	oldNB      *nbformat.Notebook
	oldProfile *eda.Profile
	// oldTables are a folder's tables as the recorded run profiled them, in
	// its order (nil for a file).
	oldTables []TableProfile
	steps     []agent.Step // the recorded model cells, in order
	replayer  *Replayer
	live      llm.Client // nil: stop at the first failing cell
	liveSpec  string
	newData   runrecord.DataID

	mu       sync.Mutex
	schema   []runrecord.SchemaChange
	cells    []runrecord.RerunCell
	failure  *runrecord.CellFailure
	replayed int // replies played back
	asked    int // replies the live model gave
	answers  map[answerKey][]runrecord.ValueChange
	// calls are the phase and turn of each recorded reply (replyCalls);
	// findings what the checks found on the new data (agent.Replay).
	calls    []agent.ModelCall
	findings []agent.Finding
}

// answerKey names a question or an exploration goal (from 1).
type answerKey struct{ question, goal int }

// NewRerun prepares the replay of run on the data newData. live, if not
// nil, is the model (named liveSpec) that takes over from the first cell
// that fails on the new data.
func NewRerun(run *Run, newData runrecord.DataID, live llm.Client, liveSpec string) (*Rerun, error) {
	rec := run.Record
	if rec.Replies == nil && len(rec.Questions) > 0 {
		return nil, fmt.Errorf("%s records no model replies, so it cannot be replayed", run.Manifest)
	}
	nbPath := filepath.Join(run.Dir, rec.Outputs.Notebook)
	nb, err := nbformat.ReadFile(nbPath)
	if err != nil {
		return nil, fmt.Errorf("reading the recorded run's notebook (for its schema and outputs): %w", err)
	}
	prof, err := NotebookProfile(nb)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", nbPath, err)
	}
	r := &Rerun{run: run, oldNB: nb, oldProfile: prof, live: live, liveSpec: liveSpec, newData: newData,
		answers: map[answerKey][]runrecord.ValueChange{}}
	if rec.Data.Format == eda.FormatFolder {
		if r.oldTables, err = notebookTables(nb); err != nil {
			return nil, fmt.Errorf("%s: %w", nbPath, err)
		}
	}
	for _, a := range modelAnswers(rec) {
		r.steps = append(r.steps, a.Steps...)
	}
	if rec.Replies != nil {
		r.replayer = NewReplayer(rec.Replies)
		if r.calls, err = replyCalls(rec); err != nil {
			return nil, fmt.Errorf("%s: %w", run.Manifest, err)
		}
	}
	return r, nil
}

// modelAnswers are the recorded answers in the order the run asked them:
// the exploration's goals, then the questions.
func modelAnswers(r *runrecord.Record) []*agent.Answer {
	var out []*agent.Answer
	if ex := r.Exploration; ex != nil {
		for _, g := range ex.Goals {
			if g.Answer != nil {
				out = append(out, g.Answer)
			}
		}
	}
	for i := range r.Questions {
		out = append(out, r.Questions[i])
	}
	return out
}

// replyCalls are the phase and turn of each recorded reply, in order. The
// run's model calls are its replies but the errors (a refusal of tool
// calling, asked again without tools; the error that stopped the run),
// made in this order: the goals proposed, each goal's (its question then
// its reflection), the ranking of the findings, each question's. An error
// reply has no phase.
func replyCalls(rec *runrecord.Record) ([]agent.ModelCall, error) {
	var calls []agent.ModelCall
	add := func(mc []agent.ModelCall) {
		for _, c := range mc {
			calls = append(calls, agent.ModelCall{Phase: c.Phase, Turn: c.Turn})
		}
	}
	if ex := rec.Exploration; ex != nil && ex.Proposal != nil {
		add(ex.Proposal.Calls)
	}
	answers := modelAnswers(rec)
	goals := len(answers) - len(rec.Questions)
	for _, a := range answers[:goals] {
		add(a.Calls)
	}
	if ex := rec.Exploration; ex != nil && ex.Ranking != nil {
		add(ex.Ranking.Calls)
	}
	for _, a := range answers[goals:] {
		add(a.Calls)
	}
	replies := rec.Replies.Replies
	if n := countOK(replies); n != len(calls) {
		return nil, fmt.Errorf("it records %d model calls and %d model replies that are not errors: "+
			"the replay cannot tell which reply is whose", len(calls), n)
	}
	out := make([]agent.ModelCall, len(replies))
	k := 0
	for i, reply := range replies {
		if reply.Error == "" {
			out[i], k = calls[k], k+1
		}
	}
	return out, nil
}

func countOK(replies []runrecord.Reply) int {
	n := 0
	for _, r := range replies {
		if r.Error == "" {
			n++
		}
	}
	return n
}

// NotebookProfile is the profile the profile cell of nb displayed.
func NotebookProfile(nb *nbformat.Notebook) (*eda.Profile, error) {
	for _, c := range nb.Cells {
		if !c.HasTag(eda.ProfileTag) {
			continue
		}
		for _, o := range c.Outputs {
			if p, ok, err := eda.ProfileFromData(o.Data); ok {
				return p, err
			}
		}
	}
	return nil, fmt.Errorf("no profile cell output (%s) in the notebook", nbformat.MimeProfile)
}

// Cell sources.
const (
	SourceReplayed = "replayed"
	SourceModel    = "model" //houserules:literal where a value came from, not a cell tag
)

// Client is the model client of the replay: the recorded replies, then,
// after the first failing cell, the live model if there is one.
func (r *Rerun) Client() llm.Client { return rerunClient{r} }

type rerunClient struct{ r *Rerun }

func (c rerunClient) Chat(ctx context.Context, req llm.Request, onDelta func(string)) (*llm.Response, error) {
	r := c.r
	r.mu.Lock()
	live := r.failure != nil && r.live != nil
	if live {
		r.asked++
	} else {
		r.replayed++
	}
	r.mu.Unlock()
	if live {
		return r.live.Chat(ctx, req, onDelta)
	}
	if r.replayer == nil {
		return nil, fmt.Errorf("%w: the recorded run asked no model", ErrReplayDiverged)
	}
	return r.replayer.Chat(ctx, req, onDelta)
}

// Model is the recorded model: the agent keeps the recorded run's mode.
func (c rerunClient) Model(ctx context.Context) (*llm.ModelInfo, error) {
	if c.r.replayer == nil {
		return nil, fmt.Errorf("the recorded run asked no model")
	}
	return c.r.replayer.Model(ctx)
}

// The Rerun is the agent's Replay: the model is asked again only where the
// recorded run asked it, and what the checks find on the new data is kept
// for Record.
var _ agent.Replay = (*Rerun)(nil)

// Following says whether the recording is still followed: until a live
// model takes over from a failing cell.
func (r *Rerun) Following() bool { return !r.Live() }

// Asked says whether the recorded run's next model call, after the
// replies played so far, is turn+1 of phase. A refusal of tool calling was
// asked again without tools: the call after it counts. An error that
// stopped the recorded run was asked for: the replay gets it too.
func (r *Rerun) Asked(phase string, turn int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := r.replayed; i < len(r.calls); i++ {
		c := r.calls[i]
		if c.Phase != "" {
			return c.Phase == phase && c.Turn == turn+1
		}
		if !errors.Is(errorKinds[r.run.Record.Replies.Replies[i].ErrorKind], llm.ErrToolsUnsupported) {
			return true
		}
	}
	return false
}

// Found keeps what a check found on the new data.
func (r *Rerun) Found(f agent.Finding) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.findings = append(r.findings, f)
}

// Executor runs the model's cells in k and compares each with the
// recorded one.
func (r *Rerun) Executor(k agent.Executor) agent.Executor { return &rerunExecutor{r: r, k: k} }

type rerunExecutor struct {
	r *Rerun
	k agent.Executor
}

func (e *rerunExecutor) Execute(ctx context.Context, code string, opts kernel.ExecOptions) (*kernel.Execution, error) {
	ex, err := e.k.Execute(ctx, code, opts)
	if ex == nil || err != nil {
		return ex, err
	}
	return ex, e.r.ran(code, ex)
}

// ran takes the outcome of the next model cell.
func (r *Rerun) ran(code string, ex *kernel.Execution) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := len(r.cells)
	if r.failure != nil { // the live model's cells
		r.cells = append(r.cells, runrecord.RerunCell{Source: SourceModel, Status: string(ex.Status)})
		return nil
	}
	if i >= len(r.steps) || r.steps[i].Code != code {
		r.cells = append(r.cells, runrecord.RerunCell{Source: SourceReplayed, Status: string(ex.Status)})
		return fmt.Errorf("%w: model cell %d is not the one recorded", ErrReplayDiverged, i+1)
	}
	st := r.steps[i]
	r.cells = append(r.cells, runrecord.RerunCell{Phase: st.Phase, Turn: st.Turn, Source: SourceReplayed, Status: string(ex.Status), RecordedStatus: st.Status})
	if st.Status != string(kernel.StatusOK) || ex.Status == kernel.StatusOK {
		return nil
	}
	f := &runrecord.CellFailure{Phase: st.Phase, Turn: st.Turn, Cell: i + 1, Code: code, Exception: string(ex.Status)}
	if ex.Error != nil {
		f.Exception = ex.Error.Name + ": " + ex.Error.Value
	} else if ex.Cause != "" {
		f.Exception += ": " + ex.Cause
	}
	f.Cause = likelyCause(f.Exception, code, r.schema)
	r.failure = f
	if r.live != nil {
		f.Model = r.liveSpec
		return nil // the live model hears of the error and goes on
	}
	return f
}

// Failure is the first recorded cell that failed on the new data, or nil.
func (r *Rerun) Failure() *runrecord.CellFailure {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failure
}

// Compare takes the new data's profile: the schema changes from the
// recorded data's, in the recorded column order then the new columns'.
func (r *Rerun) Compare(p *eda.Profile) []runrecord.SchemaChange {
	changes := SchemaDiff(r.oldProfile, p)
	r.mu.Lock()
	r.schema = changes
	r.mu.Unlock()
	return changes
}

// SchemaDiff lists the columns removed, changed in dtype and added from old
// to new.
func SchemaDiff(old, new *eda.Profile) []runrecord.SchemaChange {
	newCols := map[string]string{}
	for _, c := range new.ColumnInfo {
		newCols[c.Name] = c.Dtype
	}
	oldCols := map[string]bool{}
	var out []runrecord.SchemaChange
	for _, c := range old.ColumnInfo {
		oldCols[c.Name] = true
		d, ok := newCols[c.Name]
		switch {
		case !ok:
			out = append(out, runrecord.SchemaChange{Column: c.Name, Change: "removed", Old: c.Dtype})
		case d != c.Dtype:
			out = append(out, runrecord.SchemaChange{Column: c.Name, Change: "dtype", Old: c.Dtype, New: d})
		}
	}
	for _, c := range new.ColumnInfo {
		if !oldCols[c.Name] {
			out = append(out, runrecord.SchemaChange{Column: c.Name, Change: "added", New: c.Dtype})
		}
	}
	return out
}

// likelyCause reads the cause of a failure from the schema changes: a
// removed column the error or the code names, else a column of changed
// type the code names.
func likelyCause(exception, code string, schema []runrecord.SchemaChange) string {
	var added []string
	for _, c := range schema {
		if c.Change == "added" {
			added = append(added, fmt.Sprintf("%q", c.Column))
		}
	}
	for _, c := range schema {
		if c.Change == runrecord.TableRemoved && (mentions(exception, c.Table) || mentions(code, c.Table)) {
			return fmt.Sprintf("table %q is not in the new data (removed or renamed)", c.Table)
		}
	}
	for _, c := range schema {
		if c.Change == "removed" && (mentions(exception, c.Column) || mentions(code, c.Column)) {
			s := fmt.Sprintf("column %q is not in the new data (removed or renamed)", c.Column)
			if len(added) > 0 {
				s += "; new columns: " + strings.Join(added, ", ")
			}
			return s
		}
	}
	for _, c := range schema {
		if c.Change == "dtype" && mentions(code, c.Column) {
			return fmt.Sprintf("column %q changed type from %s to %s", c.Column, c.Old, c.New)
		}
	}
	if len(schema) > 0 {
		var all []string
		for _, c := range schema {
			all = append(all, c.String())
		}
		return "the new data's schema differs (" + strings.Join(all, "; ") + ")"
	}
	return "the new data's values (its columns and types are the recorded ones)"
}

// mentions says whether text names column as a quoted string or an
// attribute.
func mentions(text, column string) bool {
	for _, f := range []string{"'%s'", `"%s"`, ".%s"} {
		if strings.Contains(text, fmt.Sprintf(f, column)) {
			return true
		}
	}
	return false
}

// Record is the "rerun" section of the replay's run.json.
func (r *Rerun) Record() *runrecord.Rerun {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := &runrecord.Rerun{From: r.run.Manifest, RecordedData: r.run.Record.Data.ID(), Data: r.newData, Schema: r.schema,
		Cells: append([]runrecord.RerunCell{}, r.cells...), Failure: r.failure, ReplayedReplies: r.replayed, ModelReplies: r.asked,
		Checks: append([]agent.Finding{}, r.findings...), Method: ValueMethod}
	if rec.Schema == nil {
		rec.Schema = []runrecord.SchemaChange{}
	}
	if r.failure != nil && r.live != nil {
		rec.Model = r.liveSpec
	}
	var keys []answerKey
	for k := range r.answers {
		keys = append(keys, k)
	}
	// The goals first, as the run explored before the questions.
	slices.SortFunc(keys, func(a, b answerKey) int { return cmp.Or(a.question-b.question, a.goal-b.goal) })
	for _, k := range keys {
		rec.Answers = append(rec.Answers, runrecord.RerunAnswer{Question: k.question, Goal: k.goal, Values: r.answers[k]})
	}
	return rec
}

// Live says whether a live model took over (--model) at a failing cell.
func (r *Rerun) Live() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failure != nil && r.live != nil
}

// Recorded is the recorded run.
func (r *Rerun) Recorded() *Run { return r.run }

// RecordedGoals are the goals the recorded run's model proposed, as the
// run screened them; nil when it did not explore.
func (r *Rerun) RecordedGoals() *agent.GoalSet {
	if ex := r.run.Record.Exploration; ex != nil {
		return ex.Proposal
	}
	return nil
}
