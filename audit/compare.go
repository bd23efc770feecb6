package audit

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"sort"
	"strings"

	"github.com/analyst-cli/analyst/nbformat"
)

// compareOutputs lists every difference between a cell's recorded outputs
// and a re-execution's, exactly: output types, stream text, error name and
// value, and every mime type (text byte for byte, PNG bytes, chart
// descriptions). Both sides must be in the form nbformat.Read returns.
// Tracebacks and execution counts are not compared: they number the
// kernel's executions and quote its frames, not what the cell computed.
func compareOutputs(want, got []nbformat.Output) []string {
	var diffs []string
	if len(want) != len(got) {
		diffs = append(diffs, fmt.Sprintf("%d outputs recorded, re-run has %d (recorded: %s; re-run: %s)",
			len(want), len(got), kinds(want), kinds(got)))
	}
	for i := 0; i < len(want) && i < len(got); i++ {
		w, g := want[i], got[i]
		at := fmt.Sprintf("output %d", i+1)
		if w.OutputType != g.OutputType || w.Name != g.Name {
			diffs = append(diffs, fmt.Sprintf("%s: recorded %s, re-run %s", at, kind(w), kind(g)))
			continue
		}
		switch w.OutputType {
		case nbformat.OutputStream:
			if d := textDiff(w.Text, g.Text); d != "" {
				diffs = append(diffs, fmt.Sprintf("%s (%s): %s", at, w.Name, d))
			}
		case nbformat.OutputError:
			if w.EName != g.EName || w.EValue != g.EValue {
				diffs = append(diffs, fmt.Sprintf("%s: recorded error %s: %s, re-run %s: %s", at, w.EName, w.EValue, g.EName, g.EValue))
			}
		default:
			diffs = append(diffs, bundleDiffs(at, w.Data, g.Data)...)
		}
	}
	return diffs
}

func bundleDiffs(at string, want, got nbformat.MimeBundle) []string {
	var diffs []string
	mimes := map[string]bool{}
	for m := range want {
		mimes[m] = true
	}
	for m := range got {
		mimes[m] = true
	}
	sorted := make([]string, 0, len(mimes))
	for m := range mimes {
		sorted = append(sorted, m)
	}
	sort.Strings(sorted)
	for _, m := range sorted {
		w, inW := want[m]
		g, inG := got[m]
		switch {
		case !inW:
			diffs = append(diffs, fmt.Sprintf("%s: %s not recorded, re-run has it", at, m))
		case !inG:
			diffs = append(diffs, fmt.Sprintf("%s: %s recorded, re-run lacks it", at, m))
		case bytes.Equal(w, g):
		case strings.HasPrefix(m, "image/"):
			diffs = append(diffs, fmt.Sprintf("%s: %s bytes differ: %s", at, m, imageDiff(want, got, m)))
		default:
			ws, _ := (nbformat.Output{Data: want}).DataString(m)
			gs, _ := (nbformat.Output{Data: got}).DataString(m)
			if ws == "" && gs == "" { // JSON mime types: compare their text
				ws, gs = string(w), string(g)
			}
			diffs = append(diffs, fmt.Sprintf("%s (%s): %s", at, m, textDiff(ws, gs)))
		}
	}
	return diffs
}

func imageDiff(want, got nbformat.MimeBundle, mime string) string {
	decode := func(b nbformat.MimeBundle) []byte {
		s, _ := (nbformat.Output{Data: b}).DataString(mime)
		d, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
		if err != nil {
			return []byte(s)
		}
		return d
	}
	w, g := decode(want), decode(got)
	n := 0
	for n < len(w) && n < len(g) && w[n] == g[n] {
		n++
	}
	return fmt.Sprintf("recorded %d bytes, re-run %d, first difference at byte %d", len(w), len(g), n)
}

// textDiff shows the first line that differs, or "" when equal.
func textDiff(want, got string) string {
	if want == got {
		return ""
	}
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; ; i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g || i >= len(wl) || i >= len(gl) {
			return fmt.Sprintf("line %d differs\n      - recorded: %s\n      + re-run:   %s", i+1, clip(w), clip(g))
		}
	}
}

func clip(s string) string {
	const max = 200
	if r := []rune(s); len(r) > max {
		return fmt.Sprintf("%q…", string(r[:max]))
	}
	return fmt.Sprintf("%q", s)
}

func kind(o nbformat.Output) string {
	switch o.OutputType {
	case nbformat.OutputStream:
		return "stream " + o.Name
	case nbformat.OutputError:
		return fmt.Sprintf("error %s: %s", o.EName, clip(o.EValue))
	}
	return o.OutputType
}

func kinds(outs []nbformat.Output) string {
	if len(outs) == 0 {
		return "none"
	}
	k := make([]string, len(outs))
	for i, o := range outs {
		k[i] = kind(o)
	}
	return strings.Join(k, ", ")
}
