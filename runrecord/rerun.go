package runrecord

import (
	"fmt"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/llm"
)

// Recording is every model reply of a run, in order and in full (content,
// tool calls, usage, finish reason, as received), and what the server said
// about the model. run.json keeps it under "replies"; analyst replay plays
// it back instead of a model server.
type Recording struct {
	Model   *llm.ModelInfo `json:"model"`
	Replies []Reply        `json:"replies"`
}

// Reply is one Chat call's reply, or its error.
type Reply struct {
	Message      llm.Message `json:"message"`
	Usage        llm.Usage   `json:"usage"`
	Model        string      `json:"model,omitempty"`
	FinishReason string      `json:"finish_reason,omitempty"`
	Error        string      `json:"error,omitempty"`
	// ErrorKind is the kind of Error the agent acts on (errorKinds), so a
	// replay takes the same turn: a refusal of tool calling switches it to
	// code-block mode as it did the run.
	ErrorKind string `json:"error_kind,omitempty"`
	// Overrun is the client's error on a reply it cut at its size bound
	// (llm.Response.Overrun), played back as the same kind.
	Overrun string `json:"overrun,omitempty"`
	// Stream is the conversation the call was part of when several ran at
	// once (WithStream: "question-2" of a run's independent questions); ""
	// for the run's one conversation. A replay plays each stream's replies
	// in their order, whatever order the streams' calls come in.
	Stream string `json:"stream,omitempty"`
}

// Rerun is what run.json records under "rerun" for a replay on new
// data.
type Rerun struct {
	// From is the recorded run's run.json; RecordedData its data.
	From         string         `json:"from"`
	RecordedData DataID         `json:"recorded_data"`
	Data         DataID         `json:"data"`
	Schema       []SchemaChange `json:"schema_changes"`
	// Cells are the model cells, in order, with where their code came from.
	Cells   []RerunCell  `json:"cells"`
	Failure *CellFailure `json:"failure,omitempty"`
	// Model is the live model that took over at Failure (--model).
	Model           string `json:"model,omitempty"`
	ReplayedReplies int    `json:"replayed_replies"`
	ModelReplies    int    `json:"model_replies"`
	// Checks are what the agent's checks found on the new data where a run
	// would have told the model, or asked it again (agent.Replay): the
	// model was asked again only where the recorded run asked it.
	Checks []agent.Finding `json:"checks"`
	// Answers are the named values of each exploration goal and question,
	// old → new.
	Answers []RerunAnswer `json:"answers,omitempty"`
	// Method says how the new values were found (ValueMethod).
	Method string `json:"method"`
}

// RerunAnswer is the named values of a question or of an exploration goal,
// as recorded (old) and as found in the new outputs (new).
type RerunAnswer struct {
	Question int           `json:"question,omitempty"` // from 1
	Goal     int           `json:"goal,omitempty"`     // from 1
	Values   []ValueChange `json:"values"`
}

// RerunCell is one model cell of the replay: where its code came from and
// how it ended on the new data and in the recording.
type RerunCell struct {
	Phase string `json:"phase"`
	Turn  int    `json:"turn"`
	// Source is "replayed" (the recorded reply's code) or "model" (the
	// live model's, after the first failing cell; --model).
	Source         string `json:"source"`
	Status         string `json:"status"`
	RecordedStatus string `json:"recorded_status,omitempty"`
}

// CellFailure is a recorded model cell that ran without error on the
// recorded data and fails on the new data.
type CellFailure struct {
	Phase     string `json:"phase"`
	Turn      int    `json:"turn"`
	Cell      int    `json:"cell"` // the model cell's place among the model cells, from 1
	Code      string `json:"code"`
	Exception string `json:"exception"` // "KeyError: 'revenue'"
	// Cause is the likely cause, read from the schema changes.
	Cause string `json:"cause"`
	// Model is the model that was asked to go on from here (--model).
	Model string `json:"model,omitempty"`
}

func (e *CellFailure) Error() string {
	return fmt.Sprintf("%s, model cell %d (turn %d) fails on the new data: %s (it ran without error on the recorded data). Likely cause: %s. "+
		"The recorded code is not repaired; to have a model repair it from this cell, replay with --model MODEL",
		e.Phase, e.Cell, e.Turn, e.Exception, e.Cause)
}

// SchemaChange is a difference between the recorded data's columns and the
// new data's: a column added or removed, or its dtype changed; for a
// folder, also a table added or removed (Column ""), and Table names the
// table of a column's change.
type SchemaChange struct {
	Table  string `json:"table,omitempty"`
	Column string `json:"column"`
	Change string `json:"change"` // added, removed, dtype; table added, table removed
	Old    string `json:"old,omitempty"`
	New    string `json:"new,omitempty"`
}

// Changes of a folder's tables.
const (
	TableAdded   = "table added"
	TableRemoved = "table removed"
)

func (c SchemaChange) String() string {
	switch c.Change {
	case TableAdded:
		return fmt.Sprintf("table %q added (%s)", c.Table, c.New)
	case TableRemoved:
		return fmt.Sprintf("table %q removed (was %s)", c.Table, c.Old)
	}
	if c.Table != "" {
		return fmt.Sprintf("table %q: %s", c.Table, SchemaChange{Column: c.Column, Change: c.Change, Old: c.Old, New: c.New})
	}
	switch c.Change {
	case "added":
		return fmt.Sprintf("column %q added (%s)", c.Column, c.New)
	case "removed":
		return fmt.Sprintf("column %q removed (was %s)", c.Column, c.Old)
	}
	return fmt.Sprintf("column %q changed type: %s → %s", c.Column, c.Old, c.New)
}

// ValueChange is one named value: as the recorded run gave it (Old) and as
// found in the new outputs (New, when Located).
type ValueChange struct {
	Name    string `json:"name"`
	Old     string `json:"old"`
	New     string `json:"new,omitempty"`
	Located bool   `json:"located"`
	// Where is the place the value was read from ("cell 14 (question-1,
	// turn 2), output 1, word 3"), Cell that cell's id; Why says why there
	// is no new value.
	Where string `json:"where,omitempty"`
	Cell  string `json:"cell,omitempty"`
	Why   string `json:"why,omitempty"`
}

// DataID identifies a dataset, as a replay on new data records the
// recorded run's and its own (Data.ID).
type DataID struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
	// Format is eda.FormatFolder for a folder (its files are the record's
	// Inputs); Paths the files and folders of a set given one by one.
	Format string   `json:"format,omitempty"`
	Paths  []string `json:"paths,omitempty"`
	// MainTable is a folder's main table, bound to df.
	MainTable string `json:"main_table,omitempty"`
}

// ID is the data's identity as a replay records it.
func (d Data) ID() DataID {
	return DataID{Name: d.Name, Path: d.Path, SHA256: d.SHA256, Bytes: d.Bytes, Format: d.Format, Paths: d.Paths, MainTable: d.MainTable}
}
