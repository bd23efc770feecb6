package pipeline_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/kernel/seccomp"
	"github.com/analyst-cli/analyst/pipeline"
	"github.com/analyst-cli/analyst/runrecord"
)

// tree is every file under dir with its content ("sub/" for folders).
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			got[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		got[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The scenario: the user's own data.html and data_files/notes.txt
// next to data.csv. The run refuses before it starts (these options name no
// kernel image: reaching the kernel would be a SandboxError), names the
// file, and leaves the folder exactly as it was.
func TestRunRefusesToReplaceFilesItDidNotWrite(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string // the path the error names, relative to the folder
	}{
		{"report and notes", map[string]string{"data.html": "<p>my report</p>", "data_files/notes.txt": "my notes"}, "data.html"},
		{"notes only", map[string]string{"data_files/notes.txt": "my notes"}, "data_files"},
		{"notebook", map[string]string{"data.ipynb": "{}"}, "data.ipynb"},
		{"a manifest that is not one", map[string]string{"data.run.json": `{"mine": true}`}, "data.run.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.files["data.csv"] = "a,b\n1,2\n3,4\n"
			writeTree(t, dir, tt.files)
			before := tree(t, dir)
			var events []pipeline.Event
			_, err := pipeline.Run(context.Background(), pipeline.Options{
				Data: filepath.Join(dir, "data.csv"), OutDir: dir,
				Progress: func(e pipeline.Event) { events = append(events, e) },
			})
			var ce *pipeline.OutputConflictError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want an OutputConflictError", err)
			}
			if want := filepath.Join(dir, tt.want); ce.Path != want || !strings.HasPrefix(err.Error(), want+" ") {
				t.Errorf("error names %s: %q; want %s", ce.Path, err, want)
			}
			for _, way := range []string{"--name", "--out", "--force"} {
				if !strings.Contains(err.Error(), way) {
					t.Errorf("error does not mention %s: %q", way, err)
				}
			}
			if len(events) > 0 {
				t.Errorf("the run got as far as %+v", events)
			}
			if after := tree(t, dir); !equalTrees(before, after) {
				t.Errorf("the folder changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

func equalTrees(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// A previous run is replaced; the same run once edited, or with a file of
// the user's added to its folder, is not, unless forced.
func TestRerunReplacesOnlyAnUnchangedPreviousRun(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.csv")
	if err := os.WriteFile(data, []byte("x,y\n1,2\n3,5\n4,4\n6,9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := options(t, data, dir)
	first := run(t, o)
	checkManifestFiles(t, first, dir)

	// Edited since: refused, naming the file; the edit survives.
	edited := "<p>my annotations</p>"
	if err := os.WriteFile(first.Files.Report, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := pipeline.Run(context.Background(), o)
	var ce *pipeline.OutputConflictError
	if !errors.As(err, &ce) || !ce.Changed || ce.Path != first.Files.Report || !strings.Contains(err.Error(), "changed since") {
		t.Fatalf("re-run over an edited report: %v, want an OutputConflictError naming %s as changed", err, first.Files.Report)
	}
	if b, _ := os.ReadFile(first.Files.Report); string(b) != edited {
		t.Errorf("the edited report was replaced")
	}

	// --force replaces it, and the run's files go as a whole, a file of the
	// user's inside them too (as documented).
	notes := filepath.Join(dir, "data_files", "notes.txt")
	if err := os.WriteFile(notes, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	o.Force = true
	forced := run(t, o)
	if b, _ := os.ReadFile(forced.Files.Report); string(b) == edited {
		t.Errorf("--force did not replace the report")
	}
	if _, err := os.Stat(notes); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--force left %s: %v", notes, err)
	}
	checkManifestFiles(t, forced, dir)

	// An unchanged previous run is replaced without --force.
	o.Force = false
	again := run(t, o)
	checkManifestFiles(t, again, dir)

	// A file of the user's in the run's folder stops the next run.
	if err := os.WriteFile(notes, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = pipeline.Run(context.Background(), o)
	if !errors.As(err, &ce) || ce.Changed || ce.Path != notes {
		t.Fatalf("re-run with %s added: %v, want an OutputConflictError naming it", notes, err)
	}
	if b, _ := os.ReadFile(notes); string(b) != "mine" {
		t.Errorf("notes.txt changed")
	}
}

// checkManifestFiles: NAME.run.json lists exactly the files and folders the
// run left, with their sha256.
func checkManifestFiles(t *testing.T, res *pipeline.Result, dir string) {
	t.Helper()
	b, err := os.ReadFile(res.Files.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	var m runrecord.Record
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Seccomp != seccomp.Hash() {
		t.Errorf("manifest seccomp %q, want %q", m.Seccomp, seccomp.Hash())
	}
	var listed, onDisk []string
	for _, f := range m.Files {
		listed = append(listed, f.Path)
		if strings.HasSuffix(f.Path, "/") {
			continue
		}
		if got := sha(t, filepath.Join(dir, f.Path)); got != f.SHA256 {
			t.Errorf("%s: sha256 %s, manifest says %s", f.Path, got, f.SHA256)
		}
	}
	for rel := range tree(t, dir) {
		if rel != "data.csv" && rel != res.Name+".run.json" {
			onDisk = append(onDisk, filepath.ToSlash(rel))
		}
	}
	sort.Strings(listed)
	sort.Strings(onDisk)
	if strings.Join(listed, " ") != strings.Join(onDisk, " ") {
		t.Errorf("manifest lists %v, the folder holds %v", listed, onDisk)
	}
}
