package dabench

import (
	"fmt"
	"io"
	"math"
	"strconv"
)

// QuestionResult is one scored question: the official result record.
type QuestionResult struct {
	ID int64 `json:"id"`
	// Answered is false when no response was selected for the question
	// (the official scorer drops it; our strict figures count it wrong).
	Answered  bool              `json:"answered"`
	Labels    []Pair            `json:"-"`
	Predicted map[string]string `json:"predicted,omitempty"`
	// Correct is per label name, in label order.
	Correct []bool `json:"correct"`
	// Response is the selected response's text ("" when unanswered).
	Response string `json:"-"`
	// Concepts are the question's concepts; HasConcepts is false when the
	// questions file does not have the question (it then counts in no
	// breakdown, as in the official scorer).
	Concepts    []string `json:"-"`
	HasConcepts bool     `json:"-"`
}

// AllCorrect is Python's all(correctness.values()): true for a label with
// no sub-answers.
func (q QuestionResult) AllCorrect() bool {
	for _, c := range q.Correct {
		if !c {
			return false
		}
	}
	return true
}

func (q QuestionResult) nCorrect() int {
	n := 0
	for _, c := range q.Correct {
		if c {
			n++
		}
	}
	return n
}

// Accuracy is a rounded share and the counts it comes from.
type Accuracy struct {
	Key     string  `json:"key"`
	Value   float64 `json:"value"`
	Correct int     `json:"correct"`
	Total   int     `json:"total"`
}

// Metrics are the three DABench figures, each round(x, 4).
type Metrics struct {
	ABQ  float64 `json:"abq"`  // accuracy by question
	PSAQ float64 `json:"psaq"` // accuracy proportional by sub-question
	UASQ float64 `json:"uasq"` // accuracy by sub-question (pooled)
}

// Scores is what the official scorer reports, plus ours.
type Scores struct {
	// Official: over the answered questions only.
	Official Metrics `json:"official"`
	// ZeroResults is true when no question was answered: the official
	// figures are then the int 0 (its JSON says 0, not 0.0).
	ZeroResults   bool       `json:"-"`
	Concepts      []Accuracy `json:"concepts"`       // in order of first appearance
	ConceptCounts []Accuracy `json:"concept_counts"` // key: the number of concepts
	// TwoOrMore is the accuracy of questions with two or more concepts;
	// nil when there are none.
	TwoOrMore *Accuracy `json:"two_or_more_concepts"`

	// Strict (ours, not official): unanswered questions count as wrong.
	Strict    Metrics `json:"strict"`
	Questions int     `json:"questions"` // labels
	Answered  int     `json:"answered"`

	Results []QuestionResult `json:"results"`
}

// SelectError is a responses file the official scorer would stop on.
type SelectError struct {
	Line int
	Msg  string
}

func (e *SelectError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Select is the official selection: for a label, the first response (in
// file order) with an "id" key, a truthy "response" and id == label id
// (Python ==). Like the official scorer it fails on a line it has to look
// at that has an id but no response, and on a selected response that is not
// a string.
func Select(responses []Response, id int64) (string, bool, error) {
	for _, r := range responses {
		if !r.HasID {
			continue
		}
		if !r.HasResponse {
			return "", false, &SelectError{r.Line, `has "id" but no "response" (the official scorer stops here with KeyError)`}
		}
		if !pyTruthy(r.Response) || !pyEqualsInt(r.ID, id) {
			continue
		}
		s, ok := r.Response.(string)
		if !ok {
			return "", false, &SelectError{r.Line, `"response" is not a string (the official scorer stops here with TypeError)`}
		}
		return s, true, nil
	}
	return "", false, nil
}

// Score scores responses against labels, with concepts from questions, as
// the official scorer does.
func Score(questions []Question, labels []Label, responses []Response) (*Scores, error) {
	concepts := map[int64][]string{}
	for _, q := range questions {
		concepts[q.ID] = q.Concepts // a later duplicate id wins, as in a dict
	}
	s := &Scores{Questions: len(labels)}
	for _, l := range labels {
		text, ok, err := Select(responses, l.ID)
		if err != nil {
			return nil, fmt.Errorf("question %d: %w", l.ID, err)
		}
		r := QuestionResult{ID: l.ID, Answered: ok, Labels: l.Answers, Response: text}
		r.Concepts, r.HasConcepts = concepts[l.ID]
		var pred map[string]string
		if ok {
			pred = Extract(text)
			r.Predicted = pred
			s.Answered++
		}
		for _, a := range l.Answers {
			p, has := pred[a.Name]
			r.Correct = append(r.Correct, IsEqual(p, has, a.Value))
		}
		s.Results = append(s.Results, r)
	}
	s.summarize()
	return s, nil
}

// Summarize computes the figures of results scored elsewhere (Correct,
// Answered and Concepts set), the way Score does.
func Summarize(results []QuestionResult) *Scores {
	s := &Scores{Questions: len(results), Results: results}
	for _, r := range results {
		if r.Answered {
			s.Answered++
		}
	}
	s.summarize()
	return s
}

func (s *Scores) summarize() {
	var answered []QuestionResult
	for _, r := range s.Results {
		if r.Answered {
			answered = append(answered, r)
		}
	}
	s.Official = metrics(answered)
	s.ZeroResults = len(answered) == 0
	s.Strict = metrics(s.Results)
	s.Concepts, s.ConceptCounts, s.TwoOrMore = conceptAccuracy(answered)
}

// metrics computes ABQ, PSAQ and UASQ with the official arithmetic, in the
// same order of operations, so the float results are the same bits.
func metrics(rs []QuestionResult) Metrics {
	if len(rs) == 0 {
		return Metrics{}
	}
	var m Metrics
	correctQ, correctS, totalS := 0, 0, 0
	total := 0.0
	for _, r := range rs {
		if r.AllCorrect() {
			correctQ++
		}
		n := len(r.Correct)
		c := r.nCorrect()
		correctS += c
		totalS += n
		per := 0.0
		if n > 0 {
			per = 1 / float64(n)
		}
		total += float64(c) * per
	}
	m.ABQ = Round4(float64(correctQ) / float64(len(rs)))
	if totalS > 0 {
		m.UASQ = Round4(float64(correctS) / float64(totalS))
	}
	m.PSAQ = Round4(total / float64(len(rs)))
	return m
}

func conceptAccuracy(rs []QuestionResult) (byConcept, byCount []Accuracy, two *Accuracy) {
	ci, ni := map[string]int{}, map[int]int{}
	var twoAcc Accuracy
	for _, r := range rs {
		if !r.HasConcepts {
			continue
		}
		cs := r.Concepts
		right := r.AllCorrect()
		for _, c := range cs {
			i, seen := ci[c]
			if !seen {
				i = len(byConcept)
				ci[c] = i
				byConcept = append(byConcept, Accuracy{Key: c})
			}
			byConcept[i].add(right)
		}
		n := len(cs)
		i, seen := ni[n]
		if !seen {
			i = len(byCount)
			ni[n] = i
			byCount = append(byCount, Accuracy{Key: strconv.Itoa(n)})
		}
		byCount[i].add(right)
		if n >= 2 {
			twoAcc.add(right)
		}
	}
	for i := range byConcept {
		byConcept[i].round()
	}
	for i := range byCount {
		byCount[i].round()
	}
	if twoAcc.Total > 0 {
		twoAcc.round()
		two = &twoAcc
	}
	return byConcept, byCount, two
}

func (a *Accuracy) add(right bool) {
	a.Total++
	if right {
		a.Correct++
	}
}

func (a *Accuracy) round() { a.Value = Round4(float64(a.Correct) / float64(a.Total)) }

// Round4 is Python's round(x, 4): correctly rounded to 4 decimal places
// (ties of the exact binary value to even), as a float.
func Round4(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 4, 64), 64)
	return f
}

// Percent is Python's f"{x:.2%}".
func Percent(x float64) string { return strconv.FormatFloat(x*100, 'f', 2, 64) + "%" }

// WriteOfficial prints what the official script prints, line for line.
func (s *Scores) WriteOfficial(w io.Writer) {
	fmt.Fprintf(w, "Accuracy by Question: %s\n", Percent(s.Official.ABQ))
	fmt.Fprintf(w, "Accuracy Proportional by Sub-Question: %s\n", Percent(s.Official.PSAQ))
	fmt.Fprintf(w, "Accuracy by Sub-Question: %s\n", Percent(s.Official.UASQ))
	fmt.Fprintln(w, "Concept Accuracy Analysis:")
	for _, c := range s.Concepts {
		fmt.Fprintf(w, "%s: %s\n", c.Key, Percent(c.Value))
	}
	fmt.Fprintln(w, "\nConcept Count Accuracy Analysis:")
	for _, c := range s.ConceptCounts {
		fmt.Fprintf(w, "%s Concept(s): %s\n", c.Key, Percent(c.Value))
	}
	if s.TwoOrMore != nil {
		fmt.Fprintf(w, "\nAccuracy for Questions with >= 2 Concepts: %s\n", Percent(s.TwoOrMore.Value))
	} else {
		fmt.Fprintln(w, "\nNo data available for questions with >= 2 Concepts.")
	}
}

// WriteOurs prints our additions, marked as not official.
func (s *Scores) WriteOurs(w io.Writer) {
	fmt.Fprintf(w, "\nanalyst (not official): %d of %d questions answered", s.Answered, s.Questions)
	if d := s.Questions - s.Answered; d > 0 {
		fmt.Fprintf(w, "; the official figures drop the %d unanswered", d)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Strict, unanswered counted wrong: ABQ %s, PSAQ %s, UASQ %s\n",
		Percent(s.Strict.ABQ), Percent(s.Strict.PSAQ), Percent(s.Strict.UASQ))
}
