package cmd

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/internal/iostreams"
	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/llm/llmtest"
)

// analyst run's flag handling and error paths, without podman: the
// Factory's KernelSetup and ModelClient seams stand in for the host and
// point the model at a scripted server. Every case here stops before a
// kernel would start, and says which seams it reached.

// runSeams records what a run reached.
type runSeams struct {
	kernelSetups int
	modelSpecs   []string
}

// seamFactory is a Factory whose kernel setup fails as a host without
// podman does (and counts the calls), and whose model clients go to
// ollamaHost (OLLAMA_HOST's form) when it is set.
func seamFactory(t *testing.T, ollamaHost string) (*Factory, *runSeams) {
	t.Helper()
	cmdEnv(t, "", nil)
	t.Chdir(t.TempDir()) // a run that gets as far as writing writes there
	io, _, _, _ := iostreams.Test()
	f := NewFactory(io)
	seen := &runSeams{}
	f.KernelSetup = func(ctx context.Context) (*kernelSetup, error) {
		seen.kernelSetups++
		return nil, withCode(ExitSandbox, errors.New("podman: not found (the test's host)"))
	}
	f.ModelClient = func(spec string, opts llm.Options) (llm.Client, error) {
		seen.modelSpecs = append(seen.modelSpecs, spec)
		opts.OllamaHost = ollamaHost
		return llm.New(spec, opts)
	}
	return f, seen
}

func writeCSV(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "sales.csv")
	if err := os.WriteFile(p, []byte("region,revenue\nNorth,10\nSouth,20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func wantExit(t *testing.T, err error, code int, says ...string) {
	t.Helper()
	if exitCode(err) != code {
		t.Fatalf("err = %v (exit %d), want exit %d", err, exitCode(err), code)
	}
	for _, s := range says {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("err = %v, want it to say %q", err, s)
		}
	}
}

func TestRunErrorsBeforeTheKernel(t *testing.T) {
	for _, tt := range []struct {
		name string
		args func(t *testing.T) []string
		code int
		says []string
	}{
		{"no data", func(t *testing.T) []string { return []string{"run"} }, ExitUsage, []string{"DATA"}},
		{"missing file", func(t *testing.T) []string { return []string{"run", filepath.Join(t.TempDir(), "nope.csv")} },
			ExitBadData, []string{"nope.csv", "no such file"}},
		{"a question without a model", func(t *testing.T) []string { return []string{"run", writeCSV(t), "Which region sells most?"} },
			ExitUsage, []string{"needs a model", "--model"}},
		{"an empty question", func(t *testing.T) []string { return []string{"run", writeCSV(t), " "} }, ExitUsage, []string{"empty"}},
		{"--independent without questions", func(t *testing.T) []string { return []string{"run", "--independent", writeCSV(t)} },
			ExitUsage, []string{"--independent", "give the questions"}},
		{"--sheet on a CSV", func(t *testing.T) []string { return []string{"run", "--sheet", "Q4", writeCSV(t)} },
			ExitUsage, []string{"--sheet is for spreadsheets", "csv"}},
		{"--table on a CSV", func(t *testing.T) []string { return []string{"run", "--table", "orders", writeCSV(t)} },
			ExitUsage, []string{"--table is for SQLite"}},
		{"a bad --name", func(t *testing.T) []string { return []string{"run", "--name", "../x", writeCSV(t)} },
			ExitUsage, []string{"invalid --name"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, seen := seamFactory(t, "")
			wantExit(t, execute(t, f, nil, tt.args(t)...), tt.code, tt.says...)
			if seen.kernelSetups != 0 || len(seen.modelSpecs) != 0 {
				t.Errorf("reached the kernel setup %d times and made model clients %v; want neither", seen.kernelSetups, seen.modelSpecs)
			}
		})
	}
}

// Outputs a previous run did not write stop the run before anything
// starts; --force goes on (to the kernel setup, here failing as on a host
// without podman: exit 5).
func TestRunOutputConflict(t *testing.T) {
	f, seen := seamFactory(t, "")
	data, out := writeCSV(t), t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "sales.html"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantExit(t, execute(t, f, nil, "run", "--out", out, data), ExitUsage, "sales.html")
	if seen.kernelSetups != 0 {
		t.Errorf("the kernel setup ran before the conflict was found")
	}
	f, seen = seamFactory(t, "")
	wantExit(t, execute(t, f, nil, "run", "--out", out, "--force", data), ExitSandbox, "podman")
	if seen.kernelSetups != 1 {
		t.Errorf("kernel setups = %d, want 1", seen.kernelSetups)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "sales.html")); string(b) != "mine" {
		t.Errorf("the user's file changed before the run could start: %q", b)
	}
}

// The model server is asked first: one that is not there, or does not
// know the model, fails the run (exit 4) before the kernel is set up (a
// server not listening on this machine at the first try), and the run's
// outputs say why.
func TestRunAsksTheModelFirst(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	unknown := llmtest.NewServer(t, llmtest.Route(map[string]http.HandlerFunc{}))
	for _, tt := range []struct {
		name, host string
		says       []string
	}{
		{"nothing listening", closed, []string{closed, "ollama serve"}},
		{"unknown model", unknown.URL, []string{"ollama pull"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, seen := seamFactory(t, tt.host)
			out := t.TempDir()
			err := execute(t, f, nil, "run", "--out", out, "--model", "ollama:qwen2.5-coder:7b", writeCSV(t), "Which region sells most?")
			wantExit(t, err, ExitModel, tt.says...)
			if seen.kernelSetups != 0 {
				t.Errorf("the kernel setup ran before the model server was asked")
			}
			if b, err := os.ReadFile(filepath.Join(out, "sales.run.json")); err != nil || !strings.Contains(string(b), tt.says[0]) {
				t.Errorf("run.json does not record the failure %q: %v", tt.says[0], err)
			}
			if len(seen.modelSpecs) != 1 || seen.modelSpecs[0] != "ollama:qwen2.5-coder:7b" {
				t.Errorf("model clients made: %v", seen.modelSpecs)
			}
		})
	}
	if n := len(unknown.Requests()); n == 0 {
		t.Errorf("the server with no such model was never asked")
	}
}

// Without questions or a model the run needs no model client; with a
// model and exploration on, the model is asked before the kernel too.
func TestRunModelOnlyWhenNeeded(t *testing.T) {
	f, seen := seamFactory(t, "")
	wantExit(t, execute(t, f, nil, "run", "--out", t.TempDir(), writeCSV(t)), ExitSandbox)
	if len(seen.modelSpecs) != 0 || seen.kernelSetups != 1 {
		t.Errorf("model clients %v, kernel setups %d; want none and 1", seen.modelSpecs, seen.kernelSetups)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	f, seen = seamFactory(t, closed)
	wantExit(t, execute(t, f, nil, "run", "--out", t.TempDir(), "--model", "ollama:m", writeCSV(t)), ExitModel)
	if seen.kernelSetups != 0 {
		t.Errorf("exploring: the kernel setup ran before the model server was asked")
	}
	f, seen = seamFactory(t, closed)
	wantExit(t, execute(t, f, nil, "run", "--out", t.TempDir(), "--model", "ollama:m", "--explore=false", writeCSV(t)), ExitSandbox)
	if len(seen.modelSpecs) != 0 {
		t.Errorf("--explore=false without questions made a model client: %v", seen.modelSpecs)
	}
}
