package nbformat_test

// These tests check notebooks with Jupyter's own tools (nbformat 5.5's
// validator and writer, nbconvert with ipykernel) inside the real kernel
// sandbox. They need the kernel image: ANALYST_TEST_ROOTFS.

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/nbformat"
)

// testKernelOptions are the options for a kernel on this host, as in the
// kernel package's tests. The image comes from ANALYST_TEST_ROOTFS, which
// `make test` sets after building it.
func startKernel(t *testing.T, opts kernel.Options) *kernel.Kernel {
	t.Helper()
	return kerneltest.Start(t, func(o *kernel.Options) { *o = opts })
}

// mustRun runs code and fails the test unless the cell succeeded.
func mustRun(t *testing.T, k *kernel.Kernel, code string, timeout time.Duration) *kernel.Execution {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Minute)
	defer cancel()
	ex, err := k.Execute(ctx, code, kernel.ExecOptions{Timeout: timeout})
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if ex.Status != kernel.StatusOK {
		t.Fatalf("cell failed: status %s, error %v\ncode:\n%s\nstdout: %s\nstderr: %s", ex.Status, ex.Error, code, ex.Stdout(), ex.Stderr())
	}
	return ex
}

// dataDir is a folder the sandbox user can read, to mount at /data.
func dataDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// validateCode reads, validates and re-writes a notebook with nbformat, and
// prints "valid", any warnings, and whether nbformat's own writer gives our
// bytes back.
const validateCode = `
import difflib, sys, warnings
import nbformat
path = %q
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
print("valid", nbformat.__version__)
for w in caught:
    print("WARNING", w.category.__name__, w.message, file=sys.stderr)
raw = open(path, encoding="utf-8").read()
again = nbformat.writes(nb)
if not again.endswith("\n"):
    again += "\n"
if again == raw:
    print("same bytes")
else:
    print("".join(difflib.unified_diff(raw.splitlines(True), again.splitlines(True), "analyst", "nbformat", n=2))[:8000])
`

func validateInSandbox(t *testing.T, k *kernel.Kernel, path string) {
	t.Helper()
	ex := mustRun(t, k, fmt.Sprintf(validateCode, path), 2*time.Minute)
	out := ex.Stdout()
	if !strings.HasPrefix(out, "valid ") {
		t.Fatalf("nbformat did not validate %s:\n%s", path, out)
	}
	if ex.Stderr() != "" {
		t.Errorf("nbformat warned about %s:\n%s", path, ex.Stderr())
	}
	if !strings.Contains(out, "same bytes\n") {
		t.Errorf("nbformat.writes gives other bytes than ours for %s:\n%s", path, out)
	}
}

// TestJupyterValidates validates the golden sample with Jupyter's nbformat
// and checks that nbformat's own writer produces exactly our bytes.
func TestJupyterValidates(t *testing.T) {
	opts := kerneltest.Options(t)
	dir := dataDir(t)
	b := mustMarshal(t, sampleNotebook())
	if err := os.WriteFile(filepath.Join(dir, "sample.ipynb"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	compact, err := nbformat.MarshalCompact(sampleNotebook())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "compact.ipynb"), compact, 0o644); err != nil {
		t.Fatal(err)
	}
	opts.Data = dir
	k := startKernel(t, opts)
	validateInSandbox(t, k, "/data/sample.ipynb")
	// The compact notebook is valid, and the same notebook: nbformat
	// writes it back as the indented file's bytes.
	ex := mustRun(t, k, fmt.Sprintf(validateCompactCode, "/data/compact.ipynb", "/data/sample.ipynb"), 2*time.Minute)
	if out := ex.Stdout(); out != "valid, same notebook\n" || ex.Stderr() != "" {
		t.Errorf("nbformat on the compact notebook:\n%s%s", out, ex.Stderr())
	}
}

// validateCompactCode reads and validates a compact notebook (%q), then
// compares nbformat's writing of it with the indented file (%q).
const validateCompactCode = `
import nbformat
nb = nbformat.read(%q, as_version=4)
nbformat.validate(nb)
again = nbformat.writes(nb) + "\n"
print("valid, same notebook" if again == open(%q, encoding="utf-8").read() else "valid, another notebook")
`

// TestJupyterReexecutes runs cells in the kernel, writes the notebook from
// their real outputs, and has Jupyter (nbconvert --execute with ipykernel)
// run it again: the notebook is valid, re-executes without error, and gives
// the same text and the same chart.
func TestJupyterReexecutes(t *testing.T) {
	opts := kerneltest.Options(t)
	dir := dataDir(t)
	outDir := filepath.Join(t.TempDir(), "out")
	opts.Data, opts.OutputDir = dir, outDir
	k := startKernel(t, opts)

	nb := nbformat.New()
	nb.Metadata.LanguageInfo.Version = k.Python()
	nb.SetProvenance("test", t.Name())
	nb.AddMarkdown("# Re-execution check\n\n$$\\bar{x} = \\frac{1}{n}\\sum x_i$$")
	cells := []string{
		"import numpy as np\nimport pandas as pd\nimport matplotlib.pyplot as plt",
		"print('hello from the kernel')\nprint('ünïcode', 1 + 1)",
		"df = pd.DataFrame({'month': ['Jan', 'Feb', 'Mar'], 'revenue': [10.0, 30.5, 20.25]})\ndf",
		"df['revenue'].describe()",
		"plt.bar(df['month'], df['revenue'])\nplt.title('Revenue by month')\nplt.xlabel('month')\nplt.ylabel('revenue')\nplt.show()",
	}
	for _, code := range cells {
		mustRun(t, k, code, time.Minute).AddToNotebook(nb)
	}
	// Real kernel outputs round-trip too.
	first := mustMarshal(t, nb)
	// The kernel sees /data as it was at start (staged), so the notebook
	// goes in through a cell.
	mustRun(t, k, fmt.Sprintf("import base64\nopen('/tmp/x.ipynb', 'wb').write(base64.b64decode(%q))", base64.StdEncoding.EncodeToString(first)), time.Minute)
	back, err := nbformat.Read(bytes.NewReader(first))
	if err != nil {
		t.Fatal(err)
	}
	if second := mustMarshal(t, back); !bytes.Equal(first, second) {
		t.Errorf("Marshal(Read(Marshal(nb))) differs for real kernel outputs:\n%s", cmp.Diff(string(first), string(second)))
	}
	validateInSandbox(t, k, "/tmp/x.ipynb")

	jupyterBytes, again := rerunInJupyter(t, k, "/tmp/x.ipynb", outDir)
	// A notebook Jupyter wrote reads and writes back to the same bytes, but
	// for one deliberate difference: IPython 8.5 ends base64 images with a
	// newline (binascii.b2a_base64), which we strip.
	want := regexp.MustCompile(`("image/png": "[A-Za-z0-9+/=]+)\\n"`).ReplaceAll(jupyterBytes, []byte(`$1"`))
	if bytes.Equal(want, jupyterBytes) {
		t.Logf("Jupyter's image/png has no trailing newline (this IPython no longer adds one)")
	}
	if b := mustMarshal(t, again); !bytes.Equal(b, want) {
		t.Errorf("Marshal(Read(nbconvert's notebook)) differs from it:\n%s", cmp.Diff(string(want), string(b)))
	}
	if len(again.Cells) != len(nb.Cells) {
		t.Fatalf("nbconvert's notebook has %d cells, ours %d", len(again.Cells), len(nb.Cells))
	}
	for i, ours := range nb.Cells {
		theirs := again.Cells[i]
		if theirs.ID != ours.ID || theirs.Source != ours.Source {
			t.Errorf("cell %d: id/source changed: %q/%q vs %q/%q", i, ours.ID, ours.Source, theirs.ID, theirs.Source)
		}
		if ours.CellType != nbformat.Code {
			continue
		}
		// nbclient records when it ran each cell: these outputs are Jupyter's own.
		if _, ok := theirs.Metadata.Extra["execution"]; !ok {
			t.Errorf("cell %d: no execution timing: did nbconvert run it?", i)
		}
		for _, d := range nbformat.CompareOutputs(ours.Outputs, theirs.Outputs) {
			t.Errorf("cell %d: Jupyter's re-run differs: %s", i, d)
		}
	}
}

// rerunInJupyter has Jupyter (nbconvert --execute, ipykernel) run the
// notebook at path in the sandbox, writing out.ipynb into /output (outDir on
// the host), and returns its bytes and the notebook read back.
func rerunInJupyter(t *testing.T, k *kernel.Kernel, path, outDir string) ([]byte, *nbformat.Notebook) {
	t.Helper()
	// Jupyter's inline backend is chosen by ipykernel only when MPLBACKEND
	// is unset; make sure it is (the kernel's environment does not set it).
	ex := mustRun(t, k, fmt.Sprintf(`
import os, subprocess
env = dict(os.environ)
env.pop("MPLBACKEND", None)
r = subprocess.run(["jupyter", "nbconvert", "--to", "notebook", "--execute",
                    "--ExecutePreprocessor.timeout=120", "--output-dir", "/output",
                    "--output", "out", %q],
                   env=env, capture_output=True, text=True, timeout=150)
print("exit", r.returncode)
if r.returncode:
    print(r.stdout[-4000:], r.stderr[-4000:])
`, path), 3*time.Minute)
	if !strings.HasPrefix(ex.Stdout(), "exit 0") {
		t.Fatalf("nbconvert --execute failed:\n%s", ex.Stdout())
	}
	raw, err := os.ReadFile(filepath.Join(outDir, "out.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	nb, err := nbformat.Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("reading nbconvert's notebook: %v", err)
	}
	return raw, nb
}
