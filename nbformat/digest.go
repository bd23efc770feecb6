package nbformat

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// CellDigest is the sha256 of a cell's type, source, tags and outputs (as
// read back from a file: Read and a notebook built in memory may hold the
// same output in different JSON spellings, so digest what Read returns).
// Execution counts are left out: they number the kernel's executions, not
// what the cell shows.
func CellDigest(c *Cell) string {
	type output struct {
		Type, Name, Text, EName, EValue string
		Data                            MimeBundle `json:",omitempty"`
		Traceback                       []string   `json:",omitempty"`
	}
	d := struct {
		Type    CellType
		Source  string
		Tags    []string
		Outputs []output
	}{Type: c.CellType, Source: c.Source, Tags: c.Metadata.Tags}
	for _, o := range c.Outputs {
		d.Outputs = append(d.Outputs, output{o.OutputType, o.Name, o.Text, o.EName, o.EValue, o.Data, o.Traceback})
	}
	b, _ := json.Marshal(d) // plain strings and raw JSON: cannot fail
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
