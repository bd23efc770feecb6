package image

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/internal/units"
)

const slowSkip = "builds a real root filesystem from the Debian mirror (about a minute); run without -short"

// bootstrapTool is what Build uses as the current user.
func bootstrapTool() string {
	if os.Geteuid() == 0 {
		return "debootstrap"
	}
	return "mmdebstrap"
}

// leftovers lists the build and replaced-image folders in the cache.
func leftovers(t *testing.T, cache string) []string {
	t.Helper()
	var out []string
	for _, pattern := range []string{".build-*", ".old-*"} {
		m, err := filepath.Glob(filepath.Join(cache, "kernel", pattern))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	return out
}

func TestBuildInterruptedLeavesNoImage(t *testing.T) {
	if testing.Short() {
		t.Skip(slowSkip)
	}
	tests := []struct {
		name     string
		rootOnly bool
		// cancelOn, if set, cancels at the first progress line containing
		// it; else the build is cancelled after 3 seconds.
		cancelOn string
	}{
		{name: "while downloading"},
		// By "Installing core packages" debootstrap has mounted proc and
		// sys inside the tree: the clean-up must unmount them.
		{name: "with proc and sys mounted", rootOnly: true, cancelOn: "Installing core packages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.rootOnly && os.Geteuid() != 0 {
				t.Skip("only debootstrap (as root) mounts inside the tree")
			}
			cache := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var (
				mu          sync.Mutex
				cancelledAt time.Time
				mounted     []string
			)
			progress := &progressLog{}
			if tt.cancelOn != "" {
				progress.onLine = func(line string) {
					mu.Lock()
					defer mu.Unlock()
					if cancelledAt.IsZero() && strings.Contains(line, tt.cancelOn) {
						mounted, _ = mountsUnder(cache)
						cancelledAt = time.Now()
						cancel()
					}
				}
			} else {
				time.AfterFunc(3*time.Second, func() {
					mu.Lock()
					defer mu.Unlock()
					cancelledAt = time.Now()
					cancel()
				})
			}
			b := &Builder{CacheDir: cache, Progress: progress}
			im, err := b.Build(ctx, tinyRecipe, false)
			returned := time.Now()
			mu.Lock()
			defer mu.Unlock()
			if cancelledAt.IsZero() {
				t.Fatalf("the build ended (%v) before it was cancelled; progress:\n%s", err, progress)
			}
			t.Logf("Build returned %v after cancellation", returned.Sub(cancelledAt).Round(time.Millisecond))
			if !errors.Is(err, context.Canceled) || im != nil {
				t.Fatalf("Build = %v, %v; want an error wrapping context.Canceled", im, err)
			}
			if tt.cancelOn != "" && len(mounted) == 0 {
				t.Errorf("nothing was mounted under the tree when cancelled: the test did not exercise unmounting")
			}
			if _, err := Lookup(cache, tinyRecipe); !errors.Is(err, ErrNotBuilt) {
				t.Errorf("Lookup after cancelled build = %v, want ErrNotBuilt", err)
			}
			if list, _ := List(cache); len(list) != 0 {
				t.Errorf("List after cancelled build = %v", list)
			}
			if l := leftovers(t, cache); len(l) != 0 {
				t.Errorf("left behind: %v", l)
			}
			if m, err := mountsUnder(cache); err != nil || len(m) != 0 {
				t.Errorf("still mounted under the cache: %v %v", m, err)
			}
			if d := returned.Sub(cancelledAt); d > stopGrace+15*time.Second {
				t.Errorf("Build took %v to return after cancellation", d)
			}
		})
	}
}

func TestBuildSmallRecipe(t *testing.T) {
	if testing.Short() {
		t.Skip(slowSkip)
	}
	ctx := context.Background()
	cache := t.TempDir()
	tool := bootstrapTool()

	// First build: for real.
	rec := &recorder{}
	progress := &progressLog{}
	start := time.Now()
	im, err := (&Builder{Runner: rec, CacheDir: cache, Progress: progress}).Build(ctx, tinyRecipe, false)
	if err != nil {
		t.Fatalf("Build: %v\nprogress:\n%s", err, progress)
	}
	t.Logf("small build with %s took %v (%s)", tool, time.Since(start).Round(time.Second), units.Bytes(im.Manifest.SizeBytes))
	if !rec.ran(tool + " ") {
		t.Errorf("%s was not run; ran %q", tool, rec.calls)
	}
	if !strings.Contains(progress.String(), tool+": I: ") {
		t.Errorf("%s's output was not streamed to Progress:\n%s", tool, progress)
	}

	m := im.Manifest
	if m.RecipeHash != tinyRecipe.Hash() || m.Builder != tool || !reflect.DeepEqual(m.Recipe, tinyRecipe.canonical()) {
		t.Errorf("manifest identity: hash %s builder %s recipe %+v", m.RecipeHash, m.Builder, m.Recipe)
	}
	if !regexp.MustCompile(`^3\.\d+\.\d+$`).MatchString(m.Python) {
		t.Errorf("Python = %q, want a 3.x.y version", m.Python)
	}
	if v := m.DebianPackages["python3-minimal"]; !regexp.MustCompile(`^3\.\d+`).MatchString(v) {
		t.Errorf("DebianPackages[python3-minimal] = %q; manifest %+v", v, m)
	}
	if m.SizeBytes < 50<<20 || m.SizeBytes > 2<<30 {
		t.Errorf("SizeBytes = %d, implausible for a minbase tree with python3-minimal", m.SizeBytes)
	}
	if m.BuildSeconds <= 0 || time.Since(m.BuiltAt) > time.Hour {
		t.Errorf("BuildSeconds %v, BuiltAt %v", m.BuildSeconds, m.BuiltAt)
	}
	wantDir := filepath.Join(cache, "kernel", tinyRecipe.Hash()[:16])
	if im.Dir != wantDir || im.RootFS != filepath.Join(wantDir, "rootfs") {
		t.Errorf("image at %s / %s, want %s", im.Dir, im.RootFS, wantDir)
	}
	checkPostBuild(t, im.RootFS)
	checkDpkgFilter(t, im.RootFS)

	got, err := Lookup(cache, tinyRecipe)
	if err != nil || !reflect.DeepEqual(got.Manifest, m) {
		t.Errorf("Lookup after build = %+v, %v; want the built manifest", got, err)
	}
	if l := leftovers(t, cache); len(l) != 0 {
		t.Errorf("left behind: %v", l)
	}
	if mounts, _ := mountsUnder(cache); len(mounts) != 0 {
		t.Errorf("still mounted: %v", mounts)
	}

	// Second build: from the cache, running nothing.
	rec2 := &recorder{}
	progress2 := &progressLog{}
	start = time.Now()
	im2, err := (&Builder{Runner: rec2, CacheDir: cache, Progress: progress2}).Build(ctx, tinyRecipe, false)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cached Build took %v", d)
	}
	if rec2.count() != 0 {
		t.Errorf("cached Build ran %q", rec2.calls)
	}
	if !reflect.DeepEqual(im2, im) {
		t.Errorf("cached Build = %+v, want %+v", im2, im)
	}
	if want := "kernel image up to date: " + im.Dir; !strings.Contains(progress2.String(), want) {
		t.Errorf("progress %q lacks %q", progress2, want)
	}

	// Forced rebuild, with a second build started while it runs: that one
	// waits for the lock, then takes the new image from the cache.
	marker := filepath.Join(im.Dir, "old-image-marker")
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rec3 := &recorder{}
	started := make(chan struct{})
	var once sync.Once
	progress3 := &progressLog{onLine: func(line string) {
		if strings.HasPrefix(line, "bootstrapping ") {
			once.Do(func() { close(started) })
		}
	}}
	type result struct {
		im  *Image
		err error
	}
	forced := make(chan result, 1)
	go func() {
		im, err := (&Builder{Runner: rec3, CacheDir: cache, Progress: progress3}).Build(ctx, tinyRecipe, true)
		forced <- result{im, err}
	}()
	select {
	case <-started:
	case r := <-forced:
		t.Fatalf("forced build ended before bootstrapping: %v\n%s", r.err, progress3)
	}
	rec4 := &recorder{}
	progress4 := &progressLog{}
	waiter, werr := (&Builder{Runner: rec4, CacheDir: cache, Progress: progress4}).Build(ctx, tinyRecipe, false)
	r := <-forced
	if r.err != nil {
		t.Fatalf("forced Build: %v\n%s", r.err, progress3)
	}
	if !rec3.ran(tool + " ") {
		t.Errorf("forced Build did not run %s: %q", tool, rec3.calls)
	}
	if r.im.Dir != im.Dir || !r.im.Manifest.BuiltAt.After(m.BuiltAt) {
		t.Errorf("forced Build = %s built %v; want %s built after %v", r.im.Dir, r.im.Manifest.BuiltAt, im.Dir, m.BuiltAt)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old image was not replaced (marker: %v)", err)
	}
	checkPostBuild(t, r.im.RootFS)
	if got, err := Lookup(cache, tinyRecipe); err != nil || !reflect.DeepEqual(got.Manifest, r.im.Manifest) {
		t.Errorf("Lookup after forced build = %+v, %v", got, err)
	}
	if werr != nil || !reflect.DeepEqual(waiter, r.im) || rec4.count() != 0 {
		t.Errorf("concurrent Build = %+v, %v, ran %q; want the forced build's image, running nothing", waiter, werr, rec4.calls)
	}
	if !strings.Contains(progress4.String(), "waiting for another kernel image build") {
		t.Errorf("concurrent Build did not report waiting: %q", progress4)
	}
	if l := leftovers(t, cache); len(l) != 0 {
		t.Errorf("left behind: %v", l)
	}
}

// checkPostBuild asserts the post-build steps' results in a built tree.
func checkPostBuild(t *testing.T, rootfs string) {
	t.Helper()
	if target, err := os.Readlink(filepath.Join(rootfs, "etc/mtab")); err != nil || target != "../proc/self/mounts" {
		t.Errorf("etc/mtab -> %q, %v; want ../proc/self/mounts", target, err)
	}
	for _, f := range []string{"etc/resolv.conf", "etc/hostname"} {
		fi, err := os.Lstat(filepath.Join(rootfs, f))
		if err != nil || !fi.Mode().IsRegular() || fi.Size() != 0 {
			t.Errorf("%s: %v, %v; want an empty file", f, fi, err)
		}
	}
	for _, d := range append([]string{"dev", "proc", "sys", "tmp", FontCacheDir}, MountPoints...) {
		if fi, err := os.Lstat(filepath.Join(rootfs, d)); err != nil || !fi.IsDir() {
			t.Errorf("%s: %v; want a folder", d, err)
		}
	}
	if fi, err := os.Stat(filepath.Join(rootfs, "tmp")); err == nil && fi.Mode()&os.ModeSticky == 0 {
		t.Errorf("tmp mode %v, want sticky", fi.Mode())
	}
	for _, pattern := range []string{"var/cache/apt/archives/*.deb", "var/cache/apt/*.bin", "var/lib/apt/lists/*Packages*"} {
		if m, _ := filepath.Glob(filepath.Join(rootfs, pattern)); len(m) != 0 {
			t.Errorf("apt files left: %v", m)
		}
	}
}

// TestDefaultImage checks the image analyst actually uses, built beforehand
// by `analyst kernel build` into the default cache (ANALYST_CACHE_DIR in CI):
// every distribution the model is told about has a version, and the
// post-build steps, font cache included, are in place.
func TestDefaultImage(t *testing.T) {
	cache := os.Getenv("ANALYST_CACHE_DIR") // as kerneltest.CacheDir, which imports this package
	if cache == "" {
		var err error
		if cache, err = DefaultCacheDir(); err != nil {
			t.Fatal(err)
		}
	}
	im, err := Lookup(cache, DefaultRecipe())
	if errors.Is(err, ErrNotBuilt) && testing.Short() {
		t.Skipf("the default image is not built in %s (build it with: analyst kernel build)", cache)
	}
	if err != nil {
		t.Fatalf("the default image must be built before the tests: %v", err)
	}
	m := im.Manifest
	for _, name := range PythonDistributions {
		if m.Packages[name] == "" {
			t.Errorf("no version for Python distribution %s; have %v", name, m.Packages)
		}
	}
	for _, name := range DefaultRecipe().Packages {
		if m.DebianPackages[name] == "" {
			t.Errorf("no version for Debian package %s", name)
		}
	}
	checkPostBuild(t, im.RootFS)
	if found, _ := filepath.Glob(filepath.Join(im.RootFS, FontCacheDir, "fontlist-*.json")); len(found) == 0 {
		t.Errorf("no matplotlib font cache in %s", filepath.Join(im.RootFS, FontCacheDir))
	}
	// debootstrap leaves its folder behind when it fails half-way.
	if _, err := os.Stat(filepath.Join(im.RootFS, "debootstrap")); err == nil {
		t.Errorf("%s/debootstrap exists: the bootstrap did not finish", im.RootFS)
	}
	f, err := os.Open(filepath.Join(im.RootFS, "var/lib/dpkg/status"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	pkg := ""
	for sc.Scan() {
		if p, ok := strings.CutPrefix(sc.Text(), "Package: "); ok {
			pkg = p
		}
		if s, ok := strings.CutPrefix(sc.Text(), "Status: "); ok && !strings.HasSuffix(s, " installed") {
			t.Errorf("package %s is %q, not configured", pkg, s)
		}
	}
}

// TestBuildAfterKilledBuild: a build process killed outright (no chance to
// clean up) leaves its bootstrap tool running and its tree, perhaps with
// proc and sys mounted. The next build must wait for the orphans to end,
// then remove the tree, and unmount what is left, before going on.
func TestBuildAfterKilledBuild(t *testing.T) {
	if testing.Short() {
		t.Skip(slowSkip)
	}
	cache := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childBuildEnv+"="+cache)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it deep in the bootstrap: for debootstrap, once proc and sys
	// are mounted in the tree.
	killOn := "mmdebstrap: I: installing"
	if os.Geteuid() == 0 {
		killOn = "Installing core packages"
	}
	sc := bufio.NewScanner(out)
	var seen []string
	for sc.Scan() {
		seen = append(seen, sc.Text())
		if strings.Contains(sc.Text(), killOn) {
			break
		}
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	if !strings.Contains(strings.Join(seen, "\n"), killOn) {
		t.Fatalf("the child build ended before %q:\n%s", killOn, strings.Join(seen, "\n"))
	}
	builds, _ := filepath.Glob(filepath.Join(cache, "kernel", ".build-*"))
	mounted, _ := mountsUnder(cache)
	t.Logf("after the kill: build trees %v, mounts %v", builds, mounted)
	if len(builds) == 0 {
		t.Fatal("the killed build left no tree: nothing to test")
	}

	// The next build (of another recipe, already in the cache, so that no
	// second bootstrap is needed) must clean up first.
	other := tinyRecipe
	other.Packages = []string{"python3"}
	placeImage(t, cache, other, time.Now())
	rec := &recorder{}
	progress := &progressLog{}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	im, err := (&Builder{Runner: rec, CacheDir: cache, Progress: progress}).Build(ctx, other, false)
	t.Logf("next build returned after %v:\n%s", time.Since(start).Round(time.Millisecond), progress)
	if err != nil {
		t.Fatal(err)
	}
	if !im.Matches(other) || rec.count() != 0 {
		t.Errorf("next Build = %s, ran %q; want the cached image, running nothing", im.Dir, rec.calls)
	}
	if !strings.Contains(progress.String(), "removing leftover") {
		t.Error("the leftover tree was not reported")
	}
	if l := leftovers(t, cache); len(l) != 0 {
		t.Errorf("left behind: %v", l)
	}
	if m, _ := mountsUnder(cache); len(m) != 0 {
		t.Errorf("still mounted: %v", m)
	}
	if _, err := Lookup(cache, tinyRecipe); !errors.Is(err, ErrNotBuilt) {
		t.Errorf("Lookup of the killed build's recipe = %v, want ErrNotBuilt", err)
	}
}

// checkDpkgFilter: python3-minimal, installed with the recipe's dpkg
// filter, kept its copyright and nothing else of its documentation.
func checkDpkgFilter(t *testing.T, rootfs string) {
	t.Helper()
	dir := filepath.Join(rootfs, "usr/share/doc/python3-minimal")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("dpkg filter: %v", err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !reflect.DeepEqual(names, []string{"copyright"}) {
		t.Errorf("dpkg filter: %s holds %v, want only copyright", dir, names)
	}
}
