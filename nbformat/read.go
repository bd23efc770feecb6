package nbformat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// Read reads an nbformat 4 notebook. Multi-line values may be strings or
// arrays of lines (both are valid nbformat); they are joined into strings.
// A notebook older than 4.5 is upgraded: cells without an id get CellID's.
// Numbers in JSON values (output data, metadata) keep their written form.
// Top-level keys other than cells, metadata, nbformat and nbformat_minor
// (which the 4.5 schema does not allow) are dropped.
func Read(r io.Reader) (*Notebook, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading notebook: %w", err)
	}
	nb, err := parse(b)
	if err != nil {
		return nil, fmt.Errorf("reading notebook: %w", err)
	}
	return nb, nil
}

// ReadFile reads the notebook at path (see Read).
func ReadFile(path string) (*Notebook, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading notebook: %w", err)
	}
	defer f.Close()
	nb, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return nb, nil
}

type fileNotebook struct {
	Cells         []json.RawMessage          `json:"cells"`
	Metadata      map[string]json.RawMessage `json:"metadata"`
	NBFormat      *int                       `json:"nbformat"`
	NBFormatMinor *int                       `json:"nbformat_minor"`
}

type fileCell struct {
	ID             *string                               `json:"id"`
	CellType       string                                `json:"cell_type"`
	Source         json.RawMessage                       `json:"source"`
	Metadata       map[string]json.RawMessage            `json:"metadata"`
	ExecutionCount *int                                  `json:"execution_count"`
	Outputs        []json.RawMessage                     `json:"outputs"`
	Attachments    map[string]map[string]json.RawMessage `json:"attachments"`
}

type fileOutput struct {
	OutputType     string                     `json:"output_type"`
	Name           string                     `json:"name"`
	Text           json.RawMessage            `json:"text"`
	Data           map[string]json.RawMessage `json:"data"`
	Metadata       map[string]json.RawMessage `json:"metadata"`
	ExecutionCount *int                       `json:"execution_count"`
	EName          string                     `json:"ename"`
	EValue         string                     `json:"evalue"`
	Traceback      []string                   `json:"traceback"`
}

func parse(b []byte) (*Notebook, error) {
	var f fileNotebook
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("not a notebook: %w", err)
	}
	if f.NBFormat == nil {
		return nil, fmt.Errorf("not a notebook: no nbformat field")
	}
	if *f.NBFormat != FormatMajor {
		return nil, fmt.Errorf("nbformat %d is not supported (only nbformat 4)", *f.NBFormat)
	}
	nb := &Notebook{NBFormat: FormatMajor, NBFormatMinor: FormatMinor}
	if f.NBFormatMinor != nil && *f.NBFormatMinor > FormatMinor {
		nb.NBFormatMinor = *f.NBFormatMinor
	}
	var err error
	if nb.Metadata, err = parseMetadata(f.Metadata); err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	for i, raw := range f.Cells {
		c, err := parseCell(raw)
		if err != nil {
			return nil, fmt.Errorf("cell %d: %w", i, err)
		}
		if c.ID == "" {
			c.ID = CellID(i, c.CellType, c.Source)
		}
		nb.Cells = append(nb.Cells, c)
	}
	return nb, nil
}

func parseMetadata(m map[string]json.RawMessage) (Metadata, error) {
	var md Metadata
	if raw, ok := m["kernelspec"]; ok {
		fields, err := objectFields(raw)
		if err != nil {
			return md, fmt.Errorf("kernelspec: %w", err)
		}
		ks := &KernelSpec{}
		for key, dst := range map[string]*string{"name": &ks.Name, "display_name": &ks.DisplayName, "language": &ks.Language} {
			if err := takeString(fields, key, dst); err != nil {
				return md, fmt.Errorf("kernelspec: %w", err)
			}
		}
		ks.Extra = nonEmpty(fields)
		md.KernelSpec = ks
		delete(m, "kernelspec")
	}
	if raw, ok := m["language_info"]; ok {
		fields, err := objectFields(raw)
		if err != nil {
			return md, fmt.Errorf("language_info: %w", err)
		}
		li := &LanguageInfo{}
		for key, dst := range map[string]*string{
			"name": &li.Name, "version": &li.Version, "mimetype": &li.MimeType,
			"file_extension": &li.FileExtension, "pygments_lexer": &li.PygmentsLexer,
			"nbconvert_exporter": &li.NBConvertExporter,
		} {
			if err := takeString(fields, key, dst); err != nil {
				return md, fmt.Errorf("language_info: %w", err)
			}
		}
		if cm, ok := fields["codemirror_mode"]; ok {
			li.CodeMirrorMode = cm
			delete(fields, "codemirror_mode")
		}
		li.Extra = nonEmpty(fields)
		md.LanguageInfo = li
		delete(m, "language_info")
	}
	if raw, ok := m["analyst"]; ok {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var a map[string]any
		if err := dec.Decode(&a); err == nil && a != nil {
			md.Analyst = a
			delete(m, "analyst")
		}
		// Anything else than an object stays in Extra, as it was.
	}
	md.Extra = nonEmpty(m)
	return md, nil
}

func parseCell(raw json.RawMessage) (*Cell, error) {
	var f fileCell
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, err
	}
	c := &Cell{CellType: CellType(f.CellType)}
	switch c.CellType {
	case Markdown, Code, Raw:
	default:
		return nil, fmt.Errorf("unknown cell_type %q", f.CellType)
	}
	if f.ID != nil {
		c.ID = *f.ID
	}
	var err error
	if c.Source, err = multiline(f.Source); err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	if c.Metadata, err = parseCellMetadata(f.Metadata); err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	if c.CellType == Code {
		c.ExecutionCount = f.ExecutionCount
		c.Outputs = []Output{}
		for j, raw := range f.Outputs {
			o, err := parseOutput(raw)
			if err != nil {
				return nil, fmt.Errorf("output %d: %w", j, err)
			}
			c.Outputs = append(c.Outputs, o)
		}
	}
	if f.Attachments != nil {
		c.Attachments = map[string]MimeBundle{}
		for name, bundle := range f.Attachments {
			if c.Attachments[name], err = parseBundle(bundle); err != nil {
				return nil, fmt.Errorf("attachment %q: %w", name, err)
			}
		}
	}
	return c, nil
}

func parseCellMetadata(m map[string]json.RawMessage) (CellMetadata, error) {
	var md CellMetadata
	if raw, ok := m["tags"]; ok {
		if err := json.Unmarshal(raw, &md.Tags); err != nil {
			return md, fmt.Errorf("tags: want a list of strings: %w", err)
		}
		delete(m, "tags")
	}
	if raw, ok := m["jupyter"]; ok {
		fields, err := objectFields(raw)
		if err == nil {
			// true becomes the field; false stays as written, so that a
			// notebook read and written again keeps its bytes.
			for key, dst := range map[string]*bool{"source_hidden": &md.SourceHidden, "outputs_hidden": &md.OutputsHidden} {
				if v, ok := fields[key]; ok && bytes.Equal(bytes.TrimSpace(v), []byte("true")) {
					*dst = true
					delete(fields, key)
				}
			}
			md.JupyterExtra = nonEmpty(fields)
			delete(m, "jupyter")
		}
	}
	md.Extra = nonEmpty(m)
	return md, nil
}

func parseOutput(raw json.RawMessage) (Output, error) {
	var f fileOutput
	if err := json.Unmarshal(raw, &f); err != nil {
		return Output{}, err
	}
	o := Output{OutputType: f.OutputType}
	var err error
	switch f.OutputType {
	case OutputStream:
		o.Name = f.Name
		if o.Text, err = multiline(f.Text); err != nil {
			return o, fmt.Errorf("text: %w", err)
		}
	case OutputDisplayData, OutputExecuteResult:
		if o.Data, err = parseBundle(f.Data); err != nil {
			return o, fmt.Errorf("data: %w", err)
		}
		o.Metadata = f.Metadata
		if o.Metadata == nil {
			o.Metadata = map[string]json.RawMessage{}
		}
		if f.OutputType == OutputExecuteResult {
			o.ExecutionCount = f.ExecutionCount
		}
	case OutputError:
		o.EName, o.EValue, o.Traceback = f.EName, f.EValue, f.Traceback
		if o.Traceback == nil {
			o.Traceback = []string{}
		}
	default:
		return o, fmt.Errorf("unknown output_type %q", f.OutputType)
	}
	return o, nil
}

// parseBundle joins text values given as arrays of lines, as nbformat does
// when it reads; JSON mime types are kept as they are.
func parseBundle(b map[string]json.RawMessage) (MimeBundle, error) {
	out := MimeBundle{}
	for mime, raw := range b {
		if isJSONMime(mime) {
			out[mime] = raw
			continue
		}
		s, err := multiline(raw)
		if err != nil {
			// Not text: keep it; Validate reports it if it matters.
			out[mime] = raw
			continue
		}
		if isBase64Mime(mime) {
			s = strings.TrimRight(s, "\n")
		}
		out[mime] = Text(s)
	}
	return out, nil
}

// multiline reads an nbformat multi-line string: a string or a list of
// strings. Absent or null is "".
func multiline(raw json.RawMessage) (string, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return "", nil
	}
	if t[0] == '[' {
		var lines []string
		if err := json.Unmarshal(t, &lines); err != nil {
			return "", fmt.Errorf("want a string or a list of strings: %w", err)
		}
		return strings.Join(lines, ""), nil
	}
	var s string
	if err := json.Unmarshal(t, &s); err != nil {
		return "", fmt.Errorf("want a string or a list of strings: %w", err)
	}
	return s, nil
}

func objectFields(raw json.RawMessage) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("want an object")
	}
	return m, nil
}

func takeString(fields map[string]json.RawMessage, key string, dst *string) error {
	raw, ok := fields[key]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%s: want a string", key)
	}
	delete(fields, key)
	return nil
}

func nonEmpty(m map[string]json.RawMessage) map[string]json.RawMessage {
	if len(m) == 0 {
		return nil
	}
	return m
}
