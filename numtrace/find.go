package numtrace

import (
	"html"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/nbformat"
)

// Source is one cell whose outputs a number may come from.
type Source struct {
	// ID names the cell the way the report links to it.
	ID string
	// Texts are the cell's outputs as text (see OutputTexts).
	Texts []string
}

// Trace is where a stated number was found, if anywhere.
type Trace struct {
	Number
	// Found says an output shows the number; Source is then the ID of the
	// cell and Output the number as that output wrote it ("0.1234").
	Found  bool   `json:"found"`
	Source string `json:"cell,omitempty"`
	Output string `json:"output,omitempty"`
	// Literal says Text was looked up as text, not as a number: a named
	// answer with no number in it ("March"; see TraceText).
	Literal bool `json:"literal,omitempty"`
}

// Record is the traces of a text as a run records them (run.json): the
// numbers found, each with its cell, and those not found.
type Record struct {
	Traced   []Trace `json:"traced"`
	Untraced []Trace `json:"untraced"`
}

// NewRecord splits traces into found and not found, in order.
func NewRecord(traces []Trace) *Record {
	r := &Record{Traced: []Trace{}, Untraced: []Trace{}}
	for _, t := range traces {
		if t.Found {
			r.Traced = append(r.Traced, t)
		} else {
			r.Untraced = append(r.Untraced, t)
		}
	}
	return r
}

// UntracedTexts are the untraced numbers as written, each once (none for a
// nil Record).
func (r *Record) UntracedTexts() []string {
	if r == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, t := range r.Untraced {
		if !seen[t.Text] {
			seen[t.Text] = true
			out = append(out, t.Text)
		}
	}
	return out
}

// entry is one number in an output.
type entry struct {
	value  float64
	source int // index into the sources
	text   string
}

// Index is the numbers of a set of sources, sorted by value, so that each
// stated number is looked up in O(log n) rather than by scanning every
// output again.
type Index struct {
	sources []Source
	entries []entry
}

// NewIndex reads the numbers of every source's texts once.
func NewIndex(sources []Source) *Index {
	ix := &Index{sources: sources}
	for si, s := range sources {
		for _, t := range s.Texts {
			for _, n := range scan(t, false) {
				ix.entries = append(ix.entries, entry{value: n.Value, source: si, text: n.Text})
			}
		}
	}
	// Stable: among equal values, a cell's outputs keep their order, so the
	// number as first printed is the one named.
	sort.SliceStable(ix.entries, func(a, b int) bool { return ix.entries[a].value < ix.entries[b].value })
	return ix
}

// Find looks each number up in the sources' outputs; see Index.Find.
func Find(nums []Number, sources []Source) []Trace {
	return NewIndex(sources).Find(nums)
}

// Find looks each number up in the outputs. A stated number matches an
// output number v when:
//   - it is a plain integer ("12", "1,234": no decimals, percent or scale):
//     v equals it exactly (12 is not shown by 12.7, nor by 12.3);
//   - it has k decimals and a scale s ("12.35", "1.2 million", "1.2e-5"):
//     v / s rounded to k decimals equals its mantissa (12.35 is shown by
//     12.3456; 1.2 million by 1,234,567); a tie rounds either way (1.2 and
//     1.3 are both shown by 1.25);
//   - it is a percent with k decimals ("12.3%"): v or v×100 rounded to k
//     decimals equals it (12.3% is shown by 12.34 and by 0.1234).
//
// A number written without a minus sign matches v of either sign (prose
// states magnitudes: "fell by 5.2%" for -0.052); one written with a minus
// sign matches only negative v. When several cells show the number, the
// latest one (last in sources) is the one that computed it: later cells
// build on earlier ones, and a number printed again by a later cell is
// that cell's result.
func (ix *Index) Find(nums []Number) []Trace {
	out := make([]Trace, len(nums))
	for k, n := range nums {
		t := Trace{Number: n}
		if e, ok := ix.lookup(n); ok {
			t.Found, t.Source, t.Output = true, ix.sources[e.source].ID, e.text
		}
		out[k] = t
	}
	return out
}

// lookup returns the entry of the latest source that shows n.
func (ix *Index) lookup(n Number) (entry, bool) {
	best, found := entry{source: -1}, false
	if n.Scale == 0 { // a Number not made by Extract
		n.Scale = 1
	}
	try := func(lo, hi float64, match func(v float64) bool) {
		i := sort.Search(len(ix.entries), func(i int) bool { return ix.entries[i].value >= lo })
		for ; i < len(ix.entries) && ix.entries[i].value <= hi; i++ {
			if e := ix.entries[i]; e.source > best.source && match(e.value) {
				best, found = e, true
			}
		}
	}
	for _, sign := range []float64{1, -1} {
		if sign == 1 && n.Signed || sign == -1 && n.Value == 0 {
			continue
		}
		m := n.mantissa()
		if n.exact() {
			try(sign*m, sign*m, func(v float64) bool { return v == sign*m })
			continue
		}
		scales := []float64{n.Scale}
		if n.Percent {
			scales = append(scales, n.Scale/100)
		}
		for _, s := range scales {
			// The values that round to m at k decimals lie within half a
			// unit of the last decimal; widen a little for float error and
			// let rounds decide at the edges.
			half := 0.5*math.Pow(10, -float64(n.Decimals))*s + math.Abs(m*s)*1e-12
			lo, hi := sign*m*s-half, sign*m*s+half
			if lo > hi {
				lo, hi = hi, lo
			}
			try(lo, hi, func(v float64) bool { return rounds(sign*v/s, m, n.Decimals) })
		}
	}
	return best, found
}

// rounds says v rounded to k decimals is m. A tie (1.25 to one decimal)
// rounds either way: writers round half up, Python's format rounds half to
// even, and the binary value of 3.145 is a hair above or below.
func rounds(v, m float64, k int) bool {
	if strconv.FormatFloat(v, 'f', k, 64) == strconv.FormatFloat(m, 'f', k, 64) {
		return true
	}
	unit := math.Pow(10, -float64(k))
	return math.Abs(math.Abs(v-m)/unit-0.5) < 1e-9
}

// TraceText traces a named answer: each number in value (see Extract;
// nothing is left out as given), or, when it holds none, the value as text
// (FindText).
func (ix *Index) TraceText(name, value string) []Trace {
	nums := Extract(value)
	for i := range nums {
		nums[i].Answer = name
	}
	if len(nums) > 0 {
		return ix.Find(nums)
	}
	start := len(value) - len(strings.TrimLeft(value, " \t\n"))
	value = strings.TrimSpace(value)
	if value == "" {
		return nil
	}
	t := Trace{Number: Number{Text: value, Answer: name, Start: start, End: start + len(value)}, Literal: true}
	if id, ok := FindText(value, ix.sources); ok {
		t.Found, t.Source, t.Output = true, id, value
	}
	return []Trace{t}
}

// FindText returns the ID of the latest source whose outputs contain text
// (a named answer that is not a number: "March", "Electronics"), and false
// if none does.
func FindText(text string, sources []Source) (string, bool) {
	text = strings.TrimSpace(text)
	if text == "" {
		return "", false
	}
	for i := len(sources) - 1; i >= 0; i-- {
		for _, t := range sources[i].Texts {
			if strings.Contains(t, text) {
				return sources[i].ID, true
			}
		}
	}
	return "", false
}

// Chart descriptions are matched by name so that this package needs only
// nbformat's types.

var tagRe = regexp.MustCompile(`<[^>]*>`)

// OutputTexts returns the texts a cell's outputs show, where a stated
// number may be read: stream text, text/plain, text/markdown, text/html
// (tags stripped, entities decoded) and chart descriptions. Errors are left
// out: a number in a traceback is not a result.
func OutputTexts(outputs []nbformat.Output) []string {
	var out []string
	for _, o := range outputs {
		if o.OutputType == nbformat.OutputError {
			continue
		}
		if o.Text != "" {
			out = append(out, o.Text)
		}
		for _, m := range []string{nbformat.MimePlain, nbformat.MimeMarkdown, nbformat.MimeLaTeX} {
			if s, ok := o.DataString(m); ok {
				out = append(out, s)
			}
		}
		if raw, ok := o.Data[nbformat.MimeJSON]; ok { // shown as text in the report
			out = append(out, string(raw))
		}
		if s, ok := o.DataString(nbformat.MimeHTML); ok {
			out = append(out, html.UnescapeString(tagRe.ReplaceAllString(s, " ")))
		}
		if raw, ok := o.Data[nbformat.MimeChart]; ok {
			out = append(out, string(raw))
		}
	}
	return out
}

// CellSources returns one Source per code cell of nb, named by id (given
// the cell's index in nb.Cells and the cell); a cell id names "" is left
// out.
func CellSources(nb *nbformat.Notebook, id func(i int, c *nbformat.Cell) string) []Source {
	var out []Source
	for i, c := range nb.Cells {
		if c.CellType != nbformat.Code {
			continue
		}
		if s := id(i, c); s != "" {
			out = append(out, Source{ID: s, Texts: OutputTexts(c.Outputs)})
		}
	}
	return out
}
