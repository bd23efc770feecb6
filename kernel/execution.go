package kernel

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"github.com/analyst-cli/analyst/internal/atomicfile"
	"github.com/analyst-cli/analyst/nbformat"
)

// Status is how a cell ended.
type Status string

const (
	StatusOK      Status = "ok"
	StatusError   Status = "error"   // the code raised; the traceback is in Error
	StatusTimeout Status = "timeout" // interrupted at the cell timeout
	// StatusInterrupted: stopped by the caller (its context ended).
	StatusInterrupted Status = "interrupted"
	// StatusDied: the kernel process ended (out of memory, crash, killed).
	StatusDied Status = "died"
)

// ExecError is the exception a cell raised.
type ExecError struct {
	Name      string
	Value     string
	Traceback []string
}

func (e *ExecError) Error() string { return e.Name + ": " + e.Value }

// Chart is a figure the cell produced: its PNG (when rendered) and its
// structured description (kind, title, axes, series).
type Chart struct {
	PNG         []byte
	Description json.RawMessage
	// Kind and Title are read from Description for convenience.
	Kind  string
	Title string
}

// WriteFiles writes the chart as base+".png" (when it has a PNG) and
// base+".json" (its description, when it has one, with a final newline):
// the chart files of a run (NAME_files) and of `kernel exec --out`.
func (c Chart) WriteFiles(base string) error {
	if len(c.PNG) > 0 {
		if err := atomicfile.WriteFile(base+".png", c.PNG); err != nil {
			return err
		}
	}
	if len(c.Description) > 0 {
		return atomicfile.WriteFile(base+".json", append(append([]byte(nil), c.Description...), '\n'))
	}
	return nil
}

// Execution is the result of running one cell.
type Execution struct {
	Code           string
	Status         Status
	ExecutionCount int
	Outputs        []nbformat.Output
	Duration       time.Duration
	// Error is set when the cell raised (also for timeouts: KeyboardInterrupt).
	Error *ExecError
	// StateLost is true when the kernel had to be killed or died: variables
	// from earlier cells are gone and the kernel cannot run more cells.
	StateLost bool
	// Cause explains a died kernel or a kill ("out of memory", ...).
	Cause string
	// OutOfMemory says the kernel died because it reached its memory limit
	// (Cause then says which limit and how to raise it).
	OutOfMemory bool
	// KilledProcesses counts processes the cell left running that the
	// driver killed after it.
	KilledProcesses int
	// outputBytes counts the output replies received for the cell (see
	// Limits.cellOutputBytes).
	outputBytes int64
}

// Stdout is everything the cell wrote to standard output.
func (e *Execution) Stdout() string { return e.stream("stdout") }

// Stderr is everything the cell wrote to standard error.
func (e *Execution) Stderr() string { return e.stream("stderr") }

func (e *Execution) stream(name string) string {
	var b strings.Builder
	for _, o := range e.Outputs {
		if o.OutputType == nbformat.OutputStream && o.Name == name {
			b.WriteString(o.Text)
		}
	}
	return b.String()
}

// Text is the text/plain of the cell's last expression, "" if none.
func (e *Execution) Text() string {
	for _, o := range e.Outputs {
		if o.OutputType == nbformat.OutputExecuteResult {
			s, _ := o.DataString(nbformat.MimePlain)
			return s
		}
	}
	return ""
}

// Charts returns the figures the cell produced, in order.
func (e *Execution) Charts() []Chart {
	var charts []Chart
	for _, o := range e.Outputs {
		desc, ok := o.Data[nbformat.MimeChart]
		if !ok {
			continue
		}
		c := Chart{Description: desc}
		if s, ok := o.DataString(nbformat.MimePNG); ok {
			c.PNG, _ = base64.StdEncoding.DecodeString(s)
		}
		var head struct{ Kind, Title string }
		if json.Unmarshal(desc, &head) == nil {
			c.Kind, c.Title = head.Kind, head.Title
		}
		charts = append(charts, c)
	}
	return charts
}

// AddToNotebook appends the execution to nb as a code cell: its code, a copy
// of its outputs (the notebook does not share memory with the execution) and
// its execution count.
func (e *Execution) AddToNotebook(nb *nbformat.Notebook, tags ...string) *nbformat.Cell {
	return nb.AddCode(e.Code, nbformat.CopyOutputs(e.Outputs), e.ExecutionCount, tags...)
}
