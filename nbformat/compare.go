package nbformat

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
)

// CompareOutputs lists how a re-run's outputs differ from the original's in
// what a reader sees: output types, stream text, error names, text/plain,
// PNG bytes and SVG text. Mime types only one side produces (the kernel's chart
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
		if a[i].mime != b[i].mime || !bytes.Equal(a[i].data, b[i].data) {
			diffs = append(diffs, fmt.Sprintf("image %d: %s bytes differ (%d vs %d bytes)", i+1, a[i].mime, len(a[i].data), len(b[i].data)))
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
			for _, mime := range []string{MimePNG, MimeSVG} {
				if _, ok := o.Data[mime]; ok {
					b.WriteString(" +" + mime)
				}
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

type outputImage struct {
	mime string
	data []byte
}

// images is the PNGs (decoded) and SVGs of outs, in order.
func images(outs []Output) []outputImage {
	var all []outputImage
	for _, o := range outs {
		if s, ok := o.DataString(MimePNG); ok {
			b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
			if err != nil {
				b = []byte(s)
			}
			all = append(all, outputImage{MimePNG, b})
		}
		if s, ok := o.DataString(MimeSVG); ok {
			all = append(all, outputImage{MimeSVG, []byte(s)})
		}
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
