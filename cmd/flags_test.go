package cmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/internal/iostreams"
)

// The command layer's flag handling, without a kernel image: each test
// swaps a command for one whose runF keeps the parsed options and the
// configuration (the seam cli/cli's NewCmdX(f, runF) gives), or runs the
// real command where it stops before it needs the image.

// cmdEnv isolates a test from the machine's configuration: no ANALYST_*
// variable, a config folder of its own (holding file, if any) and an empty
// cache folder (no kernel image).
func cmdEnv(t *testing.T, file string, env map[string]string) {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "ANALYST_") {
			t.Setenv(k, "")
		}
	}
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	t.Setenv("ANALYST_CACHE_DIR", t.TempDir())
	for k, v := range env {
		t.Setenv(k, v)
	}
	if file != "" {
		if err := os.MkdirAll(filepath.Join(home, "analyst"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, "analyst", "config.yaml"), []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// execute runs `analyst ARGS`; swap, when not nil, builds the command that
// replaces the root's command of the same name.
func execute(t *testing.T, f *Factory, swap func(*Factory) *cobra.Command, args ...string) error {
	t.Helper()
	root := NewCmdRoot(f)
	if swap != nil {
		c := swap(f)
		old, _, err := root.Find([]string{c.Name()})
		if err != nil || old == root {
			t.Fatalf("no command %s to swap", c.Name())
		}
		root.RemoveCommand(old)
		root.AddCommand(c)
	}
	root.SetArgs(args)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	return root.ExecuteContext(context.Background())
}

func testFactory() *Factory {
	io, _, _, _ := iostreams.Test()
	return NewFactory(io)
}

func wantUsage(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || exitCode(err) != ExitUsage || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v (exit %d), want a usage error (exit %d) saying %q", err, exitCode(err), ExitUsage, want)
	}
}

func TestRunFlags(t *testing.T) {
	cmdEnv(t, "", nil)
	var got *RunOptions
	swap := func(f *Factory) *cobra.Command {
		return newCmdRun(f, func(_ context.Context, o *RunOptions) error { got = o; return nil })
	}
	err := execute(t, testFactory(), swap, "run", "-o", "reports", "--name", "q4", "--force", "--json", "--sheet", "Q4",
		"--table", "orders", "--sign", "key", "sales.xlsx", "Which region?", "And its best product?")
	if err != nil {
		t.Fatal(err)
	}
	want := &RunOptions{Data: "sales.xlsx", Questions: []string{"Which region?", "And its best product?"}, OutDir: "reports",
		Name: "q4", Force: true, JSON: true, Sheet: "Q4", Table: "orders", Sign: "key"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("run options (-want +got):\n%s", diff)
	}

	cmdEnv(t, "", nil)
	err = execute(t, testFactory(), swap, "run", "sales.csv")
	if err != nil || got.OutDir != "." || got.Name != "" || got.Questions != nil {
		t.Errorf("defaults: %+v, %v; want out . and no name or questions", got, err)
	}
}

// --data (repeatable) gives the data: every argument is then a question,
// and an argument that names a file or folder is a usage error, never
// taken for a question nor for data.
func TestRunDataFlag(t *testing.T) {
	var got *RunOptions
	swap := func(f *Factory) *cobra.Command {
		return newCmdRun(f, func(_ context.Context, o *RunOptions) error { got = o; return nil })
	}
	dir := t.TempDir()
	cmdEnv(t, "", nil)
	err := execute(t, testFactory(), swap, "run", "--data", "orders.csv", "--data", "crm/", "--skip-unreadable", "orders.csv", "Who spends most?")
	if err != nil {
		t.Fatal(err)
	}
	want := &RunOptions{DataPaths: []string{"orders.csv", "crm/"}, SkipUnreadable: true, Questions: []string{"orders.csv", "Who spends most?"}, OutDir: "."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("run options (-want +got):\n%s", diff)
	}
	cmdEnv(t, "", nil)
	err = execute(t, testFactory(), swap, "run", "--data", "orders.csv", dir, "Who?")
	wantUsage(t, err, "is a file or folder, but with --data every argument is a question")
	cmdEnv(t, "", nil)
	err = execute(t, testFactory(), swap, "run")
	wantUsage(t, err, "run takes DATA (a file or a folder)")
}

// The real `analyst run` stops on bad input before it looks for the image.
func TestRunStopsBeforeTheKernel(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "sales.csv")
	if err := os.WriteFile(data, []byte("region,revenue\nnorth,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmdEnv(t, "", nil)
	err := execute(t, testFactory(), nil, "run", "-o", dir, data, "Which region sells most?")
	wantUsage(t, err, "a question needs a model")

	cmdEnv(t, "", nil)
	err = execute(t, testFactory(), nil, "run", "-o", dir, filepath.Join(dir, "missing.csv"))
	if exitCode(err) != ExitBadData || !strings.Contains(err.Error(), "missing.csv") {
		t.Errorf("missing data: err = %v (exit %d), want exit %d naming the file", err, exitCode(err), ExitBadData)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the refused runs wrote into %s: %v", dir, entries)
	}
}

// Model settings: flags > environment > config file > defaults (defined
// once, in agent).
func TestRunModelSettingsPrecedence(t *testing.T) {
	for _, tt := range []struct {
		name              string
		file              string
		env               map[string]string
		flags             []string
		turns, reflect    int
		model, baseURL    string
		runTimeout        time.Duration
		wantNAValuesUnset bool
		wantNAValues      []string
	}{
		{name: "defaults", turns: agent.DefaultMaxTurns, reflect: agent.DefaultReflectRounds, wantNAValuesUnset: true},
		{name: "file", file: "model: ollama:a\nmax-turns: 7\nreflect-rounds: 2\nrun-timeout: 30m\nna-values: [\"-\", \"?\"]\n",
			turns: 7, reflect: 2, model: "ollama:a", runTimeout: 30 * time.Minute, wantNAValues: []string{"-", "?"}},
		{name: "env over file", file: "model: ollama:a\nmax-turns: 7\n",
			env:   map[string]string{"ANALYST_MODEL": "openai:b", "ANALYST_MAX_TURNS": "5", "ANALYST_REFLECT_ROUNDS": "0"},
			turns: 5, reflect: 0, model: "openai:b", wantNAValuesUnset: true},
		{name: "flags over env", env: map[string]string{"ANALYST_MAX_TURNS": "5", "ANALYST_REFLECT_ROUNDS": "3", "ANALYST_BASE_URL": "http://env/v1"},
			flags: []string{"--max-turns", "2", "--reflect-rounds", "0", "--model", "ollama:c", "--base-url", "http://flag/v1", "--na-values", "x,y"},
			turns: 2, reflect: 0, model: "ollama:c", baseURL: "http://flag/v1", wantNAValues: []string{"x", "y"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := configFor(t, tt.file, tt.env, tt.flags)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.MaxTurns != tt.turns || cfg.ReflectRounds != tt.reflect || cfg.Model != tt.model || cfg.BaseURL != tt.baseURL || cfg.RunTimeout != tt.runTimeout {
				t.Errorf("config: max turns %d, reflect rounds %d, model %q, base url %q, run timeout %s; want %d, %d, %q, %q, %s",
					cfg.MaxTurns, cfg.ReflectRounds, cfg.Model, cfg.BaseURL, cfg.RunTimeout, tt.turns, tt.reflect, tt.model, tt.baseURL, tt.runTimeout)
			}
			if (cfg.NAValues == nil) != tt.wantNAValuesUnset || (!tt.wantNAValuesUnset && !cmp.Equal(cfg.NAValues, tt.wantNAValues)) {
				t.Errorf("na-values = %#v, want %#v (unset: %v)", cfg.NAValues, tt.wantNAValues, tt.wantNAValuesUnset)
			}
		})
	}
}

// Kernel limits: flags > environment > config file > defaults.
func TestKernelLimitsPrecedence(t *testing.T) {
	cfg, err := configFor(t, "kernel:\n  memory: 3GiB\n  pids: 300\n  cell-timeout: 2m\n", map[string]string{"ANALYST_KERNEL_PIDS": "400"},
		[]string{"--cell-timeout", "45s"})
	if err != nil {
		t.Fatal(err)
	}
	if l := cfg.Limits; l.MemoryBytes != 3<<30 || l.Pids != 400 || l.CellTimeout != 45*time.Second {
		t.Errorf("limits: memory %d, pids %d, cell timeout %s; want 3GiB (file), 400 (env over file), 45s (flag over file)", l.MemoryBytes, l.Pids, l.CellTimeout)
	}
}

func TestEvalFlags(t *testing.T) {
	cmdEnv(t, "", nil)
	var got *EvalOptions
	swap := func(f *Factory) *cobra.Command {
		return newCmdEval(f, func(_ context.Context, o *EvalOptions) error { got = o; return nil })
	}
	err := execute(t, testFactory(), swap, "eval", "--model", "ollama:a", "--model", "openai:b", "-o", "out", "-j", "2",
		"--timeout", "5m", "--limit", "3", "--repeat", "2", "--filter", "mean", "--filter", "easy", "--shard", "1/4",
		"--force", "--retry-errors", "--min-score", "0.5", "suite/")
	if err != nil {
		t.Fatal(err)
	}
	want := &EvalOptions{Suite: "suite/", Models: []string{"ollama:a", "openai:b"}, Out: "out", Jobs: 2, Timeout: 5 * time.Minute,
		Limit: 3, Repeat: 2, Filter: []string{"mean", "easy"}, Shard: "1/4", Force: true, RetryErrors: true, MinScore: 0.5}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("eval options (-want +got):\n%s", diff)
	}
	cmdEnv(t, "", nil)
	if err := execute(t, testFactory(), swap, "eval", "suite/"); err != nil {
		t.Fatal(err)
	}
	if got.Out != "eval-out" || got.Timeout != 10*time.Minute || got.Repeat != 1 || got.Models != nil {
		t.Errorf("defaults: %+v", got)
	}
}

// Bad arguments and flags are usage errors (exit 2) that say what is wrong:
// run's as it resolves its configuration, and the real `analyst eval`'s
// before it reads the suite or looks for the image.
func TestUsageErrors(t *testing.T) {
	runConfigOnly := func(f *Factory) *cobra.Command {
		return newCmdRun(f, func(context.Context, *RunOptions) error { _, err := f.Config(); return err })
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "run takes DATA (a file or a folder)"},
		{[]string{"run", "sales.csv", " "}, "a question is empty"},
		{[]string{"run", "--max-turns", "0", "sales.csv"}, "max-turns must be at least 1"},
		{[]string{"run", "--reflect-rounds", "-1", "sales.csv"}, "reflect-rounds must be 0 or more"},
		{[]string{"run", "--run-timeout", "-1s", "sales.csv"}, "run-timeout must be a duration"},
		{[]string{"run", "--memory", "lots", "sales.csv"}, "kernel.memory"},
		{[]string{"run", "--pids", "3", "sales.csv"}, "kernel.pids must be at least 16"},
		{[]string{"run", "--output-size", "1KiB", "sales.csv"}, "kernel.output-size must be a size of at least 1MiB"},
		{[]string{"run", "--frobnicate", "sales.csv"}, "unknown flag: --frobnicate"},
		{[]string{"eval"}, "eval takes one SUITE folder"},
		{[]string{"eval", "a", "b"}, "eval takes one SUITE folder"},
		{[]string{"eval", "--repeat", "0", "suite/"}, "--repeat must be at least 1"},
		{[]string{"eval", "--min-score", "1.5", "suite/"}, "--min-score must be between 0 and 1"},
		{[]string{"eval", "--shard", "4/4", "suite/"}, "shard"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			cmdEnv(t, "", nil)
			var swap func(*Factory) *cobra.Command
			if tt.args[0] == "run" {
				swap = runConfigOnly
			}
			wantUsage(t, execute(t, testFactory(), swap, tt.args...), tt.want)
		})
	}
}

func TestVerifyFlags(t *testing.T) {
	cmdEnv(t, "", nil)
	var got *VerifyOptions
	swap := func(f *Factory) *cobra.Command {
		return newCmdVerify(f, func(_ context.Context, o *VerifyOptions) error { got = o; return nil })
	}
	if err := execute(t, testFactory(), swap, "verify", "--data", "sales.csv", "--image-mismatch", "warn",
		"--allowed-signers", "signers", "--json", "out/sales.run.json"); err != nil {
		t.Fatal(err)
	}
	want := &VerifyOptions{Run: "out/sales.run.json", Data: "sales.csv", ImageMismatch: "warn", AllowedSigners: "signers", JSON: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verify options (-want +got):\n%s", diff)
	}
	cmdEnv(t, "", nil)
	if err := execute(t, testFactory(), swap, "verify", "out/"); err != nil || got.ImageMismatch != "error" {
		t.Errorf("default --image-mismatch = %q (%v), want error", got.ImageMismatch, err)
	}
	cmdEnv(t, "", nil)
	wantUsage(t, execute(t, testFactory(), swap, "verify", "--image-mismatch", "maybe", "out/"), "--image-mismatch is error or warn")
	wantUsage(t, execute(t, testFactory(), swap, "verify"), "verify takes one RUN")
}

func TestReplayFlags(t *testing.T) {
	cmdEnv(t, "", nil)
	var got *ReplayOptions
	swap := func(f *Factory) *cobra.Command {
		return newCmdReplay(f, func(_ context.Context, o *ReplayOptions) error { got = o; return nil })
	}
	if err := execute(t, testFactory(), swap, "replay", "-o", "again", "--json", "out/sales.run.json"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&ReplayOptions{Run: "out/sales.run.json", OutDir: "again", JSON: true}, got); diff != "" {
		t.Errorf("replay options (-want +got):\n%s", diff)
	}
	cmdEnv(t, "", nil)
	if err := execute(t, testFactory(), swap, "replay", "out/"); err != nil || got.OutDir != "replay" {
		t.Errorf("default --out = %q (%v), want replay", got.OutDir, err)
	}
	wantUsage(t, execute(t, testFactory(), swap, "replay", "a", "b"), "replay takes one RUN")
}

func TestKernelExecFlags(t *testing.T) {
	var got *KernelExecOptions
	swap := func(f *Factory) *cobra.Command {
		c := newCmdKernel(f)
		exec, _, _ := c.Find([]string{"exec"})
		c.RemoveCommand(exec)
		c.AddCommand(newCmdKernelExec(f, func(_ context.Context, o *KernelExecOptions) error { got = o; return nil }))
		return c
	}
	cmdEnv(t, "", nil)
	if err := execute(t, testFactory(), swap, "kernel", "exec", "--data", "sales.parquet", "--load", "--table", "t",
		"--out", "charts", "--json", "--timeout", "30s", "analysis.py"); err != nil {
		t.Fatal(err)
	}
	want := &KernelExecOptions{Data: "sales.parquet", Load: true, Table: "t", File: "analysis.py", OutDir: "charts", JSON: true, Timeout: 30 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kernel exec options (-want +got):\n%s", diff)
	}
	cmdEnv(t, "", nil)
	wantUsage(t, execute(t, testFactory(), swap, "kernel", "exec", "-c", "1", "file.py"), "give exactly one of -c CODE or FILE")
	cmdEnv(t, "", nil)
	wantUsage(t, execute(t, testFactory(), swap, "kernel", "exec"), "give exactly one of -c CODE or FILE")
	cmdEnv(t, "", nil)
	wantUsage(t, execute(t, testFactory(), swap, "kernel", "exec", "a.py", "b.py"), "at most one FILE")
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{10 * time.Minute: "10m", 2 * time.Minute: "2m", 90 * time.Second: "1m30s",
		30 * time.Second: "30s", time.Hour: "1h", 90 * time.Minute: "1h30m"} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%s) = %q, want %q", d, got, want)
		}
	}
}

// executeSub runs `analyst ARGS` with the subcommand of parent named as c
// replaced by c.
func executeSub(t *testing.T, f *Factory, parent string, c *cobra.Command, args ...string) error {
	t.Helper()
	root := NewCmdRoot(f)
	p, _, err := root.Find([]string{parent})
	if err != nil || p == root {
		t.Fatalf("no command %s", parent)
	}
	old, _, err := p.Find([]string{c.Name()})
	if err != nil || old == p {
		t.Fatalf("no command %s %s to swap", parent, c.Name())
	}
	p.RemoveCommand(old)
	p.AddCommand(c)
	root.SetArgs(args)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	return root.ExecuteContext(context.Background())
}

// Every command parses its arguments and flags into its options, then
// hands them to runF: the kernel and eval subcommands, config, doctor and
// version.
func TestSubcommandFlags(t *testing.T) {
	cmdEnv(t, "", nil)
	f := testFactory()
	var build *KernelBuildOptions
	if err := executeSub(t, f, "kernel", newCmdKernelBuild(f, func(_ context.Context, o *KernelBuildOptions) error { build = o; return nil }),
		"kernel", "build", "--force"); err != nil || build == nil || !build.Force {
		t.Errorf("kernel build --force: %+v, %v", build, err)
	}
	var info *KernelInfoOptions
	if err := executeSub(t, f, "kernel", newCmdKernelInfo(f, func(_ context.Context, o *KernelInfoOptions) error { info = o; return nil }),
		"kernel", "info", "--json"); err != nil || info == nil || !info.JSON {
		t.Errorf("kernel info --json: %+v, %v", info, err)
	}
	var shell *KernelShellOptions
	if err := executeSub(t, f, "kernel", newCmdKernelShell(f, func(_ context.Context, o *KernelShellOptions) error { shell = o; return nil }),
		"kernel", "shell", "--data", "shop/"); err != nil || shell == nil || shell.Data != "shop/" {
		t.Errorf("kernel shell --data shop/: %+v, %v", shell, err)
	}
	var validate *EvalValidateOptions
	if err := executeSub(t, f, "eval", newCmdEvalValidate(f, func(_ context.Context, o *EvalValidateOptions) error { validate = o; return nil }),
		"eval", "validate", "-j", "3", "evals/"); err != nil || validate == nil || *validate != (EvalValidateOptions{Suite: "evals/", Jobs: 3}) {
		t.Errorf("eval validate -j 3 evals/: %+v, %v", validate, err)
	}
	var merge *EvalMergeOptions
	if err := executeSub(t, f, "eval", newCmdEvalMerge(f, func(_ context.Context, o *EvalMergeOptions) error { merge = o; return nil }),
		"eval", "merge", "--out", "all", "--min-score", "0.5", "s0", "s1"); err != nil ||
		!cmp.Equal(merge, &EvalMergeOptions{Out: "all", Shards: []string{"s0", "s1"}, MinScore: 0.5}) {
		t.Errorf("eval merge: %+v, %v", merge, err)
	}
	wantUsage(t, executeSub(t, f, "eval", newCmdEvalMerge(f, func(context.Context, *EvalMergeOptions) error { return nil }),
		"eval", "merge", "s0"), "--out OUT")
	var compare *EvalCompareOptions
	if err := executeSub(t, f, "eval", newCmdEvalCompare(f, func(_ context.Context, o *EvalCompareOptions) error { compare = o; return nil }),
		"eval", "compare", "--fail-on-regression", "--alpha", "0.01", "a", "b"); err != nil ||
		*compare != (EvalCompareOptions{A: "a", B: "b", FailOnRegression: true, Alpha: 0.01}) {
		t.Errorf("eval compare: %+v, %v", compare, err)
	}
	wantUsage(t, executeSub(t, f, "eval", newCmdEvalCompare(f, func(context.Context, *EvalCompareOptions) error { return nil }),
		"eval", "compare", "--alpha", "2", "a", "b"), "--alpha must be between 0 and 1")
	for name, c := range map[string]*cobra.Command{
		"config":  newCmdConfig(f, func(context.Context, *ConfigOptions) error { return errSeen }),
		"doctor":  newCmdDoctor(f, func(context.Context, *DoctorOptions) error { return errSeen }),
		"version": newCmdVersion(f, func(context.Context, *VersionOptions) error { return errSeen }),
	} {
		if err := execute(t, f, func(*Factory) *cobra.Command { return c }, name); err != errSeen {
			t.Errorf("%s: err = %v, want runF's", name, err)
		}
	}
}

var errSeen = errors.New("runF ran")
