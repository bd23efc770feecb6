package image

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestRecipeHashStable(t *testing.T) {
	r := Recipe{Suite: "bookworm", Mirror: "http://deb.debian.org/debian", Variant: "minbase", Packages: []string{"python3-minimal", "fonts-dejavu-core"}}
	// Golden: a change here means every cached image is rebuilt. That is
	// right when postBuildVersion was bumped (update the value); otherwise
	// the encoding changed by accident.
	const golden = "c10fd8e3ad324f514a7dfd52ac58b9f80b6d4d21672803d7f2622a657a37c3af"
	if got := r.Hash(); got != golden {
		t.Errorf("Hash() = %s, want %s", got, golden)
	}
	same := []Recipe{
		{Suite: r.Suite, Mirror: r.Mirror, Variant: r.Variant, Packages: []string{"fonts-dejavu-core", "python3-minimal"}},
		{Suite: r.Suite, Mirror: r.Mirror, Variant: r.Variant, Packages: []string{"python3-minimal", "fonts-dejavu-core", "python3-minimal"}},
	}
	for _, s := range same {
		if s.Hash() != r.Hash() {
			t.Errorf("Hash of %v differs from %v: package order and repeats must not matter", s.Packages, r.Packages)
		}
	}
	if (Recipe{Suite: "x", Mirror: "y", Variant: "z"}).Hash() != (Recipe{Suite: "x", Mirror: "y", Variant: "z", Packages: []string{}}).Hash() {
		t.Error("nil and empty package lists hash differently")
	}
	if len(r.Hash()) != 64 {
		t.Errorf("Hash() has %d hex digits, want 64", len(r.Hash()))
	}
}

func TestRecipeHashSensitive(t *testing.T) {
	base := DefaultRecipe()
	tests := []struct {
		name   string
		change func(*Recipe)
	}{
		{"suite", func(r *Recipe) { r.Suite = "bookworm" }},
		{"mirror", func(r *Recipe) { r.Mirror = "http://ftp.de.debian.org/debian" }},
		{"variant", func(r *Recipe) { r.Variant = "buildd" }},
		{"package added", func(r *Recipe) { r.Packages = append(r.Packages, "python3-h5py") }},
		{"dpkg filter added", func(r *Recipe) { r.DpkgFilter = append(r.DpkgFilter, "path-exclude=/usr/share/icons/*") }},
		{"no dpkg filter", func(r *Recipe) { r.DpkgFilter = nil }},
		{"package removed", func(r *Recipe) { r.Packages = r.Packages[1:] }},
		{"package replaced", func(r *Recipe) { r.Packages[0] = "python3-minimal" }},
		{"no packages", func(r *Recipe) { r.Packages = nil }},
	}
	seen := map[string]string{base.Hash(): "base"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := DefaultRecipe()
			tt.change(&r)
			h := r.Hash()
			if prev, ok := seen[h]; ok {
				t.Errorf("hash after changing %s equals the hash of %s", tt.name, prev)
			}
			seen[h] = tt.name
		})
	}
	t.Run("post-build version", func(t *testing.T) {
		if base.hash(postBuildVersion+1) == base.Hash() {
			t.Error("changing postBuildVersion does not change the hash")
		}
	})
	t.Run("default recipe not mutated", func(t *testing.T) {
		if DefaultRecipe().Hash() != base.Hash() {
			t.Error("changing a copy of DefaultRecipe changed DefaultRecipe")
		}
	})
}

func TestRecipeValidate(t *testing.T) {
	tests := []struct {
		name    string
		change  func(*Recipe)
		wantErr string
	}{
		{"default is valid", func(*Recipe) {}, ""},
		{"no packages is valid", func(r *Recipe) { r.Packages = nil }, ""},
		{"empty suite", func(r *Recipe) { r.Suite = "" }, "suite is empty"},
		{"empty mirror", func(r *Recipe) { r.Mirror = "" }, "mirror is empty"},
		{"variant with comma", func(r *Recipe) { r.Variant = "minbase,x" }, "space or comma"},
		{"package with comma", func(r *Recipe) { r.Packages = []string{"python3,curl"} }, `"python3,curl"`},
		{"package upper case", func(r *Recipe) { r.Packages = []string{"Python3"} }, `"Python3"`},
		{"package option", func(r *Recipe) { r.Packages = []string{"--foo"} }, `"--foo"`},
		{"dpkg filter of another kind", func(r *Recipe) { r.DpkgFilter = []string{"force-all"} }, `"force-all"`},
		{"dpkg filter relative", func(r *Recipe) { r.DpkgFilter = []string{"path-exclude=usr/*"} }, `"path-exclude=usr/*"`},
		{"dpkg filter with space", func(r *Recipe) { r.DpkgFilter = []string{"path-exclude=/a b"} }, `"path-exclude=/a b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := DefaultRecipe()
			tt.change(&r)
			err := r.Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Validate() = %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestContainerfileMatchesRecipe keeps the Containerfile, for machines
// that reach a registry, installing what the debootstrap build installs.
func TestContainerfileMatchesRecipe(t *testing.T) {
	f, err := os.Open("Containerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := containerfilePackages(bufio.NewScanner(f))
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(DefaultRecipe().Packages)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Containerfile installs %v\nDefaultRecipe has     %v", got, want)
	}
	b, err := os.ReadFile("Containerfile")
	if err != nil {
		t.Fatal(err)
	}
	filter := containerfileDpkgFilter(string(b))
	if !slices.Equal(filter, DefaultRecipe().DpkgFilter) {
		t.Errorf("Containerfile's dpkg filter is %q\nDefaultRecipe has %q", filter, DefaultRecipe().DpkgFilter)
	}
}

// containerfileDpkgFilter reads the quoted path-exclude and path-include
// lines the Containerfile writes, in order.
func containerfileDpkgFilter(s string) []string {
	var out []string
	for line := range strings.Lines(s) {
		line = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(line), `\`))
		if q := strings.Trim(line, "'"); strings.HasPrefix(q, "path-exclude=") || strings.HasPrefix(q, "path-include=") {
			out = append(out, q)
		}
	}
	return out
}

// containerfilePackages reads the package names that follow the line with
// "apt-get install", one per continuation line, up to the next "&&".
func containerfilePackages(sc *bufio.Scanner) ([]string, error) {
	var pkgs []string
	in := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.Contains(line, "apt-get install") {
			if in || pkgs != nil {
				return nil, fmt.Errorf("more than one apt-get install")
			}
			in = true
			continue
		}
		if !in {
			continue
		}
		if strings.HasPrefix(line, "&&") {
			in = false
			continue
		}
		name, ok := strings.CutSuffix(line, `\`)
		name = strings.TrimSpace(name)
		if !ok || strings.ContainsAny(name, " \t") || name == "" {
			return nil, fmt.Errorf("unexpected line in the package list: %q", line)
		}
		pkgs = append(pkgs, name)
	}
	if pkgs == nil {
		return nil, fmt.Errorf("no apt-get install package list found")
	}
	return pkgs, sc.Err()
}
