package dabstep

import (
	"encoding/json"
	"math/rand"
	"os"
	"testing"

	"github.com/analyst-cli/analyst/internal/hostpython"
)

// TestAgreesWithTheOfficialScorer runs DABstep's own question_scorer (not
// shipped here: point ANALYST_DABSTEP_SCORER at a copy of
// dabstep_benchmark/evaluation/scorer.py from the adyen/DABstep space) on
// the table tests' pairs and on generated ones, and compares its verdicts
// with Match's.
func TestAgreesWithTheOfficialScorer(t *testing.T) {
	script := os.Getenv("ANALYST_DABSTEP_SCORER")
	if script == "" {
		t.Skip("set ANALYST_DABSTEP_SCORER to DABstep's dabstep_benchmark/evaluation/scorer.py to run this cross-check")
	}
	pairs := generatedPairs(rand.New(rand.NewSource(7)), 5000)
	for _, tt := range matchTests {
		pairs = append(pairs, [2]string{tt.answer, tt.gold})
	}
	out := hostpython.Run(t, map[string]any{"scorer": script, "pairs": pairs}, "-c", `
import importlib.util, json, sys
req = json.load(sys.stdin)
spec = importlib.util.spec_from_file_location("official_scorer", req["scorer"])
scorer = importlib.util.module_from_spec(spec)
spec.loader.exec_module(scorer)
json.dump([bool(scorer.question_scorer(a, g)) for a, g in req["pairs"]], sys.stdout)
`)
	var want []bool
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i, p := range pairs {
		if got := Match(p[0], p[1]); got != want[i] {
			t.Errorf("Match(%q, %q) = %v, the official scorer says %v", p[0], p[1], got, want[i])
			if bad++; bad > 20 {
				t.Fatal("too many differences")
			}
		}
	}
	t.Logf("%d pairs agree with %s", len(pairs), script)
}
