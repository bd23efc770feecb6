package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/llm/llmtest"

	"github.com/analyst-cli/analyst/audit"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/pipeline"
)

// The model's cells print 400 (rows) and 0.425 (a share); 3,141,592 is
// printed only by the cell a model writes after being told.
const (
	countCell  = "print(len(df))\nprint((df.index < 170).mean())"
	visitsCell = "visits = len(df) * 7854 - 8\nprint(visits)"
	// untracedSummary states 3,141,592, which no cell has printed yet.
	untracedSummary   = "There are 400 rows; 42.5% of them come before row 170, and visits total 3,141,592."
	untracedNoteStart = "These numbers in your answer appear in no output of the code that ran"
)

// traceRecord is an answer's "numbers" in run.json.
type traceRecord struct {
	Traced   []traceEntry `json:"traced"`
	Untraced []traceEntry `json:"untraced"`
}

type traceEntry struct {
	Text   string `json:"text"`
	Answer string `json:"answer"`
	Cell   string `json:"cell"`
	Output string `json:"output"`
}

// An answer stating a number no cell printed: the model is told once (the
// request says which number), and either computes it (then every number
// links to the model's cell that printed it) or says it again (then it is
// marked untraced in the report and listed in run.json).
func TestRunTracesAnswerNumbers(t *testing.T) {
	for _, tc := range []struct {
		name, provider string
		codeBlocks     bool
		corrects       bool
	}{
		{"openai-tools-corrects", "openai", false, true},
		{"ollama-codeblocks-keeps-it", "ollama", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			data := salesCSV(t, dir, 400)
			var turns []turn
			corrected := strings.Replace(untracedSummary, "3,141,592", "3,141,592 (computed)", 1)
			if tc.codeBlocks {
				turns = []turn{{Text: "```python\n" + countCell + "\n```"}, {Text: "@rows[400]\n" + untracedSummary}}
				if tc.corrects {
					turns = append(turns, turn{Text: "```python\n" + visitsCell + "\n```"}, turn{Text: "@rows[400]\n" + corrected})
				}
			} else {
				turns = []turn{{Calls: []call{code(countCell)}}, {Calls: []call{final(map[string]any{"rows": 400}, untracedSummary)}}}
				if tc.corrects {
					turns = append(turns, turn{Calls: []call{code(visitsCell)}}, turn{Calls: []call{final(map[string]any{"rows": 400}, corrected)}})
				}
			}
			f := newFakeModel(t, tc.provider, turns...)
			if tc.codeBlocks {
				f.Caps = `["completion"]`
			}
			opts := options(t, data, filepath.Join(dir, "out"))
			opts.Questions = []string{"How many rows, and what share comes before row 170?"}
			opts.Model = f.Client(t, false)
			opts.NoExplore = true // the exploration is tested in explore_test.go
			res := run(t, opts)
			f.CheckProtocol(t)

			// Told once, after the first answer, naming only the untraced number.
			var told []string
			reqs := f.Requests()
			for i := range reqs {
				for _, m := range f.Messages(t, i) {
					if s := llmtest.ContentText(m["content"]); strings.Contains(s, untracedNoteStart) && i == len(reqs)-1 {
						told = append(told, s)
					}
				}
			}
			if len(told) != 1 || !strings.Contains(told[0], ": 3,141,592. Compute each one") {
				t.Fatalf("the model was told %d times: %q", len(told), told)
			}
			if note := f.LastText(t, 2, map[bool]string{true: "user", false: "tool"}[tc.codeBlocks]); !strings.Contains(note, untracedNoteStart) {
				t.Errorf("request 3's last message does not name the untraced number: %q", note)
			}

			nb, err := nbformat.ReadFile(res.Files.Notebook)
			if err != nil {
				t.Fatal(err)
			}
			byID := map[string]*nbformat.Cell{}
			for _, c := range nb.Cells {
				byID[c.ID] = c
			}
			var m struct {
				Model struct {
					Traced   int `json:"traced_numbers"`
					Untraced int `json:"untraced_numbers"`
				} `json:"model"`
				Questions []struct {
					Numbers   traceRecord `json:"numbers"`
					Told      []string    `json:"trace_told"`
					Corrected bool        `json:"trace_corrected"`
				} `json:"questions"`
			}
			b, _ := os.ReadFile(res.Files.Manifest)
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			q := m.Questions[0]
			if strings.Join(q.Told, ",") != "3,141,592" || q.Corrected != tc.corrects {
				t.Errorf("run.json: told %q, corrected %v; want [3,141,592], %v", q.Told, q.Corrected, tc.corrects)
			}
			// Each traced number names the model cell whose output shows it.
			want := map[string]string{"400": "400", "42.5%": "0.425", "3,141,592": "3141592"}
			for _, e := range q.Numbers.Traced {
				c := byID[e.Cell]
				if c == nil || !c.HasTag(nbformat.TagModel) || want[e.Text] != e.Output || !strings.Contains(strings.Join(outputTexts(c), "\n"), e.Output) {
					t.Errorf("traced %+v: cell %v, want a model cell printing %q", e, c != nil, want[e.Text])
				}
			}
			wantTraced, wantUntraced := 4, 0 // rows (named), 400, 42.5%, 3,141,592
			if !tc.corrects {
				wantTraced, wantUntraced = 3, 1
			}
			if len(q.Numbers.Traced) != wantTraced || len(q.Numbers.Untraced) != wantUntraced || m.Model.Traced != wantTraced || m.Model.Untraced != wantUntraced {
				t.Errorf("run.json: traced %+v, untraced %+v, totals %+v", q.Numbers.Traced, q.Numbers.Untraced, m.Model)
			}
			if q.Numbers.Traced[0].Answer != "rows" {
				t.Errorf("the named value is not traced first: %+v", q.Numbers.Traced[0])
			}

			// The report links each traced number to its cell's anchor, and
			// marks the untraced one in words.
			html, _ := os.ReadFile(res.Files.Report)
			answer := section(t, string(html), "answer")
			links := regexp.MustCompile(`<a class="traced" href="#cell-([^"]+)" title="Traced to cell In \[\d+\], whose output shows ([^"]+)">([^<]+)</a>`).FindAllStringSubmatch(answer, -1)
			if len(links) != wantTraced {
				t.Errorf("answer box has %d traced links, want %d:\n%s", len(links), wantTraced, answer)
			}
			for _, l := range links {
				if !strings.Contains(string(html), `id="cell-`+l[1]+`"`) {
					t.Errorf("link to #cell-%s: no such anchor", l[1])
				}
				if c := byID[l[1]]; c == nil || !strings.Contains(strings.Join(outputTexts(c), "\n"), l[2]) {
					t.Errorf("%s links to cell %s, whose output lacks %s", l[3], l[1], l[2])
				}
			}
			if tc.corrects {
				verifyTracedNumbers(t, opts, res, q.Numbers)
			}

			untraced := `<span class="untraced" title="Not traced to any cell: no cell's output shows this number">3,141,592<sup class="untraced-mark">untraced</sup></span>`
			if got := strings.Contains(answer, untraced); got == tc.corrects {
				t.Errorf("answer box marks 3,141,592 untraced: %v, want %v:\n%s", got, !tc.corrects, answer)
			}
		})
	}
}

// verifyTracedNumbers checks that analyst verify finds every traced number
// of an untouched run in its cell, and names the number and its cell when
// the notebook's output that number came from is edited.
func verifyTracedNumbers(t *testing.T, opts pipeline.Options, res *pipeline.Result, rec traceRecord) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	verify := func() *audit.Report {
		run, err := audit.Open(res.Files.Manifest)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := audit.Verify(ctx, run, audit.Options{Kernel: opts.Kernel})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := verify()
	if !rep.OK || len(rep.Numbers) != 3 {
		var b strings.Builder
		rep.WriteText(&b)
		t.Fatalf("the untouched run: ok %v, %d numbers checked (want 3):\n%s", rep.OK, len(rep.Numbers), b.String())
	}
	var visits traceEntry
	for _, e := range rec.Traced {
		if e.Text == "3,141,592" {
			visits = e
		}
	}
	nb, err := nbformat.ReadFile(res.Files.Notebook)
	if err != nil {
		t.Fatal(err)
	}
	index := 0
	for i, c := range nb.Cells {
		if c.ID == visits.Cell {
			index = i + 1
			c.Outputs[0].Text = strings.Replace(c.Outputs[0].Text, "3141592", "3141692", 1)
		}
	}
	if err := nbformat.WriteFile(res.Files.Notebook, nb); err != nil {
		t.Fatal(err)
	}
	rep = verify()
	var b strings.Builder
	rep.WriteText(&b)
	want := fmt.Sprintf("number   MISSING  3,141,592: 3,141,592 is not in the output of cell %d in the notebook", index)
	if rep.OK || !strings.Contains(b.String(), want) {
		t.Errorf("verify of the edited output does not name the number and its cell (%q):\n%s", want, b.String())
	}
}

// section is the HTML of <section id="id">.
func section(t *testing.T, page, id string) string {
	t.Helper()
	i := strings.Index(page, `<section id="`+id+`"`)
	if i < 0 {
		t.Fatalf("no section %s", id)
	}
	j := strings.Index(page[i:], "</section>")
	return page[i : i+j]
}

// outputTexts are a cell's stream and text/plain outputs.
func outputTexts(c *nbformat.Cell) []string {
	var out []string
	for _, o := range c.Outputs {
		out = append(out, o.Text)
		if s, ok := o.DataString("text/plain"); ok {
			out = append(out, s)
		}
	}
	return out
}
