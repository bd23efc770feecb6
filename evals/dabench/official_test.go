package dabench

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/internal/dabenchdir"
	"github.com/analyst-cli/analyst/internal/hostpython"
)

// TestAgreesWithTheOfficialScorer runs DABench's own eval_closed_form.py
// (not shipped here: point ANALYST_DABENCH_SCORER at a checkout's copy, with
// its utils/ next to it) on generated responses files and compares its
// printout and JSON with ours byte for byte.
func TestAgreesWithTheOfficialScorer(t *testing.T) {
	script := os.Getenv("ANALYST_DABENCH_SCORER")
	if script == "" {
		t.Skip("set ANALYST_DABENCH_SCORER to InfiAgent's examples/DA-Agent/eval_closed_form.py to run this cross-check")
	}
	dir := dabenchdir.Require(t)
	qpath, lpath := filepath.Join(dir, "da-dev-questions.jsonl"), filepath.Join(dir, "da-dev-labels.jsonl")
	qs, err := LoadQuestions(qpath)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := LoadLabels(lpath)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	for k := 0; k < 8; k++ {
		resp := filepath.Join(work, fmt.Sprintf("r%d.jsonl", k))
		if err := os.WriteFile(resp, generatedResponses(ls, int64(k)), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(hostpython.Path, script, "--questions_file_path", qpath, "--labels_file_path", lpath, "--responses_file_path", resp)
		cmd.Dir = work
		want, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, want)
		}
		rs, err := LoadResponses(resp)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Score(qs, ls, rs)
		if err != nil {
			t.Fatal(err)
		}
		var got, gotJSON bytes.Buffer
		s.WriteOfficial(&got)
		if got.String() != string(want) {
			t.Errorf("responses %d: printout differs:\n%s\nofficial:\n%s", k, got.String(), want)
		}
		wantJSON, err := os.ReadFile(filepath.Join(work, "eval_outputs", fmt.Sprintf("r%d_evaluation_analysis.json", k)))
		if err != nil {
			t.Fatal(err)
		}
		_ = s.WriteOfficialJSON(&gotJSON)
		if gotJSON.String() != string(wantJSON) {
			t.Errorf("responses %d: JSON differs:\n%s\nofficial:\n%s", k, gotJSON.String(), wantJSON)
		}
	}
}

// generatedResponses answers every label with random damage: missing
// questions and names, near and far numbers, spaces, case, decimal commas,
// duplicates, float and string ids, empty responses, shuffled lines.
func generatedResponses(ls []Label, seed int64) []byte {
	rng := rand.New(rand.NewSource(seed))
	var lines []string
	for _, l := range ls {
		if rng.Float64() < 0.1 {
			continue
		}
		var parts []string
		for _, a := range l.Answers {
			v := a.Value
			switch x := rng.Float64(); {
			case x < 0.15:
				if f, err := ParsePyFloat(v); err == nil {
					v = fmt.Sprint(f + []float64{1e-7, 1e-5, 0.01}[rng.Intn(3)])
				} else {
					v = strings.ToUpper(v)
				}
			case x < 0.2:
				v = " " + v + " "
			case x < 0.23:
				v = strings.ReplaceAll(v, ".", ",")
			case x < 0.26:
				continue
			}
			parts = append(parts, "@"+a.Name+"["+v+"]")
		}
		if rng.Float64() < 0.05 && len(l.Answers) > 0 {
			parts = append(parts, "@"+l.Answers[0].Name+"[999]")
		}
		resp := strings.Join(parts, " ")
		if rng.Float64() < 0.03 {
			resp = ""
		}
		id := fmt.Sprint(l.ID)
		switch x := rng.Float64(); {
		case x < 0.05:
			id += ".0"
		case x < 0.08:
			id = `"` + id + `"`
		}
		lines = append(lines, fmt.Sprintf(`{"id": %s, "response": %s}`, id, pyString(resp)))
	}
	rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	return []byte(strings.Join(lines, "\n") + "\n")
}
