package numtrace

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/nbformat"
)

// texts returns the Text of each number.
func texts(nums []Number) []string {
	out := []string{}
	for _, n := range nums {
		out = append(out, n.Text)
	}
	return out
}

func TestExtractFindsClaims(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"The mean is 12.3 and the max 40.", []string{"12.3", "40"}},
		{"Revenue was 1,234,567 in total.", []string{"1,234,567"}},
		{"Revenue was 1 234 567 in total.", []string{"1 234 567"}},
		{"Revenue was 1\u202f234 in total.", []string{"1\u202f234"}},
		{"It fell by -5.2 points, or −3%.", []string{"-5.2", "−3%"}},
		{"Share: 12.3%, then 4 %.", []string{"12.3%", "4 %"}},
		{"About 40 percent and 3 per cent.", []string{"40 percent", "3 per cent"}},
		{"p = 1.2e-5 and 3E+06 rows", []string{"1.2e-5", "3E+06"}},
		{"Sales of $1.2k, €3.5M and -$40.", []string{"$1.2k", "€3.5M", "-$40"}},
		{"1.2 million users, 3 billion rows, 2 thousand", []string{"1.2 million", "3 billion", "2 thousand"}},
		{"between 10–20 and 30-40 items", []string{"10", "20", "30", "40"}},
		{"a ratio of .5 overall", []string{".5"}},
		{"**42** rows, (7) groups", []string{"42", "7"}},
		{"In 2024 the count doubled.", []string{"2024"}},
		{"weights of 5kg on average", []string{"5"}},
		{"The sentence ends with 5.", []string{"5"}},
		{"values 1, 2, 3", []string{"1", "2", "3"}},
	} {
		got := texts(Extract(tc.in))
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("Extract(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestExtractSkipsNonClaims(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"list markers", "1. The mean is 4.5\n2) max 9\n  3. min 1", []string{"4.5", "9", "1"}},
		{"heading ordinal", "## 2. Results\n### 3 Charts\nThe total is 17.", []string{"17"}},
		{"references", "As cell 3 and Figure 2 show (see step 4, #5), 8.1 wins.", []string{"8.1"}},
		{"identifiers", "Q3 and col_2020 and x2 and COVID-19 and 2020_sales: 6", []string{"6"}},
		{"ordinals", "the 3rd and 21st rows hold 11", []string{"11"}},
		{"dates", "On 2024-03-01 and 2024-03 and 03/01/2024 at 12:30, 2019-2020: 9", []string{"9"}},
		{"versions", "pandas 2.2.3 says 0.5", []string{"0.5"}},
		{"code", "`df.head(5)` shows 13\n```\nx = 99\n```\nthen 14", []string{"13", "14"}},
		{"urls", "see https://example.com/2024/report?page=3 for 15", []string{"15"}},
	} {
		got := texts(Extract(tc.in))
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: Extract(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

func TestExtractLeavesOutGivenNumbers(t *testing.T) {
	got := texts(Extract("The top 5 regions hold 62.5% of sales; 2023 was the peak.", "Which are the top 5 regions in 2023?", "region"))
	if strings.Join(got, "|") != "62.5%" {
		t.Errorf("got %q, want only 62.5%%", got)
	}
}

// A number is given only where the given text states it as a quantity: the
// "2" of "goal 2" and the parts of a date in the question give nothing, so
// a finding's 2 and 3 are still claims to trace.
func TestExtractGivenNumbersAreClaimsOnly(t *testing.T) {
	got := texts(Extract("The 2 largest regions, 3 in all, hold 62.5% since 2024-03-01.",
		"Exploration goal 2: Which regions lead since 2024-03-01?\nChart: bar of \"region\""))
	if strings.Join(got, "|") != "2|3|62.5%" {
		t.Errorf("got %q, want 2|3|62.5%%", got)
	}
}

func TestExtractValues(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Number
	}{
		{"12.3%", Number{Text: "12.3%", Value: 12.3, Decimals: 1, Scale: 1, Percent: true}},
		{"1.2 million", Number{Text: "1.2 million", Value: 1.2e6, Decimals: 1, Scale: 1e6}},
		{"-$1.25k", Number{Text: "-$1.25k", Value: -1250, Decimals: 2, Scale: 1e3, Signed: true}},
		{"1,234.50", Number{Text: "1,234.50", Value: 1234.5, Decimals: 2, Scale: 1}},
		{"1.2e-5", Number{Text: "1.2e-5", Value: 1.2e-5, Decimals: 1, Scale: 1e-5}},
	} {
		got := Extract("x " + tc.in + " y")
		if len(got) != 1 {
			t.Fatalf("Extract(%q) = %+v, want one number", tc.in, got)
		}
		g := got[0]
		g.Start, g.End = 0, 0
		if diff := fmt.Sprintf("%v", g.Value-tc.want.Value); g.Value != tc.want.Value && !(abs(g.Value-tc.want.Value) < 1e-15) {
			t.Errorf("%q: value %v, want %v (diff %s)", tc.in, g.Value, tc.want.Value, diff)
		}
		g.Value = tc.want.Value
		if g != tc.want {
			t.Errorf("%q: got %+v, want %+v", tc.in, g, tc.want)
		}
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

func TestExtractSpansAndAnswers(t *testing.T) {
	text := "The peak is @peak_month[2024-07] with @total[1,234.5] sales, up 12%."
	got := Extract(text)
	if len(got) != 2 {
		t.Fatalf("got %+v, want 1,234.5 and 12%%", got)
	}
	if got[0].Answer != "total" || got[0].Text != "1,234.5" || text[got[0].Start:got[0].End] != "1,234.5" {
		t.Errorf("answer number = %+v", got[0])
	}
	if got[1].Answer != "" || text[got[1].Start:got[1].End] != "12%" {
		t.Errorf("prose number = %+v", got[1])
	}
}

func TestExtractRangeSharesPercentAndScale(t *testing.T) {
	got := Extract("between 10–20% and 1.5 to 2 million")
	if len(got) != 4 || !got[0].Percent || got[0].Value != 10 || got[2].Scale != 1e6 || got[2].Value != 1.5e6 {
		t.Errorf("got %+v", got)
	}
}

// src is a source with one output text.
func src(id, text string) Source { return Source{ID: id, Texts: []string{text}} }

func TestFindRoundingRules(t *testing.T) {
	for _, tc := range []struct {
		stated, output string
		want           bool
	}{
		{"12.3%", "0.1234", true},
		{"12.3%", "12.34", true},
		{"12.3%", "0.1236", false},
		{"12%", "0.1249", true},
		{"12.35", "12.3456", true},
		{"12.3", "12.3456", true},
		{"12.35", "12.3", false},
		{"12", "12.7", false}, // an integer is exact
		{"12", "12.3", false},
		{"12", "12", true},
		{"12", "12.0", true},
		{"0.5", "5", false},
		{"5", "0.5", false},
		{"0.5", "0.50", true},
		{"1.2 million", "1,234,567", true},
		{"1.2 million", "1234567.0", true},
		{"1.2 million", "1.26e+06", false},
		{"1.2 million", "1.25e+06", true}, // a tie rounds either way
		{"1.3 million", "1.25e+06", true},
		{"$1.2k", "1180.5", true},
		{"1,234", "1234", true},
		{"1,234", "1234.4", false},
		{"1.2e-5", "0.0000123", true},
		{"5.2%", "-0.052", true}, // a magnitude matches either sign
		{"-5.2%", "0.052", false},
		{"-5.2%", "-0.0521", true},
		{"2024", "year 2024 total", true},
		{"2024", "2023 2025 20240", false},
		{"40", "col_40 x40", false},
		{"0", "0.0", true},
		{"3.14", "3.1415926", true},
		{"3.14", "3.145", true}, // a tie
		{"3.14", "3.1451", false},
		{"3.15", "3.145", true},
	} {
		ns := Extract(tc.stated)
		if len(ns) != 1 {
			t.Fatalf("Extract(%q) = %+v", tc.stated, ns)
		}
		got := Find(ns, []Source{src("c1", tc.output)})
		if got[0].Found != tc.want {
			t.Errorf("%q in output %q: found %v, want %v", tc.stated, tc.output, got[0].Found, tc.want)
		}
	}
}

func TestFindPrefersLatestCell(t *testing.T) {
	sources := []Source{src("a", "n = 150"), src("b", "mean 3.1415"), src("c", "rows: 150, cols 4"), src("d", "nothing")}
	got := Find(Extract("150 rows, mean 3.14, 7 columns"), sources)
	want := []struct {
		found bool
		cell  string
		out   string
	}{{true, "c", "150"}, {true, "b", "3.1415"}, {false, "", ""}}
	for i, w := range want {
		if got[i].Found != w.found || got[i].Source != w.cell || got[i].Output != w.out {
			t.Errorf("%s: got found=%v cell=%q output=%q, want %+v", got[i].Text, got[i].Found, got[i].Source, got[i].Output, w)
		}
	}
}

// Within one cell, the number as first printed is named (the printed 40,
// not the chart description's 40.0 after it), whatever the sort does.
func TestFindNamesFirstPrintedInCell(t *testing.T) {
	var sources []Source
	for i := 0; i < 50; i++ { // enough values that the sort is not an insertion sort
		sources = append(sources, src(fmt.Sprint("c", i), fmt.Sprintf("%d 40 %d.5 40.0", i, i)))
	}
	sources = append(sources, Source{ID: "a", Texts: []string{"East    40\nWest    20", `{"y":[40.0,20.0]}`}})
	for i := 0; i < 20; i++ {
		if got := Find(Extract("East sold 40"), sources)[0]; got.Output != "40" || got.Source != "a" {
			t.Fatalf("got %+v, want output 40 of cell a", got)
		}
	}
}

func TestOutputTexts(t *testing.T) {
	str := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	outs := []nbformat.Output{
		{OutputType: nbformat.OutputStream, Name: "stdout", Text: "stream 11\n"},
		{OutputType: nbformat.OutputExecuteResult, Data: nbformat.MimeBundle{
			"text/plain": str("plain 12"),
			"text/html":  str("<table><tr><td>1&#44;234</td><td>13.5</td></tr></table>"),
		}},
		{OutputType: nbformat.OutputDisplayData, Data: nbformat.MimeBundle{
			"image/png":                          str("iVBORw0KGgo14"),
			"application/vnd.analyst.chart+json": json.RawMessage(`{"kind":"bar","series":[{"y":[15.25]}]}`),
		}},
		{OutputType: nbformat.OutputError, EName: "ValueError", EValue: "bad 16", Traceback: []string{"line 16"}},
		// Displayed Markdown, LaTeX and JSON, which the report shows.
		{OutputType: nbformat.OutputDisplayData, Data: nbformat.MimeBundle{
			"text/markdown":    str("**West** leads with 17.5"),
			"text/latex":       str(`$\bar{x} = 18.25$`),
			"application/json": json.RawMessage(`{"rows": 19}`),
			"text/plain":       str("<IPython.core.display.JSON object>"),
		}},
	}
	ix := NewIndex([]Source{{ID: "x", Texts: OutputTexts(outs)}})
	for _, c := range []struct {
		stated string
		want   bool
	}{{"11", true}, {"12", true}, {"1,234", true}, {"13.5", true}, {"15.25", true}, {"14", false}, {"16", false},
		{"17.5", true}, {"18.25", true}, {"19", true}} {
		if got := ix.Find(Extract(c.stated))[0].Found; got != c.want {
			t.Errorf("%s: found %v, want %v", c.stated, got, c.want)
		}
	}
}

// A Number built by hand (no Scale) is looked up as written.
func TestFindHandMadeNumber(t *testing.T) {
	got := Find([]Number{{Text: "12.5", Value: 12.5, Decimals: 1}}, []Source{src("a", "x 12.54")})
	if !got[0].Found {
		t.Errorf("12.5 without a scale not found in 12.54: %+v", got[0])
	}
}

func TestFindText(t *testing.T) {
	sources := []Source{src("a", "month March"), src("b", "peak: March"), src("c", "other")}
	if id, ok := FindText("March", sources); !ok || id != "b" {
		t.Errorf("FindText(March) = %q, %v; want b", id, ok)
	}
	if _, ok := FindText("April", sources); ok {
		t.Error("April found")
	}
}

// TestFindManyOutputs guards the index: thousands of outputs and hundreds
// of stated numbers are looked up through one sorted index, not by
// scanning every output per number. The ratio to a single lookup's cost
// is not timed here (see BenchmarkFind); the test checks correctness at
// that size.
func TestFindManyOutputs(t *testing.T) {
	var sources []Source
	for i := 0; i < 5000; i++ {
		sources = append(sources, src(fmt.Sprint("c", i), fmt.Sprintf("value %d.%04d and %d", i, i, i*7)))
	}
	var stated []string
	for i := 0; i < 500; i++ {
		k := i * 3
		stated = append(stated, fmt.Sprintf("%.2f", float64(k)+float64(k)/10000))
	}
	got := Find(Extract(strings.Join(stated, ", ")), sources)
	for i, g := range got {
		if !g.Found {
			t.Fatalf("%d: %s not found", i, g.Text)
		}
	}
}

func BenchmarkFind(b *testing.B) {
	var sources []Source
	for i := 0; i < 5000; i++ {
		sources = append(sources, src(fmt.Sprint("c", i), fmt.Sprintf("value %d.%04d and %d", i, i, i*7)))
	}
	nums := Extract(strings.Repeat("The mean is 12.3% and the total 1,234 over 3.1 million rows. ", 50))
	b.ResetTimer()
	for b.Loop() {
		Find(nums, sources)
	}
}

// BenchmarkFindNaive is the baseline Index replaces: every stated number
// matched against every output by a regular expression scan (as verify
// matched named answers before), for the same inputs as BenchmarkFind.
func BenchmarkFindNaive(b *testing.B) {
	var sources []Source
	for i := 0; i < 5000; i++ {
		sources = append(sources, src(fmt.Sprint("c", i), fmt.Sprintf("value %d.%04d and %d", i, i, i*7)))
	}
	nums := Extract(strings.Repeat("The mean is 12.3% and the total 1,234 over 3.1 million rows. ", 50))
	re := regexp.MustCompile(`-?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?`)
	b.ResetTimer()
	for b.Loop() {
		for _, n := range nums {
			for i := len(sources) - 1; i >= 0; i-- {
				for _, t := range sources[i].Texts {
					for _, s := range re.FindAllString(t, -1) {
						v, _ := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
						_ = rounds(v/n.Scale, n.mantissa(), n.Decimals)
					}
				}
			}
		}
	}
}

// A list answer's value runs to the bracket that closes it, as the agent
// reads it: every number of @ranges[[1.5, 2.5], [3.5, 4.5]] is the
// answer's, none is prose; a value whose brackets do not balance ends at
// the first "]", as DABench's pattern.
func TestExtractNestedBracketAnswers(t *testing.T) {
	cases := []struct {
		text    string
		answers []string // the Answer of each number found, in order
	}{
		{"Top two: @ranges[[1.5, 2.5], [3.5, 4.5]] overall.", []string{"ranges", "ranges", "ranges", "ranges"}},
		{"@ids[[101, 102]] and 7.5 more", []string{"ids", "ids", ""}},
		{"@odd[[1.5, 2.5] then 3.5", []string{"odd", "odd", ""}},
	}
	for _, c := range cases {
		var got []string
		for _, n := range Extract(c.text) {
			got = append(got, n.Answer)
		}
		if strings.Join(got, ",") != strings.Join(c.answers, ",") {
			t.Errorf("Extract(%q) answers = %q, want %q", c.text, got, c.answers)
		}
	}
}
