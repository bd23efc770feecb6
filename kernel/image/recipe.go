// Package image builds, caches and finds the kernel's root filesystem: a
// Debian tree holding python3 and the data stack, built from Debian's own
// packages (debootstrap as root, mmdebstrap otherwise) so that no container
// registry is needed.
package image

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// postBuildVersion names the steps Build runs after bootstrapping (font
// cache, mount points, clean-up). It is part of every recipe's hash, so
// changing those steps means bumping it, which rebuilds every image.
const postBuildVersion = 3

// Recipe says what goes into a kernel image.
type Recipe struct {
	Suite    string   `json:"suite"`    // Debian release, e.g. "bookworm"
	Mirror   string   `json:"mirror"`   // e.g. "http://deb.debian.org/debian"
	Variant  string   `json:"variant"`  // debootstrap/mmdebstrap variant, e.g. "minbase"
	Packages []string `json:"packages"` // Debian packages installed on top of the variant
	// DpkgFilter are dpkg's path-exclude=GLOB and path-include=GLOB
	// options, in order: files of the packages that are never unpacked.
	DpkgFilter []string `json:"dpkg_filter,omitempty"`
}

// defaultPackages is the Python stack the kernel offers the model, the
// readers of the formats people hand an analyst, and fonts for charts
// (DejaVu for Latin, Noto CJK for Chinese, Japanese and Korean, Symbola
// for emoji: Matplotlib's Agg cannot draw Noto Color Emoji's bitmap
// glyphs, see kernel/driver). The Containerfile lists the same packages;
// a test keeps them equal.
var defaultPackages = []string{
	"python3",
	"python3-pandas",
	"python3-numpy",
	"python3-scipy",
	"python3-matplotlib",
	"python3-seaborn",
	"python3-plotly",
	"ipython3",
	"python3-statsmodels",
	"python3-sklearn",
	"python3-openpyxl",
	"python3-xlrd",
	"python3-odf",
	"python3-pyreadstat",
	"python3-dask",
	"python3-nbformat",
	"python3-nbconvert",
	"python3-ipykernel",
	"jupyter-nbconvert",
	"jupyter-core",
	"python3-tabulate",
	"libjs-katex",
	"fonts-dejavu-core",
	"fonts-noto-cjk",
	"fonts-noto-color-emoji",
	"fonts-symbola",
}

// defaultDpkgFilter keeps what the kernel never reads out of the image:
// documentation (but each package's copyright), man and info pages,
// message translations, and the serif faces of Noto CJK (charts use the
// sans ones; the serif half is some 45 MB). The Containerfile writes the
// same lines; a test keeps them equal.
var defaultDpkgFilter = []string{
	"path-exclude=/usr/share/doc/*",
	"path-include=/usr/share/doc/*/copyright",
	"path-exclude=/usr/share/man/*",
	"path-exclude=/usr/share/info/*",
	"path-exclude=/usr/share/locale/*",
	"path-exclude=/usr/share/fonts/opentype/noto/NotoSerifCJK*",
}

// DefaultRecipe is the image analyst runs unless told otherwise.
func DefaultRecipe() Recipe {
	return Recipe{
		Suite:      "trixie",
		Mirror:     "http://deb.debian.org/debian",
		Variant:    "minbase",
		Packages:   slices.Clone(defaultPackages),
		DpkgFilter: slices.Clone(defaultDpkgFilter),
	}
}

// canonical returns the recipe with its package list sorted and without
// duplicates: the order of --include does not change what is installed.
func (r Recipe) canonical() Recipe {
	if len(r.DpkgFilter) == 0 {
		r.DpkgFilter = nil
	}
	if len(r.Packages) == 0 {
		r.Packages = nil // nil and empty lists are the same recipe
		return r
	}
	p := slices.Clone(r.Packages)
	slices.Sort(p)
	r.Packages = slices.Compact(p)
	return r
}

// Hash identifies the image the recipe produces: the hex sha256 of the
// canonical recipe together with postBuildVersion.
func (r Recipe) Hash() string { return r.hash(postBuildVersion) }

func (r Recipe) hash(postBuild int) string {
	b, err := json.Marshal(struct {
		PostBuild int    `json:"post_build"`
		Recipe    Recipe `json:"recipe"`
	}{postBuild, r.canonical()})
	if err != nil {
		// A struct of strings always marshals.
		panic(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ShortHash is a recipe hash's first 16 hex digits: the image's id (in
// manifests, reports and messages) and the name of its folder.
func ShortHash(hash string) string { return hash[:min(16, len(hash))] }

// ID is the id of the image built from the recipe.
func (r Recipe) ID() string { return ShortHash(r.Hash()) }

// ID is the image's id: ShortHash of its recipe hash.
func (m Manifest) ID() string { return ShortHash(m.RecipeHash) }

// Validate reports a recipe the bootstrap tools would misread: empty
// fields, or names that would split or merge the comma-separated --include.
func (r Recipe) Validate() error {
	var errs []error
	for _, f := range []struct{ name, value string }{
		{"suite", r.Suite}, {"mirror", r.Mirror}, {"variant", r.Variant},
	} {
		if f.value == "" {
			errs = append(errs, fmt.Errorf("%s is empty", f.name))
		} else if strings.ContainsAny(f.value, " \t\n,") {
			errs = append(errs, fmt.Errorf("%s %q contains a space or comma", f.name, f.value))
		}
	}
	for _, f := range r.DpkgFilter {
		kind, glob, _ := strings.Cut(f, "=")
		if (kind != "path-exclude" && kind != "path-include") || !strings.HasPrefix(glob, "/") || strings.ContainsAny(f, " \t\n,") {
			errs = append(errs, fmt.Errorf("dpkg filter %q is not path-exclude=/GLOB or path-include=/GLOB", f))
		}
	}
	for _, p := range r.Packages {
		if !validPackageName(p) {
			errs = append(errs, fmt.Errorf("package name %q is not a Debian package name", p))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("invalid kernel image recipe: %w", err)
	}
	return nil
}

// validPackageName follows Debian policy 5.6.1: lower case letters, digits,
// '+', '-', '.', at least two characters, starting with a letter or digit.
func validPackageName(s string) bool {
	if len(s) < 2 {
		return false
	}
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case i > 0 && (c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}
