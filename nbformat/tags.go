package nbformat

import (
	"strconv"
	"strings"
)

// Tags analyst puts on cells (cell.metadata.tags), read back by the report,
// verify and replay: the one place their names are written. The tags a
// deterministic stage gives its own cells (eda.ProfileTag, eda.TagSetup,
// ...) live with the stage in eda.
const (
	// TagNotebookOnly marks cells that are for notebook readers only — the
	// title and the stage headings — since the report has its own.
	TagNotebookOnly = "notebook-only"
	// TagModel marks the cells the model wrote.
	TagModel = "model"
	// TagFailedAttempt marks a model's cell that failed and was retried.
	TagFailedAttempt = "failed-attempt"
	TagCollapsed     = "collapsed"
	// TagAnswer and TagReflection mark the markdown of an answer and of a
	// reflection's verdict.
	TagAnswer     = "answer"
	TagReflection = "reflection"
	// How a cell that did not finish well ended.
	TagNotRun      = "not-run" // the kernel could no longer run cells
	TagInterrupted = "interrupted"
	TagError       = "error"

	stageTagPrefix = "stage:"
	turnTagPrefix  = "turn-"
)

// StageTag is the cell tag that says which stage a cell belongs to.
func StageTag(stage string) string { return stageTagPrefix + stage }

// TurnTag is the tag of a model's cell written at the given turn.
func TurnTag(turn int) string { return turnTagPrefix + strconv.Itoa(turn) }

// Turn returns the model turn named by the cell's "turn-N" tag.
func (c *Cell) Turn() (int, bool) {
	for _, t := range c.Metadata.Tags {
		if s, ok := strings.CutPrefix(t, turnTagPrefix); ok {
			if n, err := strconv.Atoi(s); err == nil {
				return n, true
			}
		}
	}
	return 0, false
}

// Stage returns the stage named by the cell's "stage:NAME" tag.
func (c *Cell) Stage() (string, bool) {
	for _, t := range c.Metadata.Tags {
		if name, ok := strings.CutPrefix(t, stageTagPrefix); ok {
			return name, true
		}
	}
	return "", false
}
