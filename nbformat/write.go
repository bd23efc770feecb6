package nbformat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/analyst-cli/analyst/internal/atomicfile"
)

// Marshal returns the notebook as Jupyter writes it: JSON with keys sorted,
// one-space indentation, non-ASCII characters as they are, multi-line strings
// (sources, stream text, text/* and SVG data) as arrays of lines that each
// keep their line ending, and a trailing newline. The same notebook always
// gives the same bytes. Cells without an id get CellID's (the notebook is not
// changed). The notebook is validated first (see Validate).
func Marshal(nb *Notebook) ([]byte, error) {
	return marshal(nb, false)
}

// MarshalCompact is Marshal without the indentation and the spaces after
// separators (Python's separators=(",", ":")): the same notebook, which
// Jupyter reads and rewrites with its indentation, in about two thirds of
// the bytes. Line-based diffs (git diff) of such a file are one line, so
// it suits notebooks that are archived rather than edited (eval cases); a
// notebook-aware diff (nbdime) reads it as any other.
func MarshalCompact(nb *Notebook) ([]byte, error) {
	return marshal(nb, true)
}

func marshal(nb *Notebook, compact bool) ([]byte, error) {
	if nb == nil {
		return nil, fmt.Errorf("nbformat: nil notebook")
	}
	if err := Validate(nb); err != nil {
		return nil, err
	}
	tree, err := notebookTree(nb)
	if err != nil {
		return nil, err
	}
	e := encoder{compact: compact}
	e.value(tree, 0)
	e.buf.WriteByte('\n')
	return e.buf.Bytes(), nil
}

// Write writes the notebook to w (see Marshal).
func Write(w io.Writer, nb *Notebook) error {
	b, err := Marshal(nb)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// WriteFile writes the notebook to path atomically: to a temporary file in
// the same folder, synced, then renamed over path. The file's mode is 0644.
func WriteFile(path string, nb *Notebook) error {
	return writeFile(path, nb, Marshal)
}

// WriteFileCompact is WriteFile with MarshalCompact's bytes.
func WriteFileCompact(path string, nb *Notebook) error {
	return writeFile(path, nb, MarshalCompact)
}

func writeFile(path string, nb *Notebook, marshal func(*Notebook) ([]byte, error)) error {
	b, err := marshal(nb)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, b); err != nil {
		return fmt.Errorf("writing notebook: %w", err)
	}
	return nil
}

// ---- the notebook as a JSON tree -------------------------------------------
//
// The tree holds: object (map[string]any), []any, lines ([]string, written
// as an array of strings), string, json.Number, int, bool and nil.

type object = map[string]any

func notebookTree(nb *Notebook) (object, error) {
	cells := make([]any, 0, len(nb.Cells))
	for i, c := range nb.Cells {
		t, err := cellTree(i, c)
		if err != nil {
			return nil, fmt.Errorf("nbformat: cell %d: %w", i, err)
		}
		cells = append(cells, t)
	}
	meta, err := metadataTree(&nb.Metadata)
	if err != nil {
		return nil, fmt.Errorf("nbformat: metadata: %w", err)
	}
	return object{
		"cells":          cells,
		"metadata":       meta,
		"nbformat":       nb.NBFormat,
		"nbformat_minor": nb.NBFormatMinor,
	}, nil
}

func metadataTree(m *Metadata) (object, error) {
	t, err := extraTree(m.Extra)
	if err != nil {
		return nil, err
	}
	if ks := m.KernelSpec; ks != nil {
		k, err := extraTree(ks.Extra)
		if err != nil {
			return nil, fmt.Errorf("kernelspec: %w", err)
		}
		k["name"] = ks.Name
		k["display_name"] = ks.DisplayName
		if ks.Language != "" {
			k["language"] = ks.Language
		}
		t["kernelspec"] = k
	}
	if li := m.LanguageInfo; li != nil {
		l, err := extraTree(li.Extra)
		if err != nil {
			return nil, fmt.Errorf("language_info: %w", err)
		}
		l["name"] = li.Name
		for key, v := range map[string]string{
			"version":            li.Version,
			"mimetype":           li.MimeType,
			"file_extension":     li.FileExtension,
			"pygments_lexer":     li.PygmentsLexer,
			"nbconvert_exporter": li.NBConvertExporter,
		} {
			if v != "" {
				l[key] = v
			}
		}
		if len(li.CodeMirrorMode) > 0 {
			v, err := rawTree(li.CodeMirrorMode)
			if err != nil {
				return nil, fmt.Errorf("language_info.codemirror_mode: %w", err)
			}
			l["codemirror_mode"] = v
		}
		t["language_info"] = l
	}
	if m.Analyst != nil {
		b, err := json.Marshal(m.Analyst)
		if err != nil {
			return nil, fmt.Errorf("analyst: %w", err)
		}
		v, err := rawTree(b)
		if err != nil {
			return nil, fmt.Errorf("analyst: %w", err)
		}
		t["analyst"] = v
	}
	return t, nil
}

func cellTree(i int, c *Cell) (object, error) {
	id := c.ID
	if id == "" {
		id = CellID(i, c.CellType, c.Source)
	}
	meta, err := cellMetadataTree(&c.Metadata)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	t := object{
		"id":        id,
		"cell_type": string(c.CellType),
		"metadata":  meta,
		"source":    splitLines(c.Source),
	}
	if c.CellType == Code {
		if c.ExecutionCount != nil {
			t["execution_count"] = *c.ExecutionCount
		} else {
			t["execution_count"] = nil
		}
		outs := make([]any, 0, len(c.Outputs))
		for j, o := range c.Outputs {
			ot, err := outputTree(o)
			if err != nil {
				return nil, fmt.Errorf("output %d: %w", j, err)
			}
			outs = append(outs, ot)
		}
		t["outputs"] = outs
	}
	if c.Attachments != nil {
		att := object{}
		for name, bundle := range c.Attachments {
			b, err := bundleTree(bundle)
			if err != nil {
				return nil, fmt.Errorf("attachment %q: %w", name, err)
			}
			att[name] = b
		}
		t["attachments"] = att
	}
	return t, nil
}

func cellMetadataTree(m *CellMetadata) (object, error) {
	t, err := extraTree(m.Extra)
	if err != nil {
		return nil, err
	}
	if len(m.Tags) > 0 {
		tags := make([]any, len(m.Tags))
		for i, tag := range m.Tags {
			tags[i] = tag
		}
		t["tags"] = tags
	}
	j, err := extraTree(m.JupyterExtra)
	if err != nil {
		return nil, fmt.Errorf("jupyter: %w", err)
	}
	if m.SourceHidden {
		j["source_hidden"] = true
	}
	if m.OutputsHidden {
		j["outputs_hidden"] = true
	}
	if len(j) > 0 {
		t["jupyter"] = j
	}
	return t, nil
}

func outputTree(o Output) (object, error) {
	t := object{"output_type": o.OutputType}
	switch o.OutputType {
	case OutputStream:
		t["name"] = o.Name
		t["text"] = splitLines(o.Text)
	case OutputDisplayData, OutputExecuteResult:
		data, err := bundleTree(o.Data)
		if err != nil {
			return nil, fmt.Errorf("data: %w", err)
		}
		meta, err := extraTree(o.Metadata)
		if err != nil {
			return nil, fmt.Errorf("metadata: %w", err)
		}
		t["data"] = data
		t["metadata"] = meta
		if o.OutputType == OutputExecuteResult {
			if o.ExecutionCount != nil {
				t["execution_count"] = *o.ExecutionCount
			} else {
				t["execution_count"] = nil
			}
		}
	case OutputError:
		tb := make([]any, len(o.Traceback))
		for i, line := range o.Traceback {
			tb[i] = line
		}
		t["ename"] = o.EName
		t["evalue"] = o.EValue
		t["traceback"] = tb
	default:
		return nil, fmt.Errorf("unknown output_type %q", o.OutputType)
	}
	return t, nil
}

// bundleTree converts a mime bundle the way nbformat writes one: JSON types
// stay JSON values, text types are split into lines, base64 images are one
// string without a trailing newline.
func bundleTree(b MimeBundle) (object, error) {
	t := object{}
	for mime, raw := range b {
		v, err := rawTree(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", mime, err)
		}
		if !isJSONMime(mime) {
			v = joinIfLines(v)
			if s, ok := v.(string); ok {
				switch {
				case splitMime(mime):
					v = splitLines(s)
				case isBase64Mime(mime):
					v = strings.TrimRight(s, "\n")
				}
			}
		}
		t[mime] = v
	}
	return t, nil
}

// isJSONMime is nbformat's rule: application/json and application/...+json
// values are JSON, not strings.
func isJSONMime(mime string) bool {
	return mime == MimeJSON ||
		(strings.HasPrefix(mime, "application/") && strings.HasSuffix(mime, "+json"))
}

// splitMime is nbformat's rule for values written as arrays of lines.
func splitMime(mime string) bool {
	return strings.HasPrefix(mime, "text/") || mime == MimeJavaScript || mime == MimeSVG
}

// isBase64Mime: binary images, stored as base64 text.
func isBase64Mime(mime string) bool {
	return strings.HasPrefix(mime, "image/") && mime != MimeSVG
}

// joinIfLines turns an array of strings into one string (a multi-line value
// given in list form); anything else is returned as it is.
func joinIfLines(v any) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	var b strings.Builder
	for _, item := range list {
		s, ok := item.(string)
		if !ok {
			return v
		}
		b.WriteString(s)
	}
	return b.String()
}

func extraTree(m map[string]json.RawMessage) (object, error) {
	t := object{}
	for k, raw := range m {
		v, err := rawTree(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		t[k] = v
	}
	return t, nil
}

// rawTree decodes one JSON value, keeping numbers as they were written.
func rawTree(raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, fmt.Errorf("empty JSON value")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("invalid JSON: more than one value")
	}
	return v, nil
}

// splitLines splits s after each line ending the way Python's
// str.splitlines(keepends=True) does, which is how nbformat splits text.
func splitLines(s string) []string {
	lines := []string{}
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		end := -1
		switch r {
		case '\r':
			end = i + size
			if end < len(s) && s[end] == '\n' {
				end++
			}
		case '\n', '\v', '\f', '\x1c', '\x1d', '\x1e', '\u0085', '\u2028', '\u2029':
			end = i + size
		}
		if end < 0 {
			i += size
			continue
		}
		lines = append(lines, s[start:end])
		start, i = end, end
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}

// ---- the encoder -----------------------------------------------------------

// encoder writes the tree as Python's json.dumps(indent=1, sort_keys=True,
// ensure_ascii=False, separators=(",", ": ")) does; compact, as
// json.dumps(sort_keys=True, ensure_ascii=False, separators=(",", ":")).
type encoder struct {
	buf     bytes.Buffer
	compact bool
}

func (e *encoder) newline(depth int) {
	if e.compact {
		return
	}
	e.buf.WriteByte('\n')
	for range depth {
		e.buf.WriteByte(' ')
	}
}

func (e *encoder) value(v any, depth int) {
	switch v := v.(type) {
	case nil:
		e.buf.WriteString("null")
	case bool:
		e.buf.WriteString(strconv.FormatBool(v))
	case int:
		e.buf.WriteString(strconv.Itoa(v))
	case json.Number:
		e.buf.WriteString(string(v))
	case string:
		writeString(&e.buf, v)
	case []string:
		if len(v) == 0 {
			e.buf.WriteString("[]")
			return
		}
		e.buf.WriteByte('[')
		for i, s := range v {
			if i > 0 {
				e.buf.WriteByte(',')
			}
			e.newline(depth + 1)
			writeString(&e.buf, s)
		}
		e.newline(depth)
		e.buf.WriteByte(']')
	case []any:
		if len(v) == 0 {
			e.buf.WriteString("[]")
			return
		}
		e.buf.WriteByte('[')
		for i, item := range v {
			if i > 0 {
				e.buf.WriteByte(',')
			}
			e.newline(depth + 1)
			e.value(item, depth+1)
		}
		e.newline(depth)
		e.buf.WriteByte(']')
	case map[string]any:
		if len(v) == 0 {
			e.buf.WriteString("{}")
			return
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		// Byte order of UTF-8 is code point order, which is Python's.
		sort.Strings(keys)
		e.buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				e.buf.WriteByte(',')
			}
			e.newline(depth + 1)
			writeString(&e.buf, k)
			e.buf.WriteByte(':')
			if !e.compact {
				e.buf.WriteByte(' ')
			}
			e.value(v[k], depth+1)
		}
		e.newline(depth)
		e.buf.WriteByte('}')
	default:
		// The tree is built in this file; anything else is a bug here.
		panic(fmt.Sprintf("nbformat: unexpected %T in JSON tree", v))
	}
}

// writeString writes s as a JSON string the way Python's json module does
// with ensure_ascii=False: only '"', '\\' and control characters are escaped.
func writeString(buf *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	buf.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				buf.WriteString(`\"`)
			case '\\':
				buf.WriteString(`\\`)
			case '\n':
				buf.WriteString(`\n`)
			case '\r':
				buf.WriteString(`\r`)
			case '\t':
				buf.WriteString(`\t`)
			case '\b':
				buf.WriteString(`\b`)
			case '\f':
				buf.WriteString(`\f`)
			default:
				if c < 0x20 {
					buf.WriteString(`\u00`)
					buf.WriteByte(hex[c>>4])
					buf.WriteByte(hex[c&0xf])
				} else {
					buf.WriteByte(c)
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf.WriteString("\uFFFD") // invalid UTF-8 becomes U+FFFD, as in encoding/json
		} else {
			buf.WriteString(s[i : i+size])
		}
		i += size
	}
	buf.WriteByte('"')
}
