// Package nbformat builds, writes and reads Jupyter notebooks in nbformat 4.5.
//
// A run is written as a notebook whose code cells carry the outputs the
// sandboxed kernel produced: the kernel decodes its driver's outputs straight
// into Output, and kernel.Execution.AddToNotebook makes the cell. The
// package imports nothing of the project. The writer is
// deterministic and writes what Jupyter itself writes: keys sorted, one-space
// indentation, multi-line strings as arrays of lines, a trailing newline. The
// same notebook always gives the same bytes, and cell ids are derived from a
// cell's position and content, never drawn at random.
package nbformat

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
)

// The notebook format version this package writes.
const (
	FormatMajor = 4
	FormatMinor = 5
)

// CellType is a cell's kind.
type CellType string

// The three cell types of nbformat 4.
const (
	Markdown CellType = "markdown"
	Code     CellType = "code"
	Raw      CellType = "raw"
)

// Output types (nbformat 4).
const (
	OutputStream        = "stream"
	OutputDisplayData   = "display_data"
	OutputExecuteResult = "execute_result"
	OutputError         = "error"
)

// MimeBundle maps a mime type to its value as raw JSON: a JSON string for
// text and base64 types ("text/plain", "image/png"), any JSON value for JSON
// types ("application/json", "application/...+json").
type MimeBundle = map[string]json.RawMessage

// Notebook is a Jupyter notebook.
type Notebook struct {
	Cells         []*Cell
	Metadata      Metadata
	NBFormat      int // 4
	NBFormatMinor int // 5
	// idSalt goes into the IDs of the cells added (see Branch).
	idSalt string
}

// Branch returns a notebook that goes on from nb's cells (the same cells,
// a slice of its own) on another branch: cells added to it get IDs salted
// with branch, so that branches made from one point and appended to nb one
// after the other keep their cell IDs unique (two branches may add the same
// source at the same index).
func (nb *Notebook) Branch(branch string) *Notebook {
	b := *nb
	b.Cells = slices.Clone(nb.Cells)
	b.idSalt = nb.idSalt + branch + "\x00"
	return &b
}

// Metadata is the notebook-level metadata.
type Metadata struct {
	KernelSpec   *KernelSpec
	LanguageInfo *LanguageInfo
	// Analyst is the run's provenance, written as metadata.analyst: tool
	// version, driver hash, image id, data sha256, model, ... Values are
	// anything encoding/json can marshal; a notebook read back holds them as
	// json.Number, string, bool, nil, []any and map[string]any.
	Analyst map[string]any
	// Extra holds any other metadata keys, kept as they were read.
	Extra map[string]json.RawMessage
}

// KernelSpec is metadata.kernelspec.
type KernelSpec struct {
	Name        string
	DisplayName string
	Language    string
	Extra       map[string]json.RawMessage
}

// LanguageInfo is metadata.language_info.
type LanguageInfo struct {
	Name              string
	Version           string
	MimeType          string
	FileExtension     string
	PygmentsLexer     string
	NBConvertExporter string
	// CodeMirrorMode is a JSON string or object; empty means absent.
	CodeMirrorMode json.RawMessage
	Extra          map[string]json.RawMessage
}

// PythonKernelSpec is the kernelspec of Jupyter's default Python 3 kernel.
func PythonKernelSpec() *KernelSpec {
	return &KernelSpec{Name: "python3", DisplayName: "Python 3", Language: "python"}
}

// PythonLanguageInfo is the language_info ipykernel reports, for the given
// Python version ("" leaves the version out).
func PythonLanguageInfo(version string) *LanguageInfo {
	return &LanguageInfo{
		Name:              "python",
		Version:           version,
		MimeType:          "text/x-python",
		FileExtension:     ".py",
		PygmentsLexer:     "ipython3",
		NBConvertExporter: "python",
		CodeMirrorMode:    json.RawMessage(`{"name":"ipython","version":3}`),
	}
}

// Cell is one notebook cell.
type Cell struct {
	// ID is required in nbformat 4.5: 1 to 64 characters of [a-zA-Z0-9-_],
	// unique in the notebook. The Add methods derive it from the cell's
	// position and content; Marshal fills in any that are empty the same way.
	ID       string
	CellType CellType
	Source   string
	Metadata CellMetadata
	// ExecutionCount is the code cell's prompt number; nil is null (not run).
	ExecutionCount *int
	// Outputs of a code cell.
	Outputs []Output
	// Attachments of a markdown or raw cell, by file name.
	Attachments map[string]MimeBundle
}

// CellMetadata is a cell's metadata.
type CellMetadata struct {
	// Tags are metadata.tags: unique, non-empty, without commas.
	Tags []string
	// SourceHidden and OutputsHidden are metadata.jupyter.source_hidden and
	// .outputs_hidden (JupyterLab collapses the input or output).
	SourceHidden  bool
	OutputsHidden bool
	// JupyterExtra holds other keys of metadata.jupyter, as read.
	JupyterExtra map[string]json.RawMessage
	// Extra holds all other metadata keys (collapsed, scrolled, execution,
	// ...), as read.
	Extra map[string]json.RawMessage
}

// Output is one output of a code cell, in nbformat 4 shape; the kernel's
// driver sends its outputs in this shape too (the JSON tags are the
// driver's, single strings where a notebook file may split lines). Which
// fields are written depends on OutputType:
//
//	stream:          Name ("stdout" | "stderr"), Text
//	display_data:    Data, Metadata
//	execute_result:  Data, Metadata, ExecutionCount (nil is null)
//	error:           EName, EValue, Traceback
type Output struct {
	OutputType     string                     `json:"output_type"`
	Name           string                     `json:"name,omitempty"`
	Text           string                     `json:"text,omitempty"`
	Data           MimeBundle                 `json:"data,omitempty"`
	Metadata       map[string]json.RawMessage `json:"metadata,omitempty"`
	ExecutionCount *int                       `json:"execution_count,omitempty"`
	EName          string                     `json:"ename,omitempty"`
	EValue         string                     `json:"evalue,omitempty"`
	Traceback      []string                   `json:"traceback,omitempty"`
}

// DataString returns a string-valued mime entry ("text/plain", "image/png").
func (o Output) DataString(mime string) (string, bool) {
	raw, ok := o.Data[mime]
	if !ok {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// New returns an empty nbformat 4.5 notebook for a Python 3 kernel.
func New() *Notebook {
	return &Notebook{
		NBFormat:      FormatMajor,
		NBFormatMinor: FormatMinor,
		Metadata: Metadata{
			KernelSpec:   PythonKernelSpec(),
			LanguageInfo: PythonLanguageInfo(""),
		},
	}
}

// SetProvenance sets metadata.analyst[key] = value.
func (nb *Notebook) SetProvenance(key string, value any) {
	if nb.Metadata.Analyst == nil {
		nb.Metadata.Analyst = map[string]any{}
	}
	nb.Metadata.Analyst[key] = value
}

// AddMarkdown appends a markdown cell and returns it.
func (nb *Notebook) AddMarkdown(src string, tags ...string) *Cell {
	return nb.add(&Cell{CellType: Markdown, Source: src}, tags)
}

// AddRaw appends a raw cell and returns it.
func (nb *Notebook) AddRaw(src string, tags ...string) *Cell {
	return nb.add(&Cell{CellType: Raw, Source: src}, tags)
}

// AddCode appends a code cell with its outputs and returns it.
// executionCount is the cell's prompt number; 0 means not run (null).
func (nb *Notebook) AddCode(src string, outputs []Output, executionCount int, tags ...string) *Cell {
	c := &Cell{CellType: Code, Source: src, Outputs: outputs}
	if executionCount > 0 {
		n := executionCount
		c.ExecutionCount = &n
	}
	if c.Outputs == nil {
		c.Outputs = []Output{}
	}
	return nb.add(c, tags)
}

func (nb *Notebook) add(c *Cell, tags []string) *Cell {
	c.AddTags(tags...)
	c.ID = CellID(len(nb.Cells), c.CellType, nb.idSalt+c.Source)
	nb.Cells = append(nb.Cells, c)
	return c
}

// AddTags adds tags to the cell, skipping those it already has.
func (c *Cell) AddTags(tags ...string) {
	for _, t := range tags {
		if !c.HasTag(t) {
			c.Metadata.Tags = append(c.Metadata.Tags, t)
		}
	}
}

// HasTag reports whether the cell has the tag.
func (c *Cell) HasTag(tag string) bool {
	for _, t := range c.Metadata.Tags {
		if t == tag {
			return true
		}
	}
	return false
}

// HideSource sets metadata.jupyter.source_hidden.
func (c *Cell) HideSource() *Cell { c.Metadata.SourceHidden = true; return c }

// HideOutputs sets metadata.jupyter.outputs_hidden.
func (c *Cell) HideOutputs() *Cell { c.Metadata.OutputsHidden = true; return c }

// CellID is the id of a cell at position index (0-based) with the given type
// and source: the first 16 hex digits of a SHA-256 over the three. It is
// unique within a notebook (the position differs) and the same on every run.
func CellID(index int, cellType CellType, source string) string {
	h := sha256.New()
	h.Write([]byte(strconv.Itoa(index)))
	h.Write([]byte{0})
	h.Write([]byte(cellType))
	h.Write([]byte{0})
	h.Write([]byte(source))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// CopyOutputs returns a deep copy of outputs: maps and slices are copied,
// so a notebook does not share memory with the execution it came from.
func CopyOutputs(outputs []Output) []Output {
	out := make([]Output, 0, len(outputs))
	for _, o := range outputs {
		n := Output{
			OutputType: o.OutputType,
			Name:       o.Name,
			Text:       o.Text,
			Data:       copyRawMap(o.Data),
			Metadata:   copyRawMap(o.Metadata),
			EName:      o.EName,
			EValue:     o.EValue,
			Traceback:  append([]string(nil), o.Traceback...),
		}
		if o.ExecutionCount != nil {
			c := *o.ExecutionCount
			n.ExecutionCount = &c
		}
		out = append(out, n)
	}
	return out
}

func copyRawMap(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	c := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		c[k] = append(json.RawMessage(nil), v...)
	}
	return c
}

// Stream returns a stream output ("stdout" or "stderr").
func Stream(name, text string) Output {
	return Output{OutputType: OutputStream, Name: name, Text: text}
}

// DisplayData returns a display_data output.
func DisplayData(data MimeBundle, metadata map[string]json.RawMessage) Output {
	return Output{OutputType: OutputDisplayData, Data: data, Metadata: metadata}
}

// ExecuteResult returns an execute_result output; count 0 means null.
func ExecuteResult(count int, data MimeBundle, metadata map[string]json.RawMessage) Output {
	o := Output{OutputType: OutputExecuteResult, Data: data, Metadata: metadata}
	if count > 0 {
		o.ExecutionCount = &count
	}
	return o
}

// Error returns an error output.
func Error(ename, evalue string, traceback []string) Output {
	return Output{OutputType: OutputError, EName: ename, EValue: evalue, Traceback: traceback}
}

// Text returns s as a mime bundle value (a JSON string).
func Text(s string) json.RawMessage {
	var b bytes.Buffer
	writeString(&b, s)
	return b.Bytes()
}
