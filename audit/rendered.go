package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/runrecord"
)

// A run's hashes in run.json are no proof on their own: anyone can edit a
// chart or the report and recompute them. What proves the report and the
// charts is that they are renderings of the notebook (whose cells the
// re-run checks) and of run.json's facts, so verify renders them again and
// compares bytes; and that the facts run.json states about the data and
// the sandbox are what the re-run found.

// RenderCheck is one report or chart file of the run against what the
// run's notebook and run.json render.
type RenderCheck struct {
	Path   string `json:"path"`
	Status string `json:"status"` // ok, differs, missing, not-rendered
	Diff   string `json:"diff,omitempty"`
}

// FactCheck is one fact run.json states (data.rows, limits.memory, ...)
// against what the re-run found.
type FactCheck struct {
	Name     string `json:"name"`
	Status   string `json:"status"` // ok, differs
	Recorded string `json:"recorded"`
	Reran    string `json:"reran"`
}

// checkRendered renders the run's report and chart files from nb and
// compares each with the file the run wrote; a chart run.json lists that
// the notebook does not show is named too.
func checkRendered(run *Run, nb *nbformat.Notebook, render func(*nbformat.Notebook) (map[string][]byte, error)) []RenderCheck {
	files, err := render(nb)
	if err != nil {
		return []RenderCheck{{Path: run.Record.Outputs.Report, Status: "not-rendered", Diff: err.Error()}}
	}
	var out []RenderCheck
	for _, rel := range sortedKeys(files) {
		out = append(out, compareRendered(filepath.Join(run.Dir, filepath.FromSlash(rel)), rel, files[rel]))
	}
	for _, c := range run.Record.Outputs.Charts {
		if _, ok := files[filepath.ToSlash(c)]; !ok {
			out = append(out, RenderCheck{Path: c, Status: CellDiffers, Diff: "run.json lists this chart, and the notebook shows no chart of that number"})
		}
	}
	return out
}

// compareRendered compares the file at path with want, reading no more of
// it than want's size and a byte.
func compareRendered(path, rel string, want []byte) RenderCheck {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return RenderCheck{Path: rel, Status: "missing"}
	}
	if err != nil {
		return RenderCheck{Path: rel, Status: CellDiffers, Diff: err.Error()}
	}
	defer f.Close()
	got, err := io.ReadAll(io.LimitReader(f, int64(len(want))+1))
	switch {
	case err != nil:
		return RenderCheck{Path: rel, Status: CellDiffers, Diff: err.Error()}
	case bytes.Equal(got, want):
		return RenderCheck{Path: rel, Status: CellOK}
	}
	return RenderCheck{Path: rel, Status: CellDiffers, Diff: renderDiff(rel, got, want)}
}

// renderDiff says where the file (got, as far as it was read) first
// differs from the rendering (want): a byte offset for images, the line
// and the text around it for the rest.
func renderDiff(rel string, got, want []byte) string {
	n := 0
	for n < len(got) && n < len(want) && got[n] == want[n] {
		n++
	}
	if strings.HasSuffix(rel, ".png") {
		return fmt.Sprintf("not the chart the notebook shows: first difference at byte %d (the notebook's chart has %d bytes)", n, len(want))
	}
	line := bytes.Count(want[:n], []byte("\n")) + 1
	return fmt.Sprintf("not what the notebook and run.json render: line %d differs\n      - file:      %s\n      + rendered:  %s",
		line, around(got, n), around(want, n))
}

// around is the text of b near offset n, on n's line, quoted.
func around(b []byte, n int) string {
	const span = 60
	from := max(0, n-span)
	if i := bytes.LastIndexByte(b[from:min(n, len(b))], '\n'); i >= 0 {
		from += i + 1
	}
	to := min(len(b), n+span)
	if i := bytes.IndexByte(b[min(n, len(b)):to], '\n'); i >= 0 {
		to = n + i
	}
	return strconv.Quote(string(b[from:to]))
}

// checkFacts compares what run.json states of the data (rows, columns,
// format, from the profile) and of the sandbox (the limits in force) with
// what the re-run's profile cell found and the limits it ran under.
func checkFacts(rec *runrecord.Record, nb *nbformat.Notebook, reran map[string][]nbformat.Output, limits kernel.Enforced) []FactCheck {
	var out []FactCheck
	add := func(name, recorded, got string) {
		status := CellOK
		if recorded != got {
			status = CellDiffers
		}
		out = append(out, FactCheck{Name: name, Status: status, Recorded: recorded, Reran: got})
	}
	// A folder's rows and columns are its main table's; its format is the
	// folder's, which no profile states.
	stage := eda.StageProfile
	if rec.Data.Format == eda.FormatFolder {
		stage = eda.TableStage(eda.StageProfile, rec.Data.MainTable)
	}
	if p := reranProfile(nb, reran, stage); p != nil {
		add("data.rows", strconv.Itoa(rec.Data.Rows), strconv.Itoa(p.Rows))
		add("data.columns", strconv.Itoa(rec.Data.Columns), strconv.Itoa(p.Columns))
		if rec.Data.Format != eda.FormatFolder {
			add("data.format", rec.Data.Format, p.Load.Format)
		}
	}
	recorded, ran := limitFacts(rec.Limits), limitFacts(limits)
	keys := map[string]bool{}
	for k := range ran {
		keys[k] = true
	}
	for k := range recorded {
		keys[k] = true
	}
	for _, k := range sortedKeys(keys) {
		add("limits."+k, factText(recorded[k]), factText(ran[k]))
	}
	return out
}

// limitFacts are the limits as run.json writes them, by name: each is
// compared as written, every one kernel.Enforced holds.
func limitFacts(e kernel.Enforced) map[string]any {
	out := map[string]any{}
	b, _ := json.Marshal(e)
	_ = json.Unmarshal(b, &out)
	return out
}

func factText(v any) string {
	if v == nil {
		return "(none)"
	}
	return fmt.Sprint(v)
}

// reranProfile is the profile the re-run of nb's profile cell displayed;
// nil when that cell did not re-run.
func reranProfile(nb *nbformat.Notebook, reran map[string][]nbformat.Output, stage string) *eda.Profile {
	for _, c := range nb.Cells {
		if s, _ := c.Stage(); s != stage || !c.HasTag(eda.ProfileTag) {
			continue
		}
		for _, o := range reran[c.ID] {
			if p, ok, err := eda.ProfileFromData(o.Data); ok && err == nil {
				return p
			}
		}
	}
	return nil
}
