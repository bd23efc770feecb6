package evals

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/evals/dabench"
	"github.com/analyst-cli/analyst/evals/dabstep"
	"github.com/analyst-cli/analyst/internal/atomicfile"
	"github.com/analyst-cli/analyst/internal/boundedfile"
)

// Output files of a run, besides ResultsFile.
const (
	SummaryFile  = "summary.json"
	ReportFile   = "report.md"
	HTMLFile     = "report.html"
	JUnitFile    = "junit.xml"
	ResponsesDir = "responses"
)

// Summary is summary.json: the figures of each model.
type Summary struct {
	Suite     string `json:"suite"`
	SuiteHash string `json:"suite_hash"`
	// Shard is the part of the suite the folder holds (--shard), nil for
	// all: eval merge checks it has every part once.
	Shard  *Shard         `json:"shard,omitempty"`
	Models []ModelSummary `json:"models"`
}

// ModelSummary is one model's figures.
type ModelSummary struct {
	Model  string `json:"model"`
	Digest string `json:"digest,omitempty"`
	Cases  int    `json:"cases"`
	Passed int    `json:"passed"`
	Failed int    `json:"failed"`
	Errors int    `json:"errors"`
	// Unscored counts the cases without a gold answer (StatusUnscored).
	Unscored int `json:"unscored,omitempty"`
	// Errored are the DABstep tasks that ended in an error: each has a
	// submission line with the empty answer, scored as the leaderboard
	// scores it (Passed counts those it finds right).
	Errored []string `json:"errored,omitempty"`
	// DABstep is the leaderboard's figures of a DABstep suite (nil for
	// others), and the submission file.
	DABstep *DABstepSummary `json:"dabstep,omitempty"`
	// Score is the share of the scored cases that are right (Result.Right:
	// errors and unanswered cases wrong, but for a DABstep task's, scored as
	// its submitted answer is); --min-score compares with it.
	Score float64 `json:"score"`
	// Official is DABench's three figures as its scorer computes them
	// (unanswered cases dropped); Strict counts them wrong (ours).
	Official      dabench.Metrics    `json:"official"`
	Strict        dabench.Metrics    `json:"strict"`
	Answered      int                `json:"answered"`
	Concepts      []dabench.Accuracy `json:"concepts"`
	ConceptCounts []dabench.Accuracy `json:"concept_counts"`
	TwoOrMore     *dabench.Accuracy  `json:"two_or_more_concepts"`
	Levels        []dabench.Accuracy `json:"levels"` // ours: strict, by level
	Classes       []ClassCount       `json:"classes"`
	// With repeats: the share of cases right in at least one repeat
	// (pass@k) and in every repeat (pass^k), and the cases that were
	// sometimes right, sometimes not.
	Repeats  int      `json:"repeats"`
	PassAtK  float64  `json:"pass_at_k,omitempty"`
	PassHatK float64  `json:"pass_hat_k,omitempty"`
	Flaky    []string `json:"flaky,omitempty"`

	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	Timing           `json:"timing"`
	Responses        string `json:"responses"` // the DABench responses file, relative to the folder
}

// DABstepSummary is a model's DABstep figures as the leaderboard computes
// them (a task without an answer counts wrong) over the cases with gold
// answers, with the submission file, relative to the output folder.
type DABstepSummary struct {
	Overall    dabench.Accuracy `json:"overall"`
	Easy       dabench.Accuracy `json:"easy"`
	Hard       dabench.Accuracy `json:"hard"`
	Submission string           `json:"submission"`
}

// ClassCount is how many cases fell into a failure class.
type ClassCount struct {
	Class string `json:"class"`
	Count int    `json:"count"`
}

// Summarize computes the summary of results (in SortResults order).
func Summarize(rs []Result) *Summary {
	s := &Summary{}
	byModel := map[string][]Result{}
	var models []string
	for _, r := range rs {
		if s.Suite == "" {
			s.Suite, s.SuiteHash = r.Suite, r.SuiteHash
		}
		if _, ok := byModel[r.Model]; !ok {
			models = append(models, r.Model)
		}
		byModel[r.Model] = append(byModel[r.Model], r)
	}
	sort.Strings(models)
	for _, m := range models {
		s.Models = append(s.Models, summarizeModel(m, byModel[m]))
	}
	return s
}

// unscoredNote says why a case is neither passed nor failed.
const unscoredNote = "unscored: the split has no gold answer for this case (its answer is in the submission)"

// ScoredCases counts the cases with a gold answer, the score's
// denominator; 0 means the model has no score (all unscored), not 0%.
func (m ModelSummary) ScoredCases() int { return m.Cases - m.Unscored }

func summarizeModel(model string, rs []Result) ModelSummary {
	ms := ModelSummary{Model: model, Responses: filepath.Join(ResponsesDir, Slug(model)+".jsonl")}
	ms.addRepeats(rs)
	t := newTally()
	for _, r := range rs {
		if r.Repeat == 0 {
			ms.add(r)
			t.add(r)
		}
	}
	sc := dabench.Summarize(t.questions)
	ms.Official, ms.Strict, ms.Answered = sc.Official, sc.Strict, sc.Answered
	ms.Concepts, ms.ConceptCounts, ms.TwoOrMore = sc.Concepts, sc.ConceptCounts, sc.TwoOrMore
	if n := ms.ScoredCases(); n > 0 {
		ms.Score = dabench.Round4(float64(ms.Passed) / float64(n))
	}
	ms.DABstep = dabstepSummary(model, rs)
	ms.Levels = t.levelAccuracies()
	for _, c := range []string{ClassWrongValue, ClassNearMiss, ClassNoAnswer, ClassColumn, ClassDtype, ClassTimeout, ClassModelError, ClassSandboxError} {
		if t.classes[c] > 0 {
			ms.Classes = append(ms.Classes, ClassCount{c, t.classes[c]})
		}
	}
	return ms
}

// addRepeats sets the number of repeats and, with more than one,
// pass@k (right at least once), pass^k (right every time) and the flaky
// cases.
func (ms *ModelSummary) addRepeats(rs []Result) {
	passes, runs := map[string]int{}, map[string]int{}
	var order []string
	for _, r := range rs {
		if runs[r.Case] == 0 {
			order = append(order, r.Case)
		}
		runs[r.Case]++
		if r.Right() {
			passes[r.Case]++
		}
		ms.Repeats = max(ms.Repeats, r.Repeat+1)
	}
	if ms.Repeats <= 1 {
		return
	}
	any, all := 0, 0
	for _, id := range order {
		if passes[id] > 0 {
			any++
		}
		if passes[id] == runs[id] {
			all++
		} else if passes[id] > 0 {
			ms.Flaky = append(ms.Flaky, id)
		}
	}
	ms.PassAtK = dabench.Round4(float64(any) / float64(len(order)))
	ms.PassHatK = dabench.Round4(float64(all) / float64(len(order)))
}

// add counts a case's first run: its outcome, tokens and times.
func (ms *ModelSummary) add(r Result) {
	ms.Digest = r.ModelDigest
	ms.Cases++
	switch {
	case r.Right():
		ms.Passed++
	case r.Status == StatusFail:
		ms.Failed++
	case r.Status == StatusUnscored:
		ms.Unscored++
	default:
		ms.Errors++
	}
	if r.Status == StatusError && r.DABstepID != "" {
		ms.Errored = append(ms.Errored, r.Case)
	}
	ms.PromptTokens += r.PromptTokens
	ms.CompletionTokens += r.CompletionTokens
	ms.WallMS += r.WallMS
	ms.ModelMS += r.ModelMS
	ms.KernelMS += r.KernelMS
}

// tally collects the cases' first runs by failure class, by level and as
// DABench question results.
type tally struct {
	classes    map[string]int
	levels     map[string]*dabench.Accuracy
	levelOrder []string
	questions  []dabench.QuestionResult
}

func newTally() *tally {
	return &tally{classes: map[string]int{}, levels: map[string]*dabench.Accuracy{}}
}

func (t *tally) add(r Result) {
	if r.Status == StatusUnscored {
		return
	}
	if r.Class != "" {
		t.classes[r.Class]++
	}
	q := dabench.QuestionResult{Answered: r.Response != "", Concepts: r.Concepts, HasConcepts: r.Concepts != nil}
	for _, a := range r.Answers {
		q.Correct = append(q.Correct, a.OK)
	}
	t.questions = append(t.questions, q)
	lv := r.Level
	if lv == "" {
		lv = "-"
	}
	if t.levels[lv] == nil {
		t.levels[lv] = &dabench.Accuracy{Key: lv}
		t.levelOrder = append(t.levelOrder, lv)
	}
	t.levels[lv].Total++
	if r.Right() {
		t.levels[lv].Correct++
	}
}

// levelAccuracies are the levels' accuracies, easy to hard.
func (t *tally) levelAccuracies() []dabench.Accuracy {
	sort.SliceStable(t.levelOrder, func(i, j int) bool { return levelRank(t.levelOrder[i]) < levelRank(t.levelOrder[j]) })
	var out []dabench.Accuracy
	for _, lv := range t.levelOrder {
		a := t.levels[lv]
		a.Value = dabench.Round4(float64(a.Correct) / float64(a.Total))
		out = append(out, *a)
	}
	return out
}

// levelRank orders DABench's levels easy to hard, others after them in
// order of appearance, no level last.
func levelRank(lv string) int {
	switch lv {
	case "easy":
		return 0
	case "medium":
		return 1
	case "hard":
		return 2
	case "-":
		return 4
	}
	return 3
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Slug is a model spec made safe as a file name.
func Slug(model string) string { return strings.Trim(unsafeChars.ReplaceAllString(model, "_"), "_") }

// WriteOutputs writes summary.json, report.md, junit.xml and one DABench
// responses file per model from results (in SortResults order).
func WriteOutputs(dir string, rs []Result, shard Shard) (*Summary, error) {
	s := Summarize(rs)
	if shard.Count > 0 {
		s.Shard = &shard
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	errs := []error{atomicfile.WriteFile(filepath.Join(dir, SummaryFile), append(data, '\n'))}
	errs = append(errs, atomicfile.Write(filepath.Join(dir, ReportFile), func(w io.Writer) error { return s.WriteMarkdown(w, rs) }))
	errs = append(errs, atomicfile.Write(filepath.Join(dir, JUnitFile), func(w io.Writer) error { return writeJUnit(w, s, rs) }))
	errs = append(errs, atomicfile.Write(filepath.Join(dir, HTMLFile), func(w io.Writer) error { return s.WriteHTML(w, rs) }))
	if err := os.MkdirAll(filepath.Join(dir, ResponsesDir), 0o755); err != nil {
		errs = append(errs, err)
	}
	for _, m := range s.Models {
		errs = append(errs, atomicfile.Write(filepath.Join(dir, m.Responses), func(w io.Writer) error { return writeResponses(w, m.Model, rs) }))
		if m.DABstep != nil {
			errs = append(errs, dabstep.WriteSubmission(dabstep.SubmissionFile(dir, Slug(m.Model)), submissionLines(m.Model, rs)))
		}
	}
	return s, errors.Join(errs...)
}

// submissionLines are a model's DABstep answers, a line per task (its
// first repeat), in the cases' order: the leaderboard's submission file.
func submissionLines(model string, rs []Result) []dabstep.Line {
	var lines []dabstep.Line
	for _, r := range rs {
		if r.Model == model && r.Repeat == 0 && r.DABstepID != "" {
			lines = append(lines, dabstep.NewLine(r.DABstepID, r.AgentAnswer, r.Trace))
		}
	}
	return lines
}

func writeResultsFile(path string, rs []Result) error {
	return atomicfile.Write(path, func(w io.Writer) error { return writeResults(w, rs) })
}

// writeResponses writes a model's answers as a DABench responses file:
// {"id": N, "response": "..."} per case (the case id as a string outside
// DABench suites).
func writeResponses(w io.Writer, model string, rs []Result) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range rs {
		if r.Model != model || r.Repeat != 0 {
			continue
		}
		line := struct {
			ID       any    `json:"id"`
			Response string `json:"response"`
		}{r.Case, r.Response}
		if r.DABenchID != nil {
			line.ID = *r.DABenchID
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	return nil
}

// Wilson is the 95% Wilson score interval of k successes in n trials.
func Wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	const z = 1.959963984540054
	p, nf := float64(k)/float64(n), float64(n)
	d := 1 + z*z/nf
	c := (p + z*z/(2*nf)) / d
	h := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / d
	return math.Max(0, c-h), math.Min(1, c+h)
}

func pct(x float64) string { return strconv.FormatFloat(x*100, 'f', 2, 64) + "%" }

// WriteMarkdown writes report.md: for a pull request comment or a CI step
// summary.
func (s *Summary) WriteMarkdown(w io.Writer, rs []Result) error {
	_, err := io.WriteString(w, s.markdown(rs, false))
	return err
}

// markdown is the report; allCases adds a row per case linking to its
// notebook and HTML report (report.html: the links are relative to the
// output folder, and a pull request comment has no room for them).
func (s *Summary) markdown(rs []Result, allCases bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# analyst eval: %s\n\nSuite `%s`.\n\n", s.Suite, short(s.SuiteHash))
	// DABstep's figures are its own section's: not DABench's columns.
	dabstepSuite := len(s.Models) > 0 && s.Models[0].DABstep != nil
	if dabstepSuite {
		b.WriteString("| model | cases | passed | failed | errors | score | 95% CI | tokens | model s | kernel s |\n")
		b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	} else {
		b.WriteString("| model | cases | passed | failed | errors | score | 95% CI | ABQ | PSAQ | UASQ | strict ABQ | tokens | model s | kernel s |\n")
		b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	}
	for _, m := range s.Models {
		score, ci := "unscored", "–"
		if n := m.ScoredCases(); n > 0 {
			lo, hi := Wilson(m.Passed, n)
			score, ci = pct(m.Score), pct(lo)+"–"+pct(hi)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %s | %s | ", m.Model, m.Cases, m.Passed, m.Failed, m.Errors, score, ci)
		if !dabstepSuite {
			fmt.Fprintf(&b, "%s | %s | %s | %s | ", pct(m.Official.ABQ), pct(m.Official.PSAQ), pct(m.Official.UASQ), pct(m.Strict.ABQ))
		}
		fmt.Fprintf(&b, "%d | %.1f | %.1f |\n", m.PromptTokens+m.CompletionTokens, m.ModelMS/1000, m.KernelMS/1000)
	}
	for _, m := range s.Models {
		if m.Repeats > 1 {
			fmt.Fprintf(&b, "\n%s over %d repeats: pass@%d %s, pass^%d %s; flaky: %s\n", m.Model, m.Repeats, m.Repeats, pct(m.PassAtK),
				m.Repeats, pct(m.PassHatK), strings.Join(append([]string{"none"}, m.Flaky...)[min(1, len(m.Flaky)):], ", "))
		}
	}
	if !dabstepSuite {
		b.WriteString("\nABQ, PSAQ and UASQ are DABench's figures as its official scorer computes them (cases without a response are left out); " +
			"score and strict ABQ count those as wrong.\n")
	}
	for _, m := range s.Models {
		b.WriteString(dabstepMarkdown(m))
	}
	for _, m := range s.Models {
		if m.DABstep == nil && (len(m.Levels) > 1 || len(m.Levels) == 1 && m.Levels[0].Key != "-") { // DABstep's section has its levels
			fmt.Fprintf(&b, "\n## %s by level\n\nScore: cases entirely right, errors and unanswered cases counted wrong.\n\n", m.Model)
			accuracyTable(&b, "level", m.Levels)
		}
		if len(m.Concepts) > 0 {
			fmt.Fprintf(&b, "\n## %s by concept\n\nAccuracy over the answered cases, as DABench's official scorer counts it (a case counts under each of its concepts).\n\n", m.Model)
			accuracyTable(&b, "concept", m.Concepts)
		}
		if len(m.Classes) > 0 {
			fmt.Fprintf(&b, "\n## Failures of %s\n\n| class | cases | share of cases |\n|---|---:|---:|\n", m.Model)
			for _, c := range m.Classes {
				fmt.Fprintf(&b, "| %s | %d | %s |\n", c.Class, c.Count, pct(float64(c.Count)/float64(m.Cases)))
			}
		}
	}
	if allCases {
		writeCaseRows(&b, rs)
		return b.String()
	}
	var bad []string
	for _, r := range rs {
		if !r.Right() && r.Repeat == 0 {
			bad = append(bad, fmt.Sprintf("| %s | %s | %s | %s |", r.Case, r.Model, r.Class, mdCell(wrongAnswers(r))))
		}
	}
	if len(bad) > 0 {
		b.WriteString("\n## Cases not passed\n\n| case | model | class | detail |\n|---|---|---|---|\n")
		const max = 100
		for i, l := range bad {
			if i == max {
				fmt.Fprintf(&b, "\n… and %d more (results.jsonl has them all).\n", len(bad)-max)
				break
			}
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// accuracyTable writes one row per key: its accuracy with the 95% Wilson
// interval.
func accuracyTable(b *strings.Builder, what string, as []dabench.Accuracy) {
	fmt.Fprintf(b, "| %s | score | 95%% CI | right |\n|---|---:|---:|---:|\n", what)
	for _, a := range as {
		lo, hi := Wilson(a.Correct, a.Total)
		fmt.Fprintf(b, "| %s | %s | %s–%s | %d/%d |\n", mdCell(a.Key), pct(a.Value), pct(lo), pct(hi), a.Correct, a.Total)
	}
}

// writeCaseRows writes a row per result, linking to its case files.
func writeCaseRows(b *strings.Builder, rs []Result) {
	if len(rs) == 0 {
		return
	}
	b.WriteString("\n## Cases\n\n| case | model | repeat | level | status | class | detail | notebook | report |\n|---|---|---:|---|---|---|---|---|---|\n")
	for _, r := range rs {
		link := func(text, p string) string {
			if p == "" {
				return ""
			}
			return "[" + text + "](" + p + ")"
		}
		fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", mdCell(r.Case), mdCell(r.Model), r.Repeat, mdCell(r.Level), r.Status, r.Class,
			mdCell(wrongAnswers(r)), link("ipynb", r.Notebook), link("html", r.Report))
	}
}

// Detail says what is wrong with a result: its error, or each wrong answer
// and failed chart check.
func Detail(r Result) string { return wrongAnswers(r) }

func wrongAnswers(r Result) string {
	if r.Error != "" {
		return r.Error
	}
	var parts []string
	for _, a := range r.Answers {
		if a.OK {
			continue
		}
		got := "missing"
		if a.Has {
			got = strconv.Quote(a.Got)
		}
		parts = append(parts, fmt.Sprintf("%s: %s, want %q", a.Name, got, a.Want))
	}
	for _, c := range r.Charts {
		if !c.OK {
			parts = append(parts, "chart: "+c.Why)
		}
	}
	return strings.Join(parts, "; ")
}

func mdCell(s string) string {
	s = strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr,omitempty"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
}

// junitSkipped marks an unscored case: neither passed nor failed.
type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// writeJUnit writes one test suite per model, one test case per eval case.
func writeJUnit(w io.Writer, s *Summary, rs []Result) error {
	var out junitSuites
	for _, m := range s.Models {
		js := junitSuite{Name: s.Suite + " · " + m.Model, Time: secs(m.WallMS)}
		for _, r := range rs {
			if r.Model != m.Model || r.Repeat != 0 {
				continue
			}
			jc := junitCase{Name: r.Case, ClassName: s.Suite + "." + Slug(m.Model), Time: secs(r.WallMS)}
			p := &junitProblem{Message: wrongAnswers(r), Type: r.Class, Text: r.Response}
			switch r.Status {
			case StatusFail:
				jc.Failure = p
				js.Failures++
			case StatusError:
				jc.Error = p
				js.Errors++
			case StatusUnscored:
				jc.Skipped = &junitSkipped{Message: unscoredNote}
				js.Skipped++
			}
			js.Tests++
			js.Cases = append(js.Cases, jc)
		}
		out.Suites = append(out.Suites, js)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func secs(ms float64) string { return strconv.FormatFloat(ms/1000, 'f', 3, 64) }

// Merge reads the results of several output folders (shards of one run)
// and writes them as one run into out. Shards must come from the same suite
// and not overlap.
func Merge(out string, dirs []string) (*Summary, error) {
	if err := checkShards(dirs); err != nil {
		return nil, err
	}
	var all []Result
	seen := map[key]string{}
	var first *Result
	digests := map[string]string{}
	for _, d := range dirs {
		p := filepath.Join(d, ResultsFile)
		rs, err := ReadResults(p)
		if err != nil {
			return nil, err
		}
		if rs == nil {
			if _, err := os.Stat(p); err != nil {
				return nil, fmt.Errorf("merging %s: %w", d, err)
			}
		}
		for _, r := range rs {
			if first == nil {
				first = &r
			}
			var what string
			switch d0, ok := digests[r.Model]; {
			case r.SuiteHash != first.SuiteHash:
				what = fmt.Sprintf("another version of the suite (%s, not %s)", short(r.SuiteHash), short(first.SuiteHash))
			case r.ImageID != first.ImageID:
				what = fmt.Sprintf("another kernel image (%s, not %s)", r.ImageID, first.ImageID)
			case r.Seed != first.Seed:
				what = fmt.Sprintf("another seed (%d, not %d)", r.Seed, first.Seed)
			case ok && d0 != r.ModelDigest:
				what = fmt.Sprintf("another build of %s (%s, not %s)", r.Model, short(r.ModelDigest), short(d0))
			}
			if what != "" {
				return nil, fmt.Errorf("merging %s: its results come from %s", d, what)
			}
			digests[r.Model] = r.ModelDigest
			if prev, dup := seen[r.key()]; dup {
				return nil, fmt.Errorf("merging %s: case %s of %s is also in %s (shards overlap)", d, r.Case, r.Model, prev)
			}
			seen[r.key()] = d
			if err := copyCaseFiles(d, out, &r); err != nil {
				return nil, fmt.Errorf("merging %s: %w", d, err)
			}
			all = append(all, r)
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	SortResults(all)
	if err := writeResultsFile(filepath.Join(out, ResultsFile), all); err != nil {
		return nil, err
	}
	return WriteOutputs(out, all, Shard{})
}

// maxSummaryBytes bounds a summary.json read back: a few kilobytes per
// model.
const maxSummaryBytes = 64 << 20

// readSummary reads a summary.json an eval wrote, refusing one past
// maxSummaryBytes before decoding it.
func readSummary(path string) (*Summary, error) {
	data, err := boundedfile.Read(path, maxSummaryBytes)
	if err != nil {
		return nil, err
	}
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// checkShards refuses shard folders that are not each part of one split
// once: a part missing (its job failed, its artifact was not downloaded)
// would give a score over fewer cases, with nothing to say so. Folders
// whose summary names no shard (a whole run, or one made before summaries
// named them) are merged as given, but not beside folders that do.
func checkShards(dirs []string) error {
	given := map[int]string{}
	count, unsharded := 0, ""
	for _, d := range dirs {
		s, err := readSummary(filepath.Join(d, SummaryFile))
		if err != nil {
			return fmt.Errorf("merging %s: reading its %s (a shard that did not finish has none: run it again, it resumes): %w", d, SummaryFile, err)
		}
		switch {
		case s.Shard == nil:
			unsharded = d
			continue
		case count != 0 && s.Shard.Count != count:
			return fmt.Errorf("merging %s: it is shard %d/%d, the others are of %d shards", d, s.Shard.Index, s.Shard.Count, count)
		case given[s.Shard.Index] != "":
			return fmt.Errorf("merging %s: shard %d/%d is also %s (shards overlap)", d, s.Shard.Index, s.Shard.Count, given[s.Shard.Index])
		}
		count = s.Shard.Count
		given[s.Shard.Index] = d
	}
	if count == 0 {
		return nil
	}
	if unsharded != "" {
		return fmt.Errorf("merging %s: it holds no shard, the others are shards of %d", unsharded, count)
	}
	var missing []string
	for i := range count {
		if given[i] == "" {
			missing = append(missing, fmt.Sprintf("%d/%d", i, count))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("merging: shard %s missing: give every shard's folder (%d of %d given)", strings.Join(missing, ", "), len(given), count)
	}
	return nil
}
