package dabsteptest

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/evals/dabstep"
	"github.com/analyst-cli/analyst/internal/hostpython"
)

// TestAnswersAgreeWithPython recomputes every task's answer from the
// written files alone, in Python (testdata/answers.py reads the manual's
// rules a second time), for several seeds: the files say what the answers
// say. Counts, lists, country codes and Not Applicable must be the same
// text; sums and means (added in another order) must be right by
// DABstep's scorer.
func TestAnswersAgreeWithPython(t *testing.T) {
	exact := map[string]bool{"count_credit": true, "top_issuing_country": true, "fraud_merchants": true,
		"fee_ids_account_aci": true, "fee_ids_day": true, "total_fees_unknown": true}
	for _, seed := range []int64{1, 2, 3} {
		f, err := Write(t.TempDir(), Options{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		var req struct {
			Dir   string `json:"dir"`
			Tasks []Task `json:"tasks"`
		}
		req.Dir, req.Tasks = f.Dir, f.Tasks
		var py map[string]string
		if err := json.Unmarshal(hostpython.Run(t, req, "testdata/answers.py"), &py); err != nil {
			t.Fatal(err)
		}
		for _, task := range f.Tasks {
			got := py[task.ID]
			if !dabstep.Match(got, task.Answer) || (exact[task.Kind] && got != task.Answer) {
				t.Errorf("seed %d, task %s (%s %v): Go's answer %q, Python's from the files %q", seed, task.ID, task.Kind, task.Params, task.Answer, got)
			}
		}
	}
}

// TestTasksCoverTheAnswerKinds: the answers a benchmark needs, each
// nontrivial: a count, a rounded mean, a country, lists, fee computations
// that need the manual and list-field matching, and Not Applicable.
func TestTasksCoverTheAnswerKinds(t *testing.T) {
	f, err := Write(t.TempDir(), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	levels := map[string]int{}
	for _, task := range f.Tasks {
		levels[task.Level]++
		a := task.Answer
		var ok bool
		switch task.Kind {
		case "count_credit":
			ok = a != "0" && !strings.ContainsAny(a, ".,")
		case "mean_amount", "total_fees":
			ok = len(a) > 3 && a[len(a)-3] == '.' && a != "0.00" || a == NotApplicable
		case "average_credit_fee":
			ok = len(a) > 7 && a[len(a)-7] == '.'
		case "fee_ids_account_aci", "fee_ids_day":
			ok = strings.Count(a, ", ") >= 1
		case "top_issuing_country":
			ok = a == "NL"
		case "fraud_merchants":
			ok = true // an empty list is a fair answer
		case "total_fees_unknown":
			ok = a == NotApplicable
		}
		if !ok {
			t.Errorf("task %s (%s): answer %q", task.ID, task.Kind, a)
		}
	}
	if levels["easy"] != 5 || levels["hard"] != 5 {
		t.Errorf("levels %v, want 5 easy and 5 hard", levels)
	}
	na := 0
	for _, task := range f.Tasks {
		if task.Answer == NotApplicable {
			na++
		}
	}
	if na < 2 {
		t.Errorf("%d Not Applicable answers, want one easy and one hard", na)
	}
}

// TestDeterministic: a seed gives the same bytes; another seed other data.
func TestDeterministic(t *testing.T) {
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	for dir, seed := range map[string]int64{a: 7, b: 7, c: 8} {
		if _, err := Write(dir, Options{Seed: seed}); err != nil {
			t.Fatal(err)
		}
	}
	for _, rel := range append(contextPaths(), "data/tasks/dev.jsonl", "data/tasks/all.jsonl") {
		x, y, z := read(t, a, rel), read(t, b, rel), read(t, c, rel)
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs with seed 7", rel)
		}
		if rel == "data/context/payments.csv" && bytes.Equal(x, z) {
			t.Errorf("%s is the same with seeds 7 and 8", rel)
		}
	}
}

func contextPaths() []string {
	var out []string
	for _, name := range dabstep.ContextFiles {
		out = append(out, filepath.Join(dabstep.ContextDir, name))
	}
	return out
}

func read(t *testing.T, dir, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestShapes: the files have the real ones' shapes: payments.csv's 21
// columns, fee rules with lists as values, nulls and empty lists meaning
// "any", merchants with nested acquirer lists, pandas' index column in the
// small CSVs, the fee formula in the manual.
func TestShapes(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(dir, Options{Seed: 1, Payments: 4000}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(read(t, dir, "data/context/payments.csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4001 || strings.Join(rows[0], ",") != strings.Join(paymentColumns, ",") || len(paymentColumns) != 21 {
		t.Errorf("payments.csv: %d rows, header %v", len(rows), rows[0])
	}
	var fees []map[string]any
	if err := json.Unmarshal(read(t, dir, "data/context/fees.json"), &fees); err != nil {
		t.Fatal(err)
	}
	var lists, empties, nulls int
	for _, f := range fees {
		for _, k := range []string{"account_type", "merchant_category_code", "aci"} {
			l, ok := f[k].([]any)
			if !ok {
				t.Fatalf("fee %v: %s is %T, want a list", f["ID"], k, f[k])
			}
			if len(l) == 0 {
				empties++
			} else {
				lists++
			}
		}
		for _, k := range []string{"capture_delay", "monthly_fraud_level", "monthly_volume", "is_credit", "intracountry"} {
			if f[k] == nil {
				nulls++
			}
		}
	}
	if len(fees) != 120 || lists == 0 || empties == 0 || nulls == 0 {
		t.Errorf("fees.json: %d rules, %d lists, %d empty lists, %d nulls", len(fees), lists, empties, nulls)
	}
	var merchants []struct {
		Acquirer []string `json:"acquirer"`
	}
	if err := json.Unmarshal(read(t, dir, "data/context/merchant_data.json"), &merchants); err != nil || len(merchants) == 0 || len(merchants[0].Acquirer) == 0 {
		t.Errorf("merchant_data.json: %v %v", merchants, err)
	}
	if !bytes.HasPrefix(read(t, dir, "data/context/acquirer_countries.csv"), []byte(",acquirer,country_code\n0,")) {
		t.Error("acquirer_countries.csv lacks pandas' index column")
	}
	if !bytes.Contains(read(t, dir, "data/context/manual.md"), []byte("fee = fixed_amount + rate * transaction_value / 10000")) {
		t.Error("manual.md lacks the fee formula")
	}
}

// TestRulesAgreeWithPython: the rules that apply to every payment, by the
// reference code and by testdata/answers.py from the files. Every bucket
// of capture delay, monthly volume and fraud level is met.
func TestRulesAgreeWithPython(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(dir, Options{Seed: 4}); err != nil {
		t.Fatal(err)
	}
	w := newWorld(Options{Seed: 4})
	var py map[string][]int
	req := map[string]any{"dir": dir, "rules_by_payment": true}
	if err := json.Unmarshal(hostpython.Run(t, req, "testdata/answers.py"), &py); err != nil {
		t.Fatal(err)
	}
	met := map[string]bool{}
	bad, applied := 0, 0
	for _, p := range w.payments {
		var ids []int
		for _, r := range w.applying(p) {
			ids = append(ids, r.ID)
			for _, b := range []*string{r.CaptureDelay, r.MonthlyVolume, r.MonthlyFraudLevel} {
				if b != nil {
					met[*b] = true
				}
			}
		}
		applied += len(ids)
		if got, want := fmt.Sprint(ids), fmt.Sprint(py[strconv.FormatInt(p.PSP, 10)]); got != want && !(len(ids) == 0 && want == "[]") {
			t.Errorf("payment %d: rules %s, Python %s", p.PSP, got, want)
			if bad++; bad > 10 {
				t.Fatal("too many differences")
			}
		}
	}
	for _, b := range append(append(append([]string{}, delayBuckets...), volumeBuckets...), fraudBuckets...) {
		if !met[b] {
			t.Errorf("no payment meets a rule with bucket %s", b)
		}
	}
	t.Logf("%d payments, %d rule applications agree with Python", len(w.payments), applied)
}
