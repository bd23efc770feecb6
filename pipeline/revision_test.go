package pipeline_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/nbformat"
)

// The model's reason for revising its answer in reflection is shown beside
// the revised answer: in the report's answer box, in the reflection's cell
// of the notebook and report, and in run.json's verdict. Tools mode
// (revise(reason)) over Ollama's wire format; the reason carries markup
// that must not become live HTML.
func TestRunRevisionReason(t *testing.T) {
	const redraw = monthlyChart + "\nfig.autofmt_xdate()"
	// One run (a pipeline run is slow): the code-block verdict's reason is
	// read the same way (agent's TestAgentReflectionVerdictCodeBlocks).
	for _, tt := range []struct {
		provider, reason, shown string
		revise                  turn
		answer                  turn
	}{{
		provider: "ollama",
		reason:   "the month labels overlap <img src=x onerror=alert(1)>; rotate them",
		shown:    "the month labels overlap <!-- raw HTML omitted -->; rotate them", // goldmark safe mode, as for all the model's markdown
		revise:   turn{Calls: []call{{Name: "revise", Args: `{"reason": "the month labels overlap <img src=x onerror=alert(1)>; rotate them"}`}, code(redraw)}},
		answer:   turn{Calls: []call{final(map[string]any{"peak_month": "2024-03"}, "March peaks; labels rotated.")}},
	}} {
		t.Run(tt.provider, func(t *testing.T) {
			dir := t.TempDir()
			f := newFakeModel(t, tt.provider,
				turn{Calls: []call{code(monthlyChart)}},
				turn{Calls: []call{final(map[string]any{"peak_month": "2024-03"}, "March peaks.")}},
				tt.revise, tt.answer)
			opts := options(t, salesCSV(t, dir, 400), filepath.Join(dir, "out"))
			opts.Questions = []string{"Plot revenue by month; which month peaks?"}
			opts.Model, opts.ModelSpec, opts.NoExplore = f.Client(t, false), tt.provider+":m", true
			res := run(t, opts)

			// What was sent: the reflection offered revise (tools mode),
			// and its call was answered.
			if n := len(f.Requests()); n != 4 {
				t.Fatalf("%d model requests, want 4", n)
			}
			if tt.provider == "ollama" {
				answered := false
				for _, msg := range f.Messages(t, 3) {
					answered = answered || msg["role"] == "tool" && strings.HasPrefix(msg["content"].(string), "noted. Now fix it")
				}
				if !answered || !strings.Contains(strings.Join(f.ToolNames(t, 2), ","), "revise") {
					t.Errorf("the reflection offered %v; the revise call answered: %v", f.ToolNames(t, 2), answered)
				}
			}
			// run.json: the verdict keeps the reason.
			var m struct {
				Questions []struct {
					Revised  bool `json:"revised"`
					Verdicts []struct {
						Revised bool   `json:"revised"`
						Reason  string `json:"reason"`
					} `json:"verdicts"`
				} `json:"questions"`
			}
			b, _ := os.ReadFile(res.Files.Manifest)
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			if q := m.Questions[0]; !q.Revised || len(q.Verdicts) != 1 || !q.Verdicts[0].Revised || q.Verdicts[0].Reason != tt.reason {
				t.Errorf("run.json question %+v, want the revised verdict with reason %q", q, tt.reason)
			}
			// The notebook: the reflection's cell quotes the reason, right
			// before the revised answer.
			nb, err := nbformat.ReadFile(res.Files.Notebook)
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range nb.Cells {
				if c.HasTag("reflection") {
					if !strings.Contains(c.Source, "> **The model's reason:** "+tt.reason+"\n> \n> revised: @peak_month[2024-03]") ||
						i+1 >= len(nb.Cells) || !strings.HasPrefix(nb.Cells[i+1].Source, "Revised **Answer**") {
						t.Errorf("reflection cell %q, then %q", c.Source, nb.Cells[i+1].Source)
					}
				}
			}
			// The report: beside the revised answer in the answer box, and
			// in the reflection; no markup of the model's becomes HTML.
			html, _ := os.ReadFile(res.Files.Report)
			page := string(html)
			box := page[strings.Index(page, `<section id="answer"`):]
			box = box[:strings.Index(box, "</section>")]
			if !strings.Contains(box, "<em>Revised after the model checked its charts.</em> <strong>The model's reason:</strong> "+tt.shown) {
				t.Errorf("answer box lacks the reason:\n%s", box)
			}
			reflection := page[strings.Index(page, `id="stage-reflection-1"`):]
			if !strings.Contains(reflection, "<strong>The model's reason:</strong> "+tt.shown) {
				t.Errorf("reflection lacks the reason")
			}
			if strings.Contains(page, "<img src=x") || strings.Contains(page, "onerror=alert") && !strings.Contains(page, "onerror=alert(1)&gt;") {
				t.Errorf("the reason's markup became HTML")
			}
			f.CheckProtocol(t)
		})
	}
}
