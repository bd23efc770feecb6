package pipeline

import "time"

// Event is a step of a run, for progress displays.
type Event struct {
	Time    time.Time `json:"time"`
	Type    EventType `json:"type"`
	Stage   string    `json:"stage,omitempty"`
	Cell    int       `json:"cell,omitempty"`
	Turn    int       `json:"turn,omitempty"`    // model-turn, and cells of model stages
	Tokens  int       `json:"tokens,omitempty"`  // model-turn: the run's tokens so far
	Retries int       `json:"retries,omitempty"` // model-turn: model requests retried so far
	// Status is, for stage-end, a report.StageStatus; for run-end
	// report.StatusOK or report.StatusFailed; for cell, the kernel.Status of
	// the cell (or the model's step).
	Status   string        `json:"status,omitempty"`
	Duration time.Duration `json:"duration_ns,omitempty"`
	Message  string        `json:"message,omitempty"`
	// Progress inside a long cell (type progress): Done of Total Units,
	// such as 312 of 529 MiB or 7 of 10 columns; Message says it in words.
	Done  int64  `json:"done,omitempty"`
	Total int64  `json:"total,omitempty"`
	Unit  string `json:"unit,omitempty"`
}

// EventType is what an Event reports.
type EventType string

const (
	EventStageStart EventType = "stage-start"
	EventProgress   EventType = "progress" // how far a long cell has got
	EventCell       EventType = "cell"
	EventModelTurn  EventType = "model-turn"
	EventNotice     EventType = "notice"
	EventStageEnd   EventType = "stage-end"
	EventRunEnd     EventType = "run-end"
)
