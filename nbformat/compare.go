package nbformat

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
)

// CompareOutputs lists how a re-run's outputs differ from the original's in
// what a reader sees: output types, stream text, error names, text/plain and
// PNG bytes. Mime types only one side produces (the kernel's chart
// descriptions, say) are not compared. An empty result means the same.
func CompareOutputs(ours, theirs []Output) []string {
	var diffs []string
	if a, b := sketch(ours), sketch(theirs); a != b {
		diffs = append(diffs, fmt.Sprintf("outputs differ:\n--- ours\n%s--- theirs\n%s", a, b))
	}
	a, b := images(ours), images(theirs)
	if len(a) != len(b) {
		return append(diffs, fmt.Sprintf("%d images, re-run has %d", len(a), len(b)))
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			diffs = append(diffs, fmt.Sprintf("image %d: PNG bytes differ (%d vs %d bytes)", i+1, len(a[i]), len(b[i])))
		}
	}
	return diffs
}

// sketch is the outputs' types, stream text, errors and text/plain.
func sketch(outs []Output) string {
	var b strings.Builder
	for _, o := range joinStreams(outs) {
		b.WriteString(o.OutputType)
		switch o.OutputType {
		case OutputStream:
			b.WriteString(" " + o.Name + ": " + o.Text)
		case OutputError:
			b.WriteString(" " + o.EName + ": " + o.EValue)
		default:
			s, _ := o.DataString(MimePlain)
			b.WriteString(" " + MimePlain + ": " + s)
			if _, ok := o.Data[MimePNG]; ok {
				b.WriteString(" +" + MimePNG)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func images(outs []Output) [][]byte {
	var all [][]byte
	for _, o := range outs {
		s, ok := o.DataString(MimePNG)
		if !ok {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
		if err != nil {
			b = []byte(s)
		}
		all = append(all, b)
	}
	return all
}

// joinStreams is outs with each run of stream outputs of one name joined
// into one: a kernel's flushes decide how a print is cut into messages
// (Jupyter has kept "…periods" and "\n" apart), not what a reader sees.
func joinStreams(outs []Output) []Output {
	var joined []Output
	for _, o := range outs {
		if n := len(joined); n > 0 && o.OutputType == OutputStream &&
			joined[n-1].OutputType == OutputStream && joined[n-1].Name == o.Name {
			joined[n-1].Text += o.Text
			continue
		}
		joined = append(joined, o)
	}
	return joined
}
