package cmd_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/analyst-cli/analyst/cmd"
	"github.com/analyst-cli/analyst/evals/dabstep"
	"github.com/analyst-cli/analyst/evals/dabstep/dabsteptest"
	"github.com/analyst-cli/analyst/evals/evaltest"
	"github.com/analyst-cli/analyst/examples"
	"github.com/analyst-cli/analyst/internal/iostreams"
	"github.com/analyst-cli/analyst/kernel/image"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"analyst": func() {
			os.Exit(cmd.Main())
		},
	})
}

// TestScripts runs the CLI end to end: testdata/script/*.txtar. Scripts that
// start kernels need the image built (make test builds it).
func TestScripts(t *testing.T) {
	cacheDir, err := kerneltest.CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	// The tasks gendabstep writes: the scripted DABstep model knows them.
	fx, err := dabsteptest.Write(t.TempDir(), dabsteptest.Options{Seed: 1, Payments: 500})
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			// Each script gets its own home and config; the kernel image
			// cache is shared, since building it takes minutes.
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("ANALYST_CACHE_DIR", cacheDir)
			env.Setenv("PATH", os.Getenv("PATH")+":/usr/sbin:/sbin")
			// A scripted model server per script, for runs with questions.
			model := newFakeOllama()
			env.Defer(model.Close)
			env.Setenv("FAKE_OLLAMA", model.Listener.Addr().String())
			env.Values[fakeOllamaKey{}] = model
			// A scripted model for eval scripts: it knows the questions of
			// testdata/script/eval_run.txtar.
			evalModel := evaltest.New(map[string]map[string]string{
				`\Question{What is the mean of a?}`:   {"mean_a": "2.0"},
				`\Question{What is the largest b?}`:   {"max_b": "6"},
				`\Question{How many rows are there?}`: {"rows": "5"},
			})
			env.Defer(evalModel.Close)
			env.Setenv("FAKE_EVAL_OLLAMA", evalModel.Listener.Addr().String())
			dabstepModel := newDABstepModel(fx.Tasks)
			env.Defer(dabstepModel.Close)
			env.Setenv("FAKE_DABSTEP_OLLAMA", dabstepModel.Listener.Addr().String())
			env.Values[dabstepModelKey{}] = dabstepModel
			return os.MkdirAll(home, 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// gendabstep DIR SUBMISSION writes a generated DABstep snapshot
			// and a submission of its gold answers, in task order.
			"gendabstep": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: gendabstep DIR SUBMISSION")
				}
				fx, err := dabsteptest.Write(ts.MkAbs(args[0]), dabsteptest.Options{Seed: 1, Payments: 500})
				ts.Check(err)
				var ids []string
				for _, t := range fx.Tasks {
					ids = append(ids, t.ID)
				}
				w, err := dabstep.OpenSubmission(ts.MkAbs(args[1]), ids)
				ts.Check(err)
				for _, t := range fx.Tasks {
					ts.Check(w.Add(dabstep.NewLine(t.ID, t.Answer, "gold")))
				}
				ts.Check(w.Close())
			},
			// modelchats N checks that the script's model server ($FAKE_OLLAMA)
			// was asked N chat requests so far.
			"modelchats": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: modelchats N")
				}
				want, err := strconv.Atoi(args[0])
				ts.Check(err)
				f := ts.Value(fakeOllamaKey{}).(*fakeOllama)
				f.mu.Lock()
				got := f.chats
				f.mu.Unlock()
				if (got == want) == neg {
					ts.Fatalf("the model server was asked %d chat requests; want %s%d", got, map[bool]string{true: "not ", false: ""}[neg], want)
				}
			},
			// modeltold TEXT checks that the system prompt of some chat
			// request to the script's model server ($FAKE_OLLAMA) holds TEXT.
			"modeltold": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: modeltold TEXT")
				}
				f := ts.Value(fakeOllamaKey{}).(*fakeOllama)
				f.mu.Lock()
				systems := append([]string(nil), f.systems...)
				f.mu.Unlock()
				told := false
				for _, s := range systems {
					told = told || strings.Contains(s, args[0])
				}
				if told == neg {
					last := ""
					if len(systems) > 0 {
						last = systems[len(systems)-1]
					}
					ts.Fatalf("the model was %stold %q; its last system prompt:\n%s", map[bool]string{true: "", false: "not "}[told], args[0], last)
				}
			},
			// dabsteptold TEXT checks that the system prompt of some chat
			// request to the scripted DABstep model ($FAKE_DABSTEP_OLLAMA)
			// holds TEXT.
			"dabsteptold": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: dabsteptold TEXT")
				}
				told := false
				for _, c := range ts.Value(dabstepModelKey{}).(*evaltest.Model).Chats() {
					told = told || (len(c.Messages) > 0 && strings.Contains(c.Messages[0].Content, args[0]))
				}
				if told == neg {
					ts.Fatalf("the DABstep model was %stold %q", map[bool]string{true: "", false: "not "}[told], args[0])
				}
			},
			// gensales ROWS FILE [seed=N] [CHANGE...] writes the example sales
			// data as Parquet, or as CSV when FILE ends in .csv, with the
			// changes of salesChange (CSV only).
			"gensales": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) < 2 {
					ts.Fatalf("usage: gensales ROWS FILE [seed=N] [CHANGE...]")
				}
				rows, err := strconv.Atoi(args[0])
				ts.Check(err)
				seed, ch, err := salesChange(args[2:])
				ts.Check(err)
				f, err := os.Create(ts.MkAbs(args[1]))
				ts.Check(err)
				write := examples.WriteSalesParquet
				if strings.HasSuffix(args[1], ".csv") {
					write = func(w io.Writer, rows int, seed uint64) error { return examples.WriteSalesChanged(w, rows, seed, ch) }
				}
				ts.Check(write(f, rows, seed))
				ts.Check(f.Close())
			},
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "image":
				if testing.Short() { // make test-unit: no podman
					return false, nil
				}
				_, err := image.Lookup(cacheDir, image.DefaultRecipe())
				if err != nil && !testing.Short() {
					t.Fatalf("the CLI tests need the kernel image (make kernel): %v", err)
				}
				return err == nil, nil
			case "root":
				return os.Geteuid() == 0, nil
			}
			return false, nil
		},
	})
}

// fakeOllamaKey and dabstepModelKey key a script's model servers in its
// testscript.Env.Values.
type (
	fakeOllamaKey   struct{}
	dabstepModelKey struct{}
)

// newDABstepModel is a scripted model for gendabstep's tasks
// (eval_dabstep_run.txtar): it computes two answers in the kernel — task
// 1's count from tables["payments"], task 6's fee rules from the manual and
// the list fields of tables["fees"] (json.loads) — gives the gold answer of
// tasks 2, 5, 7, 9 and 10, a wrong one for tasks 3 and 4, and none for task
// 8: 7 of 10 right, easy 3 of 5, hard 4 of 5.
func newDABstepModel(tasks []dabsteptest.Task) *evaltest.Model {
	answers, codes := map[string]map[string]string{}, map[string]string{}
	for _, t := range tasks {
		q := "Here is the question you need to answer: " + t.Question
		switch t.ID {
		case "1":
			codes[q] = fmt.Sprintf("p = tables[\"payments\"]\nprint(f\"ANSWER={int(((p['merchant'] == %q) & p['is_credit']).sum())}\")", t.Params["merchant"])
			answers[q] = map[string]string{"answer": evaltest.Printed}
		case "6":
			codes[q] = fmt.Sprintf(`read_doc("manual.md", "Fee rules")
def matches(field, value):
    items = json.loads(field) if isinstance(field, str) else None
    return not items or value in items
fees = tables["fees"]
ids = [str(r.ID) for r in fees.itertuples() if matches(r.account_type, %q) and matches(r.aci, %q)]
print("ANSWER=" + ", ".join(ids))`, t.Params["account_type"], t.Params["aci"])
			answers[q] = map[string]string{"answer": evaltest.Printed}
		case "3": // a country code
			answers[q] = map[string]string{"answer": "ZZ"}
		case "4": // merchants (the gold is the empty list)
			answers[q] = map[string]string{"answer": "Tulip_Bakery"}
		case "8": // no answer: "" in the submission, which the scorer counts wrong
			answers[q] = nil
		default:
			answers[q] = map[string]string{"answer": t.Answer}
		}
	}
	m := evaltest.New(answers)
	m.Codes = codes
	return m
}

// Run must map errors to the documented exit codes without a process.
func TestRunExitCodes(t *testing.T) {
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"version"}, cmd.ExitOK},
		{[]string{"nosuch"}, cmd.ExitUsage},
		{[]string{"version", "--nosuch"}, cmd.ExitUsage},
		{[]string{"kernel", "exec"}, cmd.ExitUsage},
		{[]string{"kernel", "exec", "-c", "1", "file.py"}, cmd.ExitUsage},
	}
	for _, tt := range tests {
		io, _, _, _ := iostreams.Test()
		t.Setenv("XDG_CONFIG_HOME", t.TempDir())
		if got := cmd.Run(context.Background(), cmd.NewFactory(io), tt.args); got != tt.want {
			t.Errorf("analyst %v: exit %d, want %d", tt.args, got, tt.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	io, _, _, _ := iostreams.Test()
	if got := cmd.Run(ctx, cmd.NewFactory(io), []string{"version"}); got != cmd.ExitInterrupted {
		t.Errorf("cancelled context: exit %d, want %d", got, cmd.ExitInterrupted)
	}
}
