package kerneltest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/nbformat"
)

// Nbconvert re-runs the notebook dir/name in Jupyter (jupyter nbconvert
// --execute, ipykernel) inside a fresh kernel whose /data is dir, and
// returns the re-run notebook, to compare its outputs with the original's
// (nbformat.CompareOutputs).
func Nbconvert(t testing.TB, dir, name string) *nbformat.Notebook {
	t.Helper()
	rerun := t.TempDir()
	k := Start(t, func(o *kernel.Options) { o.Data = dir; o.OutputDir = rerun })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	ex, err := k.Execute(ctx, `
import subprocess
r = subprocess.run(["jupyter", "nbconvert", "--to", "notebook", "--execute", "--ExecutePreprocessor.timeout=300",
                    "--output-dir", "/output", "--output", "rerun", "/data/`+name+`"], capture_output=True, text=True)
print("exit", r.returncode)
if r.returncode:
    print(r.stdout[-4000:], r.stderr[-4000:])
`, kernel.ExecOptions{Timeout: 4 * time.Minute})
	if err != nil || !strings.HasPrefix(ex.Stdout(), "exit 0") {
		t.Fatalf("nbconvert --execute: %v\n%s%v", err, ex.Stdout(), ex.Error)
	}
	nb, err := nbformat.ReadFile(filepath.Join(rerun, "rerun.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	return nb
}
