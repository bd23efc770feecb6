package image

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// ErrNotBuilt means the cache holds no complete image for a recipe.
var ErrNotBuilt = errors.New("kernel image not built")

// manifestName is written last by Build: its presence, valid, is what makes
// an image folder complete.
const manifestName = "manifest.json"

// Manifest describes a built image. Build writes it as manifest.json in the
// image folder; Lookup and List read it back.
type Manifest struct {
	RecipeHash   string    `json:"recipe_hash"`
	Recipe       Recipe    `json:"recipe"`
	Builder      string    `json:"builder"` // "debootstrap" or "mmdebstrap"
	BuiltAt      time.Time `json:"built_at"`
	BuildSeconds float64   `json:"build_seconds"`
	SizeBytes    int64     `json:"size_bytes"`
	// Python is the interpreter's version, e.g. "3.11.2".
	Python string `json:"python"`
	// Packages holds the versions of the Python distributions the model is
	// told about (pandas, numpy, ...), as importlib.metadata reports them.
	// Distributions not installed are absent.
	Packages map[string]string `json:"packages"`
	// DebianPackages holds the installed version of each recipe package.
	DebianPackages map[string]string `json:"debian_packages"`
}

// Versions are the interpreter's and the Python libraries' versions, as the
// model is told them and run.json records them: the distributions
// importlib.metadata reported, plus the libraries the recipe installs only
// as Debian python3-* packages (dask, xlrd, odf, pyreadstat, ...) with
// their upstream version (Debian epoch and revision removed).
func (m Manifest) Versions() map[string]string {
	v := map[string]string{"python": m.Python}
	for k, ver := range m.Packages {
		v[k] = ver
	}
	for deb, ver := range m.DebianPackages {
		name, ok := strings.CutPrefix(deb, "python3-")
		if !ok || name == "" {
			continue
		}
		if name == "sklearn" {
			name = "scikit-learn"
		}
		if _, known := v[name]; known {
			continue
		}
		v[name] = upstreamVersion(ver)
	}
	return v
}

// upstreamVersion is a Debian version without its epoch ("1:") and
// Debian revision ("-2", "-1+b1").
func upstreamVersion(deb string) string {
	if _, after, ok := strings.Cut(deb, ":"); ok {
		deb = after
	}
	if i := strings.LastIndexByte(deb, '-'); i > 0 {
		deb = deb[:i]
	}
	return deb
}

// Image is a complete image in the cache.
type Image struct {
	Dir      string // the image folder, CACHE/kernel/<hash16>
	RootFS   string // Dir/rootfs: what podman --rootfs is given
	Manifest Manifest
}

// Matches reports whether the image was built from r by the current
// post-build steps.
func (im Image) Matches(r Recipe) bool { return im.Manifest.RecipeHash == r.Hash() }

// DefaultCacheDir is the user's cache folder plus "analyst" (the CLI's
// default; its cache-dir setting, ANALYST_CACHE_DIR, overrides it).
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding the cache folder (set ANALYST_CACHE_DIR): %w", err)
	}
	return filepath.Join(d, "analyst"), nil
}

// kernelDir is where images live inside a cache folder.
func kernelDir(cacheDir string) string { return filepath.Join(cacheDir, "kernel") }

// Lookup returns the complete image for r, or an error wrapping ErrNotBuilt.
func Lookup(cacheDir string, r Recipe) (*Image, error) {
	dir := filepath.Join(kernelDir(cacheDir), r.ID())
	im, err := readImage(dir)
	if err == nil && !im.Matches(r) {
		err = fmt.Errorf("%s was built from another recipe (hash %s)", dir, im.Manifest.RecipeHash)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v; run: analyst kernel build", ErrNotBuilt, err)
	}
	return im, nil
}

// List returns every complete image in the cache, newest first, including
// images of other recipes or older post-build steps (see Image.Matches).
func List(cacheDir string) ([]Image, error) {
	entries, err := os.ReadDir(kernelDir(cacheDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing kernel images: %w", err)
	}
	var images []Image
	for _, e := range entries {
		// Dot entries are the lock and builds in progress or abandoned.
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		im, err := readImage(filepath.Join(kernelDir(cacheDir), e.Name()))
		if err != nil {
			continue
		}
		images = append(images, *im)
	}
	slices.SortFunc(images, func(a, b Image) int { return b.Manifest.BuiltAt.Compare(a.Manifest.BuiltAt) })
	return images, nil
}

// readImage reads the image in dir, failing unless it is complete: a valid
// manifest whose hash names the folder, and a root filesystem.
func readImage(dir string) (*Image, error) {
	m, err := readManifest(filepath.Join(dir, manifestName))
	if err != nil {
		return nil, err
	}
	if len(m.RecipeHash) < 16 || m.ID() != filepath.Base(dir) {
		return nil, fmt.Errorf("%s: manifest hash %q does not name the folder", dir, m.RecipeHash)
	}
	rootfs := filepath.Join(dir, "rootfs")
	if fi, err := os.Stat(filepath.Join(rootfs, "usr", "bin", "python3")); err != nil || fi.IsDir() {
		return nil, fmt.Errorf("%s: no usr/bin/python3 in the root filesystem", dir)
	}
	return &Image{Dir: dir, RootFS: rootfs, Manifest: *m}, nil
}

func readManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if m.RecipeHash == "" {
		return nil, fmt.Errorf("reading %s: no recipe hash", path)
	}
	return &m, nil
}

// writeManifest writes m into dir atomically (temporary file, then rename),
// so a reader sees the whole manifest or none.
func writeManifest(dir string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".manifest-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // no-op once renamed
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), filepath.Join(dir, manifestName))
}
