package dabench

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestFindAnswers(t *testing.T) {
	tests := []struct {
		name, text string
		want       []Match
	}{
		{"plain", "@mean_fare[34.65]", []Match{{"mean_fare", "34.65"}}},
		{"several", "a @x[1] b @y[two] c", []Match{{"x", "1"}, {"y", "two"}}},
		{"value ends at first ]", "@x[[1]]", []Match{{"x", "[1"}}},
		{"label 273 style", "@x[[]", []Match{{"x", "["}}},
		{"empty value", "@x[]", []Match{{"x", ""}}},
		{"no space before [", "@x [1]", nil},
		{"newline inside value stops the match", "@x[1\n2] @y[3]", []Match{{"y", "3"}}},
		{"carriage return is not a newline", "@x[1\r2]", []Match{{"x", "1\r2"}}},
		{"unicode letters in name", "@préciö[1] @名前[2]", []Match{{"préciö", "1"}, {"名前", "2"}}},
		{"unicode digits and No in name", "@x١²_[1]", []Match{{"x١²_", "1"}}},
		{"combining mark is not \\w", "@e\u0301[1]", nil},
		{"hyphen is not \\w", "@a-b[1]", nil},
		{"nested @", "@@x[1]", []Match{{"x", "1"}}},
		{"spaces kept in value", "@x[ 1 ]", []Match{{"x", " 1 "}}},
		{"value with @", "@x[@y[2]", []Match{{"x", "@y[2"}}},
		{"no name", "@[1]", nil},
		{"unclosed", "@x[1", nil},
	}
	for _, tt := range tests {
		if got := FindAnswers(tt.text); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: FindAnswers(%q) = %q, want %q", tt.name, tt.text, got, tt.want)
		}
	}
	if got := Extract("@x[1] @y[2] @x[3]"); got["x"] != "3" || got["y"] != "2" {
		t.Errorf("the last duplicate must win: %v", got)
	}
}

func TestParsePyFloat(t *testing.T) {
	inf := math.Inf(1)
	ok := []struct {
		in   string
		want float64
	}{
		{"1", 1}, {"-1.5", -1.5}, {"+.5", 0.5}, {"5.", 5}, {"1e3", 1000}, {"1E+3", 1000}, {"1.5e-3", 0.0015},
		{" 1 ", 1}, {"\t\n1\v\f\r", 1}, {"\u00a01\u3000", 1}, {"\u20281\u2029", 1}, {"\u00851", 1},
		{"1_000", 1000}, {"1_0.0_1", 10.01}, {"1e1_0", 1e10}, {"١٢", 12}, {"١_٢", 12}, {"1_١", 11}, {"𝟙.𝟝", 1.5},
		{"inf", inf}, {"-Infinity", -inf}, {"+iNf", inf}, {"1e400", inf}, {"-1e400", -inf}, {"1e-400", 0},
		{"007", 7}, {"-0", math.Copysign(0, -1)},
	}
	for _, tt := range ok {
		got, err := ParsePyFloat(tt.in)
		if err != nil || got != tt.want || math.Signbit(got) != math.Signbit(tt.want) {
			t.Errorf("ParsePyFloat(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, s := range []string{"nan", "-NaN", "+nan"} {
		if got, err := ParsePyFloat(s); err != nil || !math.IsNaN(got) {
			t.Errorf("ParsePyFloat(%q) = %v, %v; want NaN", s, got, err)
		}
	}
	bad := []string{"", " ", "1,000", "12%", "0x10", "0x1p-2", "1__0", "_1", "1_", "1_.5", "1._5", "1_e1", "inf_",
		"nan(1)", ".", "1e", "1e+", "e5", "infinit", "\x1c1", "1\x1c", "\u200b1", "\ufeff1", "1 2", "--1", "$1",
		"1.2.3", "one", "1/2", "１,０"}
	for _, s := range bad {
		if got, err := ParsePyFloat(s); err == nil {
			t.Errorf("ParsePyFloat(%q) = %v, want an error (Python's float() raises)", s, got)
		}
	}
}

func TestIsEqual(t *testing.T) {
	tests := []struct {
		pred  string
		has   bool
		label string
		want  bool
	}{
		{"34.65", true, "34.65", true},
		{"Yes", true, "yes", false},     // case-sensitive
		{" 34.65", true, "34.65", true}, // float() strips
		{"34.650000", true, "34.65", true},
		{"34.6500009", true, "34.65", true},
		{"34.651", true, "34.65", false},
		{"34.65 ", true, "34.65", true},
		{"abc ", true, "abc", false}, // no strip for strings
		{"1,000", true, "1000", false},
		{"12%", true, "12", false},
		{"1_000", true, "1000", true},
		{"nan", true, "nan", true}, // string equality
		{"nan", true, "NaN", false},
		{"inf", true, "inf", true},
		{"inf", true, "Infinity", false}, // inf - inf is nan
		{"", false, "", false},           // missing name
		{"", true, "", true},
		{"٣", true, "3", true},
		{"0.1", true, "1e-1", true},
	}
	for _, tt := range tests {
		if got := IsEqual(tt.pred, tt.has, tt.label); got != tt.want {
			t.Errorf("IsEqual(%q, %v, %q) = %v, want %v", tt.pred, tt.has, tt.label, got, tt.want)
		}
	}
}

// writeFile writes content to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSelect(t *testing.T) {
	dir := t.TempDir()
	resp := writeFile(t, dir, "r.jsonl", strings.Join([]string{
		`{"id": 1, "response": ""}`,             // falsy: skipped
		`{"response": "@a[no id]"}`,             // no id: skipped
		`{"id": "1", "response": "@a[str id]"}`, // "1" != 1
		`{"id": 1.0, "response": "@a[float id]"}`,
		`{"id": 1, "response": "@a[later]"}`,
		`{"id": true, "response": "@a[true]"}`,
		`{"id": 2.0000000000000001, "response": "@a[rounded float]"}`,
		`{"id": 4, "response": 0}`,
		`{"id": 4, "response": ["x"]}`,
	}, "\n")+"\n")
	rs, err := LoadResponses(resp)
	if err != nil {
		t.Fatal(err)
	}
	check := func(id int64, want string, wantOK bool, wantErr string) {
		t.Helper()
		got, ok, err := Select(rs, id)
		if wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), wantErr) {
				t.Errorf("Select(%d): error %v, want %q", id, err, wantErr)
			}
			return
		}
		if err != nil || got != want || ok != wantOK {
			t.Errorf("Select(%d) = %q, %v, %v; want %q, %v", id, got, ok, err, want, wantOK)
		}
	}
	check(1, "@a[float id]", true, "")
	check(2, "@a[rounded float]", true, "")
	check(3, "", false, "")
	check(4, "", false, "line 9: \"response\" is not a string")
	// True == 1 in Python, but 1.0 came first; for id 0 nothing matches.
	check(0, "", false, "")

	rs2, err := LoadResponses(writeFile(t, dir, "r2.jsonl", `{"id": 7}`+"\n"+`{"id": 1, "response": "x"}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	check2 := func(id int64, wantErr bool) {
		_, _, err := Select(rs2, id)
		if (err != nil) != wantErr {
			t.Errorf("Select(%d) on a line without response: error %v, want error %v", id, err, wantErr)
		}
	}
	check2(1, true) // the scan passes line 1 first: KeyError in the official scorer

	if _, err := LoadResponses(writeFile(t, dir, "r3.jsonl", `{"id": 1, "response": "x"}`+"\n\n")); err == nil || !strings.Contains(err.Error(), "r3.jsonl:2") {
		t.Errorf("a blank line must be an error naming file and line (json.loads fails on it): %v", err)
	}
}

const questionsJSONL = `{"id": 1, "question": "q1", "concepts": ["Summary Statistics"], "constraints": "", "format": "@a[x]", "file_name": "t.csv", "level": "easy"}
{"id": 2, "question": "q2", "concepts": ["Summary Statistics", "Correlation Analysis"], "constraints": "", "format": "", "file_name": "t.csv", "level": "medium"}
{"id": 3, "question": "q3", "concepts": ["Correlation Analysis"], "constraints": "", "format": "", "file_name": "t.csv", "level": "hard"}
{"id": 4, "question": "q4", "concepts": ["Outlier Detection"], "constraints": "", "format": "", "file_name": "t.csv", "level": "hard"}
`

const labelsJSONL = `{"id": 1, "common_answers": [["a", "1.5"]]}
{"id": 2, "common_answers": [["a", "Yes"], ["b", "2"], ["c", "3"], ["a", "Yes"]]}
{"id": 3, "common_answers": [["r", "0.21"], ["s", "x"]]}
{"id": 4, "common_answers": [["o", "7"]]}
`

func TestScore(t *testing.T) {
	dir := t.TempDir()
	qs, err := LoadQuestions(writeFile(t, dir, "q.jsonl", questionsJSONL))
	if err != nil {
		t.Fatal(err)
	}
	ls, err := LoadLabels(writeFile(t, dir, "l.jsonl", labelsJSONL))
	if err != nil {
		t.Fatal(err)
	}
	if len(ls[1].Answers) != 3 {
		t.Fatalf("duplicate label names must collapse: %v", ls[1].Answers)
	}
	rs, err := LoadResponses(writeFile(t, dir, "r.jsonl", `{"id": 1, "response": "@a[1.50] @extra[9]"}
{"id": 2, "response": "@a[Yes] @b[2.0000001] @c[4]"}
{"id": 3, "response": "@r[0.2100000001] @s[x]"}
`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Score(qs, ls, rs)
	if err != nil {
		t.Fatal(err)
	}
	// Answered: 1 (1/1), 2 (2/3), 3 (2/2); 4 dropped.
	want := Metrics{ABQ: Round4(2.0 / 3), PSAQ: Round4((1 + 2*(1.0/3) + 1) / 3), UASQ: Round4(5.0 / 6)}
	if s.Official != want {
		t.Errorf("official = %+v, want %+v", s.Official, want)
	}
	if s.Official.ABQ != 0.6667 || s.Official.PSAQ != 0.8889 || s.Official.UASQ != 0.8333 {
		t.Errorf("official = %+v", s.Official)
	}
	strict := Metrics{ABQ: 0.5, PSAQ: Round4((1 + 2*(1.0/3) + 1) / 4), UASQ: Round4(5.0 / 7)}
	if s.Strict != strict {
		t.Errorf("strict = %+v, want %+v", s.Strict, strict)
	}
	if s.Answered != 3 || s.Questions != 4 {
		t.Errorf("answered %d of %d", s.Answered, s.Questions)
	}
	var out bytes.Buffer
	s.WriteOfficial(&out)
	wantText := `Accuracy by Question: 66.67%
Accuracy Proportional by Sub-Question: 88.89%
Accuracy by Sub-Question: 83.33%
Concept Accuracy Analysis:
Summary Statistics: 50.00%
Correlation Analysis: 50.00%

Concept Count Accuracy Analysis:
1 Concept(s): 100.00%
2 Concept(s): 0.00%

Accuracy for Questions with >= 2 Concepts: 0.00%
`
	if out.String() != wantText {
		t.Errorf("official text:\n%s\nwant:\n%s", out.String(), wantText)
	}
	out.Reset()
	if err := s.WriteOfficialJSON(&out); err != nil {
		t.Fatal(err)
	}
	wantJSON := `{
    "main_results": {
        "Accuracy by Question": 0.6667,
        "Accuracy Proportional by Sub-Question": 0.8889,
        "Accuracy by Sub-Question": 0.8333
    },
    "concept_accuracy_analysis": {
        "Summary Statistics": 0.5,
        "Correlation Analysis": 0.5
    },
    "concept_count_accuracy_analysis": {
        "1": 1.0,
        "2": 0.0
    },
    "two_or_more_concepts_accuracy": 0.0
}`
	if out.String() != wantJSON {
		t.Errorf("official JSON:\n%s\nwant:\n%s", out.String(), wantJSON)
	}
}

func TestScoreEdgeCases(t *testing.T) {
	dir := t.TempDir()
	qs, _ := LoadQuestions(writeFile(t, dir, "q.jsonl", questionsJSONL))
	// A label with no sub-answers is right by ABQ (all([]) is True) and
	// scores 0 in PSAQ.
	ls, err := LoadLabels(writeFile(t, dir, "l.jsonl", `{"id": 1, "common_answers": []}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	rs, _ := LoadResponses(writeFile(t, dir, "r.jsonl", `{"id": 1, "response": "anything"}`+"\n"))
	s, err := Score(qs, ls, rs)
	if err != nil {
		t.Fatal(err)
	}
	if s.Official != (Metrics{ABQ: 1, PSAQ: 0, UASQ: 0}) {
		t.Errorf("empty label: %+v", s.Official)
	}
	// No response at all: the official figures are the int 0.
	s, err = Score(qs, ls, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_ = s.WriteOfficialJSON(&out)
	if !strings.Contains(out.String(), `"Accuracy by Question": 0,`) || !strings.Contains(out.String(), `"concept_accuracy_analysis": {}`) ||
		!strings.Contains(out.String(), `"two_or_more_concepts_accuracy": null`) {
		t.Errorf("no results:\n%s", out.String())
	}
}

func TestRound4AndRepr(t *testing.T) {
	tests := []struct {
		x    float64
		want string
	}{
		{0.5, "0.5"}, {1, "1.0"}, {0, "0.0"}, {2.0 / 3, "0.6667"}, {0.00005, "0.0001"}, {0.00015, "0.0001"}, // 0.00015 is below the tie in binary
		{0.12345, "0.1235"}, {0.99995, "1.0"},
	}
	for _, tt := range tests {
		if got := pyFloatRepr(Round4(tt.x)); got != tt.want {
			t.Errorf("repr(round(%v, 4)) = %s, want %s", tt.x, got, tt.want)
		}
	}
	if got := pyFloatRepr(1e-5); got != "1e-05" {
		t.Errorf("repr(1e-5) = %s", got)
	}
	if got := pyString("é\x7f\"😀"); got != `"\u00e9\u007f\"\ud83d\ude00"` {
		t.Errorf("pyString = %s", got)
	}
}
