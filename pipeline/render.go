package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/analyst-cli/analyst/audit"
	"github.com/analyst-cli/analyst/baseline"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/numtrace"
	"github.com/analyst-cli/analyst/report"
	"github.com/analyst-cli/analyst/runrecord"
)

// The report and the chart files are renderings: of the notebook as
// written (read back from its file) and of facts run.json records (the
// model's answers and findings, the stages, the versions, the limits). The
// run renders them so, and analyst verify renders them again (Render) and
// compares bytes, so that a chart or a report edited after the run, its
// sha256 in run.json recomputed, is named. Nothing in them depends on the
// occasion: start time and durations are not shown; the one count the
// occasion decides, the model requests retried, comes from run.json.

// renderInput is the report of the run m records, nb being its notebook as
// written. Tracing the numbers of the answers, findings and verdicts
// records them on m's answers (run.json's "numbers").
func renderInput(m *runrecord.Record, nb *nbformat.Notebook, katexDir string) report.Input {
	profile, err := audit.NotebookProfile(nb)
	if err != nil {
		profile = nil // profiling did not finish, as the report says
	}
	trace := tracer(numtrace.NewIndex(traceSources(nb)), profile)
	questionValues, goalValues := rerunValues(m.Rerun)
	answer, numbers := answerMarkdown(m.Asked, m.Questions, questionValues, trace)
	// A replay on new data says so above the answers; the marks move with
	// the text.
	if prefix := rerunMarkdown(m.Rerun, m.Data, profile != nil); prefix != "" {
		answer = prefix + answer
		for i := range numbers {
			numbers[i].Start += len(prefix)
			numbers[i].End += len(prefix)
		}
	}
	keyFindings, keyNumbers, findingNumbers := keyFindingsMarkdown(m.Exploration, trace, nb, goalValues)
	cellNumbers := traceVerdicts(nb, modelAnswers(m.Exploration, m.Questions), trace)
	maps.Copy(cellNumbers, findingNumbers)
	maps.Copy(cellNumbers, keyChangesMarks(m.KeyChanges, nb, trace))
	stages := make([]report.StageInfo, len(m.Stages))
	for i, s := range m.Stages {
		stages[i] = report.StageInfo{Name: s.Name, Title: s.Title, Status: s.Status, Lead: s.Lead}
	}
	return report.Input{
		Title:    dataTitle(m),
		Question: strings.Join(m.Asked, " · "),
		Answer:   answer,
		Numbers:  numbers,
		Notice:   outOfCoreNotice(profile, m.Data),
		// The exploration's findings open the report.
		KeyFindings:       keyFindings,
		KeyFindingNumbers: keyNumbers,
		CellNumbers:       cellNumbers,
		Notebook:          nb,
		Profile:           profile,
		Distributions:     notebookDistributions(nb),
		Inputs:            reportInputs(m),
		Relationships:     notebookRelationships(nb),
		KaTeXDir:          katexDir,
		Run: report.RunInfo{
			DataName: m.Data.Name, DataSHA256: m.Data.SHA256, DataBytes: m.Data.Bytes,
			Stages: stages, Failure: m.Failure,
			AnalystVersion: m.AnalystVersion, DriverHash: m.Driver, ImageID: m.Image,
			Versions: m.Versions, SandboxMemory: m.Limits.Memory, Model: reportModel(m.Model),
			OutputFiles: reportOutputFiles(m.Outputs.CodeFiles), OutputFolder: strings.TrimSuffix(m.Outputs.Notebook, ".ipynb") + "_files/",
		},
	}
}

// WriteReport writes the report (analyst run's and each eval case's) to path; formulas as TeX source beat no
// report at all when KaTeX cannot be used.
func WriteReport(path string, in report.Input) error {
	err := report.WriteFile(path, in)
	if errors.Is(err, report.ErrKaTeX) {
		in.KaTeXDir = ""
		err = report.WriteFile(path, in)
	}
	return err
}

// Render renders the report and the chart files of the run whose run.json
// is manifest again, from nb, the run's notebook as written, with the
// KaTeX in katexDir (the kernel image's, as the run had): their bytes, by
// path relative to the run's folder (NAME.html, NAME_files/chart-N.png and
// chart-N.json). The run wrote the same bytes unless a file was edited.
func Render(manifest string, nb *nbformat.Notebook, katexDir string) (map[string][]byte, error) {
	m, err := runrecord.Read(manifest)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(filepath.Base(manifest), ".run.json")
	dir, err := os.MkdirTemp("", "analyst-render-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	s := &staging{outDir: dir, dir: dir}
	if err := os.Mkdir(s.filesDir(), 0o755); err != nil {
		return nil, err
	}
	if _, err := s.writeCharts(nb, name); err != nil {
		return nil, err
	}
	if err := WriteReport(s.path(name+".html"), renderInput(m, nb, katexDir)); err != nil {
		return nil, fmt.Errorf("rendering the report: %w", err)
	}
	out := map[string][]byte{}
	if out[name+".html"], err = os.ReadFile(s.path(name + ".html")); err != nil {
		return nil, err
	}
	charts, err := os.ReadDir(s.filesDir())
	if err != nil {
		return nil, err
	}
	for _, c := range charts {
		if out[name+"_files/"+c.Name()], err = os.ReadFile(filepath.Join(s.filesDir(), c.Name())); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// reportOutputFiles are the code's files as the report lists them.
func reportOutputFiles(files []runrecord.CodeFile) []report.OutputFile {
	var out []report.OutputFile
	for _, f := range files {
		out = append(out, report.OutputFile{Name: f.Name, Bytes: f.Bytes})
	}
	return out
}

// notebookRelationships are the relationships between the tables that the
// relationships cell of nb displayed; nil without one (a file, one table,
// a stage that did not finish).
func notebookRelationships(nb *nbformat.Notebook) *eda.RelationshipProfile {
	raw, ok := cellOutput(nb, eda.RelationshipsTag, nbformat.MimeRelationships)
	if !ok {
		return nil
	}
	p, ok, err := eda.RelationshipsFromData(map[string]json.RawMessage{nbformat.MimeRelationships: raw})
	if !ok || err != nil {
		return nil
	}
	return p
}

// notebookDistributions are the distributions of the columns the report's
// profile describes, as the sketch cell of the same stage (a folder
// table's own profile stage, or the profile stage) keeps them; nil without
// one, or when it cannot be read (the report then draws no histograms).
func notebookDistributions(nb *nbformat.Notebook) map[string]*report.Distribution {
	stage, ok := profileStage(nb)
	if !ok {
		return nil
	}
	var raw json.RawMessage
	for _, c := range nb.Cells {
		if s, _ := c.Stage(); s == stage && c.HasTag(eda.SketchTag) {
			for _, o := range c.Outputs {
				if r, ok := o.Data[eda.MimeSketch]; ok {
					raw = r
				}
			}
		}
	}
	sk, err := baseline.ParseSketch(raw)
	if raw == nil || err != nil {
		return nil
	}
	out := map[string]*report.Distribution{}
	for _, c := range sk.Columns {
		d := &report.Distribution{}
		if c.Numbers != nil {
			d.Points, d.Weights = c.Numbers.Points, c.Numbers.Weights
		}
		if c.Dates != nil {
			d.Periods = c.Dates.Periods
		}
		out[c.Name] = d
	}
	return out
}

// profileStage is the stage of the first cell whose output is a profile:
// the one audit.NotebookProfile reads.
func profileStage(nb *nbformat.Notebook) (string, bool) {
	for _, c := range nb.Cells {
		if !c.HasTag(eda.ProfileTag) {
			continue
		}
		for _, o := range c.Outputs {
			if _, ok := o.Data[nbformat.MimeProfile]; ok {
				return c.Stage()
			}
		}
	}
	return "", false
}
