package image

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// FontCacheDir is where, inside the image, matplotlib's font cache is
// pre-built: the root filesystem is read-only at run time and building the
// cache at first import takes seconds, so the kernel driver copies this
// folder into its writable MPLCONFIGDIR instead.
const FontCacheDir = "/usr/local/share/analyst/matplotlib"

// MountPoints are the folders podman mounts over at run time. runc cannot
// create them in a read-only or foreign-owned root filesystem, so the
// image carries them.
var MountPoints = []string{"/opt/analyst", "/data", "/output"}

// PythonDistributions are the Python distributions whose versions the
// manifest records (and the model is told).
var PythonDistributions = []string{
	"pandas", "numpy", "scipy", "matplotlib", "seaborn", "plotly", "statsmodels",
	"scikit-learn", "openpyxl", "ipython", "ipykernel", "nbformat", "nbconvert",
}

// pythonStepTimeout bounds one Python run inside the new tree (the font
// cache takes a few seconds).
const pythonStepTimeout = 5 * time.Minute

// postBuild turns a fresh Debian tree into a kernel image. Every change
// here must bump postBuildVersion.
func (b *Builder) postBuild(ctx context.Context, rootfs string) error {
	w := b.progress()
	fmt.Fprintln(w, "post-build: mount points, /etc/mtab, empty resolv.conf and hostname")
	for _, d := range []struct {
		path string
		mode fs.FileMode
	}{
		{"/dev", 0o755}, {"/proc", 0o555}, {"/sys", 0o555}, {"/run", 0o755},
		{"/tmp", fs.ModeSticky | 0o777}, {"/opt/analyst", 0o755}, {"/data", 0o755}, {"/output", 0o755},
		{FontCacheDir, 0o755},
	} {
		if err := mkdirIn(rootfs, d.path, d.mode); err != nil {
			return err
		}
	}
	// Mount points hold nothing of their own: whatever is there would show
	// in every kernel (a run's file names, say).
	for _, mp := range MountPoints {
		if err := emptyDir(filepath.Join(rootfs, mp)); err != nil {
			return err
		}
	}
	// Remove before writing: a symlink here may point outside the tree.
	if err := replace(rootfs, "/etc/mtab", func(p string) error { return os.Symlink("../proc/self/mounts", p) }); err != nil {
		return err
	}
	for _, name := range []string{"/etc/resolv.conf", "/etc/hostname"} {
		if err := replace(rootfs, name, func(p string) error {
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				return err
			}
			return f.Close()
		}); err != nil {
			return err
		}
	}

	fmt.Fprintln(w, "post-build: removing apt's package lists and downloaded packages")
	if err := aptClean(rootfs); err != nil {
		return fmt.Errorf("cleaning apt files: %w", err)
	}

	fmt.Fprintf(w, "post-build: building matplotlib's font cache in %s\n", FontCacheDir)
	out, err := b.runPython(ctx, rootfs, fontCacheScript)
	if err != nil {
		return fmt.Errorf("building the font cache: %w", err)
	}
	if strings.TrimSpace(string(out)) == "absent" {
		fmt.Fprintln(w, "post-build: matplotlib is not in the recipe; no font cache")
		return nil
	}
	cache := filepath.Join(rootfs, FontCacheDir)
	found, _ := filepath.Glob(filepath.Join(cache, "fontlist-*.json"))
	if len(found) == 0 {
		return fmt.Errorf("building the font cache: no fontlist-*.json in %s", cache)
	}
	// The container user is not root: it must be able to read the cache.
	return filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o644)
		if d.IsDir() {
			mode = 0o755
		}
		return os.Chmod(p, mode)
	})
}

const fontCacheScript = `
import importlib.util, sys
if importlib.util.find_spec("matplotlib") is None:
    print("absent")
    sys.exit(0)
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot
print("built")
`

// versionScript prints "python<TAB>X.Y.Z", then "package<TAB>NAME<TAB>VERSION"
// per installed distribution. It avoids json: python3-minimal lacks it, and
// importlib.metadata too.
const versionScript = `
import sys
print("python\t%d.%d.%d" % sys.version_info[:3])
try:
    import importlib.metadata as md
except ImportError:
    md = None
if md is not None:
    for name in sys.argv[1:]:
        try:
            print("package\t%s\t%s" % (name, md.version(name)))
        except md.PackageNotFoundError:
            pass
`

// pythonVersions runs Python in the tree to read its version and those of
// PythonDistributions.
func (b *Builder) pythonVersions(ctx context.Context, rootfs string) (string, map[string]string, error) {
	out, err := b.runPython(ctx, rootfs, versionScript, PythonDistributions...)
	if err != nil {
		return "", nil, err
	}
	return parseVersions(string(out))
}

func parseVersions(out string) (string, map[string]string, error) {
	python := ""
	pkgs := map[string]string{}
	for line := range strings.Lines(out) {
		f := strings.Split(strings.TrimRight(line, "\r\n"), "\t")
		switch {
		case len(f) == 2 && f[0] == "python":
			python = f[1]
		case len(f) == 3 && f[0] == "package":
			pkgs[f[1]] = f[2]
		}
	}
	if python == "" {
		return "", nil, fmt.Errorf("no Python version in output %q", out)
	}
	return python, pkgs, nil
}

// runPython runs python3 -c script in the tree with MPLCONFIGDIR at
// FontCacheDir: through chroot as root, else through rootless podman (a
// user cannot chroot, and the tree is the user's own, so the container's
// root may write it).
func (b *Builder) runPython(ctx context.Context, rootfs, script string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, pythonStepTimeout)
	defer cancel()
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/root", "MPLCONFIGDIR=" + FontCacheDir}
	if os.Geteuid() == 0 {
		chroot, err := findTool("chroot")
		if err != nil {
			return nil, err
		}
		cmd := append([]string{rootfs, "/usr/bin/env", "-i"}, env...)
		cmd = append(cmd, "python3", "-c", script)
		return b.runner().Run(ctx, chroot, append(cmd, args...)...)
	}
	var cmd []string
	if b.Runtime != "" {
		cmd = append(cmd, "--runtime", b.Runtime)
	}
	cmd = append(cmd, "run", "--rm", "--network=none", "--no-hosts", "--log-driver=none")
	for _, kv := range env {
		cmd = append(cmd, "--env", kv)
	}
	cmd = append(cmd, "--rootfs", rootfs, "python3", "-c", script)
	return b.runner().Run(ctx, "podman", append(cmd, args...)...)
}

// mkdirIn creates path (absolute inside rootfs) with mode, refusing to
// follow a symlink out of the tree.
func mkdirIn(rootfs, path string, mode fs.FileMode) error {
	p := filepath.Join(rootfs, path)
	fi, err := os.Lstat(p)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil:
		return fmt.Errorf("%s exists and is not a folder", p)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if err := mkdirIn(rootfs, filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.Mkdir(p, mode); err != nil {
		return err
	}
	// Mkdir honours the umask and drops the sticky bit; set them exactly.
	return os.Chmod(p, mode)
}

// replace removes path (absolute inside rootfs) if present, without
// following it, and lets create make the new one.
func replace(rootfs, path string, create func(string) error) error {
	p := filepath.Join(rootfs, path)
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := create(p); err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	return nil
}

// aptClean does what apt-get clean does, plus removing the package lists:
// an image never runs apt again, and these are some 100 MB.
func aptClean(rootfs string) error {
	var doomed []string
	for _, pattern := range []string{
		"var/cache/apt/archives/*.deb",
		"var/cache/apt/archives/partial/*",
		"var/cache/apt/*.bin",
		"var/lib/apt/lists/*",
	} {
		m, err := filepath.Glob(filepath.Join(rootfs, pattern))
		if err != nil {
			return err
		}
		doomed = append(doomed, m...)
	}
	for _, p := range doomed {
		// apt wants these to exist should anyone run it.
		if b := filepath.Base(p); b == "partial" || b == "lock" {
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	}
	return nil
}

// debianVersions reads dpkg's status file for the installed version of
// each of names; a name not installed is an error, since the tool that
// built the tree was asked to install it.
func debianVersions(rootfs string, names []string) (map[string]string, error) {
	f, err := os.Open(filepath.Join(rootfs, "var/lib/dpkg/status"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	installed, err := parseDpkgStatus(f)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	var missing []string
	for _, n := range names {
		v, ok := installed[n]
		if !ok {
			missing = append(missing, n)
			continue
		}
		out[n] = v
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("not installed: %s", strings.Join(missing, ", "))
	}
	return out, nil
}

// parseDpkgStatus returns package -> version for the packages dpkg's status
// file says are installed.
func parseDpkgStatus(r io.Reader) (map[string]string, error) {
	out := map[string]string{}
	var pkg, version, status string
	end := func() {
		if pkg != "" && strings.HasSuffix(status, " installed") {
			out[pkg] = version
		}
		pkg, version, status = "", "", ""
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			end()
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, " ") {
			continue // continuation of a multi-line field
		}
		value = strings.TrimSpace(value)
		switch key {
		case "Package":
			pkg = value
		case "Version":
			version = value
		case "Status":
			status = value
		}
	}
	end()
	return out, sc.Err()
}

// diskUsage is what the tree takes on disk, like du: allocated blocks, each
// hard-linked file counted once.
func diskUsage(root string) (int64, error) {
	type inode struct{ dev, ino uint64 }
	seen := map[inode]bool{}
	var total int64
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			total += fi.Size()
			return nil
		}
		if st.Nlink > 1 && !d.IsDir() {
			k := inode{uint64(st.Dev), st.Ino}
			if seen[k] {
				return nil
			}
			seen[k] = true
		}
		total += st.Blocks * 512
		return nil
	})
	return total, err
}

// emptyDir removes everything inside dir, not dir itself.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
