package image

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var tinyRecipe = Recipe{
	Suite:      "trixie",
	Mirror:     "http://deb.debian.org/debian",
	Variant:    "minbase",
	Packages:   []string{"python3-minimal"},
	DpkgFilter: []string{"path-exclude=/usr/share/doc/*", "path-include=/usr/share/doc/*/copyright"},
}

// placeImage writes a complete-looking image for r into the cache by hand:
// a manifest and a root filesystem holding usr/bin/python3.
func placeImage(t *testing.T, cacheDir string, r Recipe, builtAt time.Time) *Manifest {
	t.Helper()
	dir := filepath.Join(cacheDir, "kernel", r.Hash()[:16])
	if err := os.MkdirAll(filepath.Join(dir, "rootfs", "usr", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rootfs", "usr", "bin", "python3"), []byte("#!/bin/false\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := &Manifest{
		RecipeHash: r.Hash(), Recipe: r.canonical(), Builder: "debootstrap",
		BuiltAt: builtAt, BuildSeconds: 12.5, SizeBytes: 123 << 20,
		Python:         "3.11.2",
		Packages:       map[string]string{"pandas": "1.5.3"},
		DebianPackages: map[string]string{"python3-minimal": "3.11.2-1+b1"},
	}
	if err := writeManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestLookupEmptyCache(t *testing.T) {
	for _, cache := range []string{t.TempDir(), filepath.Join(t.TempDir(), "does-not-exist")} {
		im, err := Lookup(cache, DefaultRecipe())
		if !errors.Is(err, ErrNotBuilt) || im != nil {
			t.Fatalf("Lookup(%s) = %v, %v; want ErrNotBuilt", cache, im, err)
		}
		if !strings.Contains(err.Error(), "run: analyst kernel build") {
			t.Errorf("error %q does not say how to build the image", err)
		}
		list, err := List(cache)
		if err != nil || len(list) != 0 {
			t.Errorf("List(%s) = %v, %v; want nothing", cache, list, err)
		}
	}
}

func TestManifestRoundTrip(t *testing.T) {
	cache := t.TempDir()
	want := placeImage(t, cache, tinyRecipe, time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC))
	im, err := Lookup(cache, tinyRecipe)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(im.Manifest, *want) {
		t.Errorf("manifest read back differs:\n got %+v\nwant %+v", im.Manifest, *want)
	}
	wantDir := filepath.Join(cache, "kernel", tinyRecipe.Hash()[:16])
	if im.Dir != wantDir || im.RootFS != filepath.Join(wantDir, "rootfs") {
		t.Errorf("Dir, RootFS = %s, %s; want %s and its rootfs", im.Dir, im.RootFS, wantDir)
	}
	if !im.Matches(tinyRecipe) || im.Matches(DefaultRecipe()) {
		t.Error("Matches is wrong")
	}
	if _, err := os.Stat(filepath.Join(wantDir, manifestName)); err != nil {
		t.Error(err)
	}
	if left, _ := filepath.Glob(filepath.Join(wantDir, ".manifest-*")); len(left) != 0 {
		t.Errorf("temporary manifest files left: %v", left)
	}
}

// TestLookupIncomplete: every way an image folder can be unfinished or
// foreign must read as not built.
func TestLookupIncomplete(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(t *testing.T, dir string)
	}{
		{"no manifest", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, manifestName)) }},
		{"truncated manifest", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, manifestName), []byte(`{"recipe_hash": "ab`), 0o644)
		}},
		{"manifest of another recipe", func(t *testing.T, dir string) {
			m, _ := readManifest(filepath.Join(dir, manifestName))
			m.RecipeHash = DefaultRecipe().Hash()
			writeManifest(dir, m)
		}},
		{"no root filesystem", func(t *testing.T, dir string) { os.RemoveAll(filepath.Join(dir, "rootfs")) }},
		{"no python3", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "rootfs", "usr", "bin", "python3")) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cache := t.TempDir()
			placeImage(t, cache, tinyRecipe, time.Now())
			if _, err := Lookup(cache, tinyRecipe); err != nil {
				t.Fatalf("intact image: %v", err)
			}
			tt.spoil(t, filepath.Join(cache, "kernel", tinyRecipe.Hash()[:16]))
			if _, err := Lookup(cache, tinyRecipe); !errors.Is(err, ErrNotBuilt) {
				t.Errorf("Lookup = %v, want ErrNotBuilt", err)
			}
			if list, _ := List(cache); len(list) != 0 {
				t.Errorf("List = %v, want nothing", list)
			}
		})
	}
}

func TestListSkipsBuildsInProgress(t *testing.T) {
	cache := t.TempDir()
	old := DefaultRecipe()
	old.Packages = []string{"python3"}
	placeImage(t, cache, old, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	placeImage(t, cache, tinyRecipe, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	// A finished build not yet renamed into place is not an image.
	inProgress := filepath.Join(cache, "kernel", ".build-"+DefaultRecipe().Hash()[:16]+"-123")
	if err := os.Rename(filepath.Join(cache, "kernel", tinyRecipe.Hash()[:16]), inProgress); err != nil {
		t.Fatal(err)
	}
	list, err := List(cache)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || !list[0].Matches(old) {
		t.Fatalf("List = %+v, want only the image of %v", list, old.Packages)
	}
	placeImage(t, cache, tinyRecipe, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	list, _ = List(cache)
	if len(list) != 2 || !list[0].Matches(tinyRecipe) || !list[1].Matches(old) {
		t.Errorf("List = %+v, want both images, newest first", list)
	}
}

// The library reads no ANALYST_* variable: the CLI resolves the setting.
func TestDefaultCacheDir(t *testing.T) {
	t.Setenv("ANALYST_CACHE_DIR", "/some/where")
	t.Setenv("XDG_CACHE_HOME", "/xdg/cache")
	if d, err := DefaultCacheDir(); err != nil || d != "/xdg/cache/analyst" {
		t.Errorf("with XDG_CACHE_HOME: %q, %v", d, err)
	}
}

// The model is told every library the image has, also those Debian ships
// without a version importlib.metadata reports to us: the upstream version
// of python3-* packages, and importlib's version where both exist.
func TestManifestVersions(t *testing.T) {
	m := Manifest{Python: "3.13.5",
		Packages: map[string]string{"pandas": "2.2.3+dfsg", "scikit-learn": "1.4.2"},
		DebianPackages: map[string]string{"python3": "3.13.5-1", "python3-pandas": "2.2.3+dfsg-9",
			"python3-dask": "2024.12.1+dfsg-2", "python3-numpy": "1:2.2.4+ds-1", "python3-pyreadstat": "1.2.8-1+b1",
			"python3-sklearn": "1.4.2+dfsg-8", "fonts-symbola": "2.60-2"}}
	want := map[string]string{"python": "3.13.5", "pandas": "2.2.3+dfsg", "scikit-learn": "1.4.2",
		"dask": "2024.12.1+dfsg", "numpy": "2.2.4+ds", "pyreadstat": "1.2.8"}
	if got := m.Versions(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Versions() = %v, want %v", got, want)
	}
}
