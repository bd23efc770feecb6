package evals

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/internal/atomicfile"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/pipeline"
	"github.com/analyst-cli/analyst/report"
)

// CasesDir is the folder of an output folder that holds each case's
// notebook and HTML report: cases/MODEL/CASE[-rK].ipynb and .html.
const CasesDir = "cases"

// CaseRecord is what a case's notebook and report are made of: the cells
// the kernel ran (setup, load, profile, then the model's), the questions
// and the agent's answers.
type CaseRecord struct {
	Notebook  *nbformat.Notebook
	Profile   *eda.Profile
	Stages    []report.StageInfo
	Questions []string
	Answers   []*agent.Answer
	Model     *report.ModelInfo
	Versions  map[string]string
	DataName  string
}

// newCaseRecord starts the record of a case with an empty notebook. Its
// title does not say whether the case ran forked or in a kernel of its own
// (results.jsonl's fork_of does): the case's files are the same bytes
// either way.
func newCaseRecord(c Case) *CaseRecord {
	nb := nbformat.New()
	how := fmt.Sprintf("The cells `analyst eval` ran for this case on `%s`: setup, load and profile, then the model's, "+
		"in a session that saw nothing another case did. Run top to bottom, they give these outputs again.", filepath.Base(c.Dataset))
	nb.AddMarkdown(fmt.Sprintf("# Eval case `%s`\n\n%s", c.ID, how), nbformat.TagNotebookOnly)
	return &CaseRecord{Notebook: nb, DataName: filepath.Base(c.Dataset)}
}

// addStage records a stage the kernel ran before the model was asked.
func (rec *CaseRecord) addStage(st eda.Stage, status report.StageStatus) {
	rec.Stages = append(rec.Stages, report.StageInfo{Name: st.Name, Title: st.Title, Status: status})
}

// questionStage is the question stage of analyst run, writing into the
// case's notebook and stages. The stages carry no durations: a case's files
// are the same bytes whatever the schedule (shards, -j, reruns).
func (rec *CaseRecord) questionStage(ag *agent.Agent, reflectRounds int) *pipeline.QuestionStage {
	return &pipeline.QuestionStage{Agent: ag, Notebook: rec.Notebook, ReflectRounds: reflectRounds,
		End: func(info report.StageInfo) {
			info.Duration = 0
			rec.Stages = append(rec.Stages, info)
		}}
}

// caseFiles is where a result's notebook and report go, relative to the
// output folder and with forward slashes (they are links in report.html).
func caseFiles(r *Result) (notebook, html string) {
	name := Slug(r.Case)
	if r.Repeat > 0 {
		name += fmt.Sprintf("-r%d", r.Repeat)
	}
	base := path.Join(CasesDir, Slug(r.Model), name)
	return base + ".ipynb", base + ".html"
}

// caseLinkedCodeBytes is the shortest hidden code a case's report links
// to in its notebook instead of copying (report.Input.LinkedCodeBytes):
// the loader and the profile's functions, not a stage's few lines.
const caseLinkedCodeBytes = 8 << 10

// writeCaseFiles writes rec as the notebook and HTML report of r under
// dir, with the writers analyst run uses, and records their paths in r.
func writeCaseFiles(dir string, r *Result, rec *CaseRecord, katexDir string) error {
	nbPath, htmlPath := caseFiles(r)
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(filepath.FromSlash(nbPath))), 0o755); err != nil {
		return fmt.Errorf("writing the files of case %s: %w", r.Case, err)
	}
	nb := rec.Notebook
	numberCells(nb)
	pipeline.SetProvenance(nb, rec.Versions, r.ImageID)
	nb.SetProvenance("eval", map[string]any{"suite": r.Suite, "suite_hash": r.SuiteHash, "case": r.Case, "repeat": r.Repeat,
		"model": r.Model, "model_digest": r.ModelDigest, //houserules:literal provenance keys
		"seed": r.Seed, "status": r.Status})
	if err := nbformat.WriteFileCompact(filepath.Join(dir, filepath.FromSlash(nbPath)), nb); err != nil {
		return fmt.Errorf("writing the notebook of case %s: %w", r.Case, err)
	}
	in := report.Input{
		Title:    fmt.Sprintf("Eval case %s · %s", r.Case, r.Model),
		Question: strings.Join(rec.Questions, " · "),
		Answer:   strings.TrimSpace(pipeline.AnswerMarkdown(rec.Questions, rec.Answers) + "\n\n" + scoreMarkdown(r)),
		Notebook: nb,
		Profile:  rec.Profile,
		KaTeXDir: katexDir,
		// The notebook is beside the report: the long hidden code (the
		// loader, the profile's functions) is linked there, not copied.
		NotebookLink: path.Base(nbPath), LinkedCodeBytes: caseLinkedCodeBytes,
		Run: report.RunInfo{DataName: rec.DataName, Stages: rec.Stages, Failure: r.Error, ImageID: r.ImageID,
			DriverHash: kernel.DriverHash(), Versions: rec.Versions, Model: rec.Model},
	}
	if !mayHaveMath(in) {
		// Loading KaTeX takes a fifth of a second; most cases have no formula.
		in.KaTeXDir = ""
	}
	p := filepath.Join(dir, filepath.FromSlash(htmlPath))
	if err := pipeline.WriteReport(p, in); err != nil {
		return fmt.Errorf("writing the report of case %s: %w", r.Case, err)
	}
	r.Notebook, r.Report = nbPath, htmlPath
	return nil
}

// numberCells numbers the notebook's run cells 1, 2, ... in order, their
// results with them, as the notebook run top to bottom numbers them. The
// kernel's own counts depend on the schedule: a parent's cells are counted
// where the root kernel had got to (after the tables loaded before), and a
// forked case's cells continue from its parent's.
func numberCells(nb *nbformat.Notebook) {
	n := 0
	for _, c := range nb.Cells {
		if c.CellType != nbformat.Code || c.ExecutionCount == nil {
			continue
		}
		n++
		c.ExecutionCount = ptr(n)
		for i := range c.Outputs {
			if c.Outputs[i].ExecutionCount != nil {
				c.Outputs[i].ExecutionCount = ptr(n)
			}
		}
	}
}

// mayHaveMath reports whether a report could show a formula: a math
// delimiter in its answer, its markdown cells or its markdown and LaTeX
// outputs.
func mayHaveMath(in report.Input) bool {
	texts := []string{in.Answer}
	for _, c := range in.Notebook.Cells {
		if c.CellType == nbformat.Markdown {
			texts = append(texts, c.Source)
		}
		for _, o := range c.Outputs {
			for _, mime := range []string{nbformat.MimeMarkdown, nbformat.MimeLaTeX} {
				if _, ok := o.Data[mime]; ok {
					return true
				}
			}
		}
	}
	for _, t := range texts {
		t = codeSpans.ReplaceAllString(t, "") // `$ € £` in the load stage's notes is no formula
		if strings.Count(t, "$") >= 2 || strings.Contains(t, `\(`) || strings.Contains(t, `\[`) {
			return true
		}
	}
	return false
}

// codeSpans are markdown's fenced blocks and inline code.
var codeSpans = regexp.MustCompile("(?s)```.*?```|`[^`]*`")

// scoreMarkdown is how a result was scored: each expected answer against
// what the model said.
func scoreMarkdown(r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Scored: %s**", r.Status)
	if r.Class != "" {
		fmt.Fprintf(&b, " (%s)", r.Class)
	}
	fmt.Fprintf(&b, ", %d of %d answers right.\n\n", r.Correct, r.Total)
	if len(r.Answers) > 0 {
		b.WriteString("| answer | expected | given | right |\n|---|---|---|---|\n")
		for _, a := range r.Answers {
			got := "(missing)"
			if a.Has {
				got = mdCell(a.Got)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mdCell(a.Name), mdCell(a.Want), got, yesNo(a.OK))
		}
	}
	for _, c := range r.Charts {
		if !c.OK {
			fmt.Fprintf(&b, "\nChart check failed: %s\n", c.Why)
		}
	}
	return b.String()
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

// copyCaseFiles copies r's notebook and report from the folder from to
// the folder to (merging shards).
func copyCaseFiles(from, to string, r *Result) error {
	if samePath(from, to) {
		return nil
	}
	for _, rel := range []string{r.Notebook, r.Report} {
		if rel == "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(from, filepath.FromSlash(rel)))
		if err != nil {
			return fmt.Errorf("case %s of %s: %w", r.Case, r.Model, err)
		}
		dst := filepath.Join(to, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(dst, data); err != nil {
			return err
		}
	}
	return nil
}

func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}
