package pipeline

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// The staging folders of runs that were killed are removed; a run going on
// in the same folder keeps its own, and folders of older versions (no
// owner file) and the user's hidden folders are left alone.
func TestRemoveLeftoverStaging(t *testing.T) {
	out := t.TempDir()
	live, err := newStaging(out, "sales")
	if err != nil {
		t.Fatal(err)
	}
	defer live.discard()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := map[string]string{
		".sales.run-1234": fmt.Sprintf("%d:1\n", gone.Process.Pid),
		".q4.run-5678":    fmt.Sprintf("%d\n", gone.Process.Pid),
	}
	kept := []string{".sales.run-old", ".git", "sales.run-visible"}
	for _, dir := range append([]string{".sales.run-1234", ".q4.run-5678"}, kept...) {
		if err := os.MkdirAll(filepath.Join(out, dir, "files"), 0o755); err != nil {
			t.Fatal(err)
		}
		if o, ok := dead[dir]; ok {
			if err := os.WriteFile(filepath.Join(out, dir, "owner"), []byte(o), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(out, "sales.run-visible", "owner"), []byte(dead[".q4.run-5678"]), 0o644); err != nil {
		t.Fatal(err)
	}
	removed, err := removeLeftoverStaging(out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range removed {
		got = append(got, filepath.Base(l.path))
		if l.ownerPID != gone.Process.Pid {
			t.Errorf("%s: owner %d, want %d", l.path, l.ownerPID, gone.Process.Pid)
		}
	}
	slices.Sort(got)
	if want := []string{".q4.run-5678", ".sales.run-1234"}; !slices.Equal(got, want) {
		t.Errorf("removed %v, want %v", got, want)
	}
	for _, dir := range append(kept, filepath.Base(live.dir)) {
		if _, err := os.Stat(filepath.Join(out, dir)); err != nil {
			t.Errorf("%s was removed: %v", dir, err)
		}
	}
}
