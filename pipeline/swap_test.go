package pipeline_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/dataset"
	"github.com/analyst-cli/analyst/pipeline"
)

// asFolderOwner runs a shell script in dir as the folder's owner: nobody
// when the tests run as root (a second local user); rootless, the tests'
// own user (the same swap, by the folder's owner).
func asFolderOwner(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-ec", script)
	cmd.Dir = dir
	if os.Getuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

// Issue 32 item 1, end to end: a second local user owns the folder; between
// the check and the kernel's staging they swap its subfolder for a link to
// a 0700 folder of the caller's holding a 0644 file of the same name, and
// put it back once the kernel has started. The run stops with a *DataError
// (exit 3) naming the file, and none of its outputs holds the other file's
// rows.
func TestRunRefusesAFolderSwappedDuringStaging(t *testing.T) {
	base, err := os.MkdirTemp("", "analyst-swap-run-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(base) })
	must(t, os.Chmod(base, 0o755))
	secret := filepath.Join(base, "secret")
	must(t, os.Mkdir(secret, 0o700))
	must(t, os.WriteFile(filepath.Join(secret, "x.csv"), []byte("who,n\nSECRET-ROW,1\n"), 0o644))
	folder := filepath.Join(base, "folder")
	must(t, os.Mkdir(folder, 0o755))
	if os.Getuid() == 0 {
		must(t, os.Chown(folder, 65534, 65534))
	}
	asFolderOwner(t, folder, "mkdir sub && printf 'who,n\\nlegit,1\\nlegit,2\\n' > sub/x.csv")

	pipeline.SetAroundStaging(func() func() {
		asFolderOwner(t, folder, "mv sub sub.real && ln -s "+secret+" sub")
		return func() { asFolderOwner(t, folder, "rm sub && mv sub.real sub") }
	})
	defer pipeline.SetAroundStaging(nil)
	out := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	_, err = pipeline.Run(ctx, options(t, folder, out))

	var de *dataset.DataError
	if !errors.As(err, &de) || de.Path != filepath.Join(folder, "sub", "x.csv") || !strings.Contains(err.Error(), "changed between its check and the kernel's staging") {
		t.Errorf("run on a folder swapped during staging: %v (%T); want a *DataError naming sub/x.csv", err, err)
	}
	filepath.Walk(out, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), "SECRET-ROW") {
				t.Errorf("%s holds the other folder's rows", p)
			}
		}
		return nil
	})
}

// Issue 32 item 5, end to end: a run on a folder whose tables are named
// Ⱥ.csv (longer once lower-cased) and, in Latin-1 from a Windows zip,
// \xdcbersicht.csv: no panic; Ⱥ is loaded, the other listed as ignored in
// run.json, saying why.
func TestRunFolderWithNamesAsBytes(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"Ⱥ.csv": "a,b\n1,2\n3,4\n", "\xdcbersicht.csv": "c,d\n5,6\n7,8\n"})
	res := run(t, options(t, dir, filepath.Join(t.TempDir(), "out")))
	if res.Failure != "" {
		t.Errorf("the run failed: %s", res.Failure)
	}
	nb, err := json.Marshal(res.Notebook)
	must(t, err)
	man, err := json.Marshal(res.Manifest)
	must(t, err)
	if !strings.Contains(string(nb), "Ⱥ") {
		t.Errorf("the notebook does not load the table Ⱥ")
	}
	if !strings.Contains(string(man), "its name is not UTF-8") {
		t.Errorf("run.json does not say why \\xdcbersicht.csv was left out")
	}
}
