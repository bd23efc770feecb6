package nbformat

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// idPattern is nbformat 4.5's cell id rule.
var idPattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// ValidID reports whether id is a valid nbformat 4.5 cell id.
func ValidID(id string) bool { return idPattern.MatchString(id) }

// Validate checks what the nbformat 4.5 schema requires of the notebook and
// the writer cannot repair: the version, cell types and unique valid ids,
// tags (unique, non-empty, no commas), output shapes, and that every JSON
// value held raw is valid JSON with text mime values being strings. Marshal
// calls it; cells with no id are checked with the id Marshal would give them.
func Validate(nb *Notebook) error {
	if nb == nil {
		return errors.New("nbformat: nil notebook")
	}
	var errs []error
	add := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if nb.NBFormat != FormatMajor || nb.NBFormatMinor < FormatMinor {
		add("nbformat %d.%d: want %d.%d", nb.NBFormat, nb.NBFormatMinor, FormatMajor, FormatMinor)
	}
	if ks := nb.Metadata.KernelSpec; ks != nil && (ks.Name == "" || ks.DisplayName == "") {
		add("metadata.kernelspec: name and display_name are required")
	}
	if li := nb.Metadata.LanguageInfo; li != nil && li.Name == "" {
		add("metadata.language_info: name is required")
	}
	seen := map[string]int{}
	for i, c := range nb.Cells {
		if c == nil {
			add("cell %d: nil", i)
			continue
		}
		where := fmt.Sprintf("cell %d", i)
		id := c.ID
		if id == "" {
			id = CellID(i, c.CellType, c.Source)
		}
		if !ValidID(id) {
			add("%s: id %q: want 1 to 64 characters of [a-zA-Z0-9-_]", where, id)
		} else if j, dup := seen[id]; dup {
			add("%s: id %q is also the id of cell %d", where, id, j)
		} else {
			seen[id] = i
		}
		switch c.CellType {
		case Markdown, Raw:
			if len(c.Outputs) > 0 || c.ExecutionCount != nil {
				add("%s: a %s cell has no outputs or execution count", where, c.CellType)
			}
		case Code:
			if c.ExecutionCount != nil && *c.ExecutionCount < 0 {
				add("%s: execution_count %d is negative", where, *c.ExecutionCount)
			}
			if c.Attachments != nil {
				add("%s: a code cell has no attachments", where)
			}
			for j, o := range c.Outputs {
				if err := validateOutput(o); err != nil {
					add("%s: output %d: %v", where, j, err)
				}
			}
		default:
			add("%s: unknown cell_type %q", where, c.CellType)
		}
		tags := map[string]bool{}
		for _, t := range c.Metadata.Tags {
			switch {
			case t == "" || strings.Contains(t, ","):
				add("%s: tag %q: tags are non-empty and have no commas", where, t)
			case tags[t]:
				add("%s: tag %q appears twice", where, t)
			}
			tags[t] = true
		}
		for name, b := range c.Attachments {
			if err := validateBundle(b); err != nil {
				add("%s: attachment %q: %v", where, name, err)
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("nbformat: invalid notebook: %w", errors.Join(errs...))
	}
	return nil
}

func validateOutput(o Output) error {
	switch o.OutputType {
	case OutputStream:
		if o.Name == "" {
			return errors.New("stream: name is required (stdout or stderr)")
		}
	case OutputDisplayData, OutputExecuteResult:
		if o.ExecutionCount != nil && *o.ExecutionCount < 0 {
			return fmt.Errorf("execution_count %d is negative", *o.ExecutionCount)
		}
		if err := validateBundle(o.Data); err != nil {
			return err
		}
		for k, v := range o.Metadata {
			if !json.Valid(v) {
				return fmt.Errorf("metadata %q: invalid JSON", k)
			}
		}
	case OutputError:
	default:
		return fmt.Errorf("unknown output_type %q", o.OutputType)
	}
	return nil
}

func validateBundle(b MimeBundle) error {
	for mime, raw := range b {
		if !json.Valid(raw) {
			return fmt.Errorf("data %q: invalid JSON", mime)
		}
		if isJSONMime(mime) {
			continue
		}
		v, err := rawTree(raw)
		if err != nil {
			return fmt.Errorf("data %q: %v", mime, err)
		}
		if _, ok := joinIfLines(v).(string); !ok {
			return fmt.Errorf("data %q: want a string (only JSON mime types hold other values)", mime)
		}
	}
	return nil
}
