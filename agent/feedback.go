package agent

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/analyst-cli/analyst/internal/clip"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/nbformat"
)

// Bounds of what goes back to the model after a cell.
const (
	feedbackStream = 2000 // stdout, head and tail kept
	feedbackResult = 1500 // a result's text/plain
	feedbackTrace  = 12   // traceback lines kept (the end, where the error is)
	feedbackDesc   = 1200 // a chart description, for models without vision
	feedbackMax    = 6000 // the whole message
)

var ansi = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

// outputLabel names a result or display for the model, with the rich
// types it has beside its text (a displayed HTML object's text is only
// its repr): "displayed [text/html]".
func outputLabel(o nbformat.Output) string {
	label := "result"
	if o.OutputType == nbformat.OutputDisplayData {
		label = "displayed"
	}
	var rich []string
	for mime := range o.Data {
		if mime != nbformat.MimePlain {
			rich = append(rich, mime)
		}
	}
	if len(rich) == 0 {
		return label
	}
	slices.Sort(rich)
	return label + " [" + strings.Join(rich, ", ") + "; shown in the report]"
}

// describeExecution is the compact text the model gets back for a cell:
// status, trimmed streams, results as short text, the error with the end of
// its traceback, and the charts made (kind and title; the description too
// when the model cannot see images).
func describeExecution(ex *kernel.Execution, vision bool, columns []string, columnsOf string) string {
	var b strings.Builder
	switch ex.Status {
	case kernel.StatusOK:
		fmt.Fprintf(&b, "status: ok (%.2fs)\n", ex.Duration.Seconds())
	case kernel.StatusTimeout:
		fmt.Fprintf(&b, "status: timeout — the cell was interrupted after %.0fs. ", ex.Duration.Seconds())
		if ex.StateLost {
			b.WriteString("The kernel had to be killed; its state is lost.\n")
		} else {
			b.WriteString("Variables defined before the interruption are kept. Make the code faster (vectorise, avoid endless loops, work on a sample).\n")
		}
	case kernel.StatusDied:
		fmt.Fprintf(&b, "status: the kernel died: %s\n", ex.Cause)
	default:
		fmt.Fprintf(&b, "status: %s\n", ex.Status)
	}
	if s := ex.Stdout(); s != "" {
		b.WriteString("stdout:\n" + headTail(s, feedbackStream) + "\n")
	}
	if s := strings.TrimSpace(ex.Stderr()); s != "" {
		b.WriteString("stderr:\n" + headTail(s, feedbackStream/4) + "\n")
	}
	for _, o := range ex.Outputs {
		if o.OutputType != nbformat.OutputExecuteResult && o.OutputType != nbformat.OutputDisplayData {
			continue
		}
		if _, chart := o.Data[nbformat.MimeChart]; chart {
			continue
		}
		if s, ok := o.DataString(nbformat.MimePlain); ok && s != "" {
			b.WriteString(outputLabel(o) + ":\n" + headTail(s, feedbackResult) + "\n")
		}
	}
	if ex.Error != nil && ex.Status != kernel.StatusTimeout {
		b.WriteString("error: " + ex.Error.Name + ": " + clip.Bytes(ex.Error.Value, 500) + "\n")
		if tb := trimTraceback(ex.Error.Traceback); tb != "" {
			b.WriteString("traceback (end):\n" + tb + "\n")
		}
		if near := missingColumnHint(ex.Error, columns, columnsOf); near != "" {
			b.WriteString(near + "\n")
		}
	}
	for i, c := range ex.Charts() {
		fmt.Fprintf(&b, "chart %d: %s\n", i+1, chartLabel(c))
		if !vision {
			b.WriteString("description: " + clip.Bytes(compactJSON(c.Description), feedbackDesc) + "\n")
		}
	}
	if n := len(ex.Charts()); n > 0 && vision {
		fmt.Fprintf(&b, "(the %d chart image(s) follow in the next user message)\n", n)
	}
	return clip.Bytes(strings.TrimRight(b.String(), "\n"), feedbackMax)
}

// chartLabel names a chart by its kind, title and axes.
func chartLabel(c kernel.Chart) string {
	var d struct {
		XLabel string `json:"x_label"`
		YLabel string `json:"y_label"`
	}
	_ = json.Unmarshal(c.Description, &d)
	kind := c.Kind
	if kind == "" {
		kind = "chart"
	}
	title := c.Title
	if title == "" {
		title = "(no title)"
	}
	s := fmt.Sprintf("%s %q", kind, title)
	if d.XLabel != "" || d.YLabel != "" {
		s += fmt.Sprintf(", x: %q, y: %q", d.XLabel, d.YLabel)
	}
	return s
}

func compactJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// trimTraceback keeps the end of a traceback, where the user's line and the
// error are, without terminal colours.
func trimTraceback(tb []string) string {
	var lines []string
	for _, l := range tb {
		for _, s := range strings.Split(ansi.ReplaceAllString(l, ""), "\n") {
			if strings.TrimSpace(s) != "" {
				lines = append(lines, s)
			}
		}
	}
	if len(lines) > feedbackTrace {
		lines = append([]string{fmt.Sprintf("… %d lines above left out", len(lines)-feedbackTrace)}, lines[len(lines)-feedbackTrace:]...)
	}
	for i, l := range lines {
		lines[i] = clip.Bytes(l, 300)
	}
	return strings.Join(lines, "\n")
}

// headTail keeps the start and end of a long text, marking the cut.
func headTail(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if len(s) <= n {
		return s
	}
	head, tail := n*2/3, n/3
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	start := len(s) - tail
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return s[:head] + fmt.Sprintf("\n… [%d characters left out] …\n", start-head) + s[start:]
}

// keyErrorRe reads the key of a KeyError: 'revenu' or "revenu".
var keyErrorRe = regexp.MustCompile(`^\s*\(?\s*['"](.*)['"]`)

// missingColumnHint, for a KeyError on a name that is not a column, names
// the closest real columns.
func missingColumnHint(e *kernel.ExecError, columns []string, of string) string {
	if e.Name != "KeyError" || len(columns) == 0 {
		return ""
	}
	m := keyErrorRe.FindStringSubmatch(e.Value)
	if m == nil || slices.Contains(columns, m[1]) {
		return ""
	}
	key := strings.ToLower(m[1])
	ranked := slices.Clone(columns)
	dist := map[string]int{}
	for _, c := range ranked {
		d := editDistance(key, strings.ToLower(c))
		if strings.Contains(strings.ToLower(c), key) || strings.Contains(key, strings.ToLower(c)) {
			d = min(d, 1)
		}
		dist[c] = d
	}
	slices.SortStableFunc(ranked, func(a, b string) int { return dist[a] - dist[b] })
	ranked = ranked[:min(5, len(ranked))]
	quoted := make([]string, len(ranked))
	for i, c := range ranked {
		quoted[i] = strconv.Quote(c)
	}
	if of == "" {
		return fmt.Sprintf("%q is not a column of df; the closest column names: %s", m[1], strings.Join(quoted, ", "))
	}
	return fmt.Sprintf("%q is not a column of %s; the closest names: %s", m[1], of, strings.Join(quoted, ", "))
}

// editDistance is the Levenshtein distance of a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
