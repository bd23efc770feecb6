package image

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/analyst-cli/analyst/internal/command"
	"github.com/analyst-cli/analyst/internal/units"
)

// DefaultBootstrapTimeout bounds debootstrap or mmdebstrap; a full build
// takes about three minutes on a good connection.
const DefaultBootstrapTimeout = 45 * time.Minute

// Builder builds kernel images into a cache folder.
type Builder struct {
	// Runner runs every external program; nil means command.Exec{}.
	Runner command.Runner
	// CacheDir holds the images, in CacheDir/kernel/<hash16>.
	CacheDir string
	// Progress receives one line per step and the bootstrap tool's output;
	// nil discards it.
	Progress io.Writer
	// Runtime is the OCI runtime podman uses for the steps that run Python
	// in the new tree when not root (see kernel/host); empty means
	// podman's default.
	Runtime string
	// BootstrapTimeout bounds the bootstrap tool; zero means
	// DefaultBootstrapTimeout.
	BootstrapTimeout time.Duration
}

func (b *Builder) runner() command.Runner {
	if b.Runner == nil {
		return command.Exec{}
	}
	return b.Runner
}

func (b *Builder) progress() io.Writer {
	if b.Progress == nil {
		return io.Discard
	}
	return b.Progress
}

// Build returns the image for r, building it first unless the cache holds
// it already; force rebuilds regardless. Builds of one cache folder are
// serialized by a lock. A build that fails or is cancelled removes its tree
// and leaves the cache as it was.
func (b *Builder) Build(ctx context.Context, r Recipe, force bool) (*Image, error) {
	im, err := b.build(ctx, r, force)
	if err != nil {
		return nil, fmt.Errorf("building kernel image: %w", err)
	}
	return im, nil
}

func (b *Builder) build(ctx context.Context, r Recipe, force bool) (_ *Image, err error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	if b.CacheDir == "" {
		return nil, errors.New("no cache folder given")
	}
	w := b.progress()
	kdir := kernelDir(b.CacheDir)
	if err := os.MkdirAll(kdir, 0o755); err != nil {
		return nil, err
	}
	lock, err := lockCache(ctx, kdir, w)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	if err := removeStale(kdir, w); err != nil {
		return nil, fmt.Errorf("removing a leftover build: %w", err)
	}
	if !force {
		if im, err := Lookup(b.CacheDir, r); err == nil {
			fmt.Fprintf(w, "kernel image up to date: %s\n", im.Dir)
			return im, nil
		}
	}

	hash := r.Hash()
	tmp, err := os.MkdirTemp(kdir, ".build-"+ShortHash(hash)+"-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			if rerr := removeTree(tmp); rerr != nil {
				err = errors.Join(err, fmt.Errorf("cleaning up: %w", rerr))
			}
		}
	}()
	// Readable by others, like any system tree; the rootfs itself carries
	// Debian's own permissions.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	m, err := b.buildInto(ctx, r, tmp, lock)
	if err != nil {
		return nil, err
	}
	// A cancelled build must not be installed, even if its last step won
	// the race with the cancellation.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := writeManifest(tmp, m); err != nil {
		return nil, fmt.Errorf("writing manifest: %w", err)
	}
	final := filepath.Join(kdir, ShortHash(hash))
	if err := install(tmp, final, w); err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "kernel image ready: %s (%s, %s, %.0fs)\n", final, units.Bytes(m.SizeBytes), m.Builder, m.BuildSeconds)
	return &Image{Dir: final, RootFS: filepath.Join(final, "rootfs"), Manifest: *m}, nil
}

// buildInto builds the image of r in the folder tmp: the Debian tree in
// tmp/rootfs, the post-build steps, and the manifest of what it holds.
func (b *Builder) buildInto(ctx context.Context, r Recipe, tmp string, lock *os.File) (*Manifest, error) {
	rootfs := filepath.Join(tmp, "rootfs")
	start := time.Now()
	tool, err := b.bootstrap(ctx, r, tmp, rootfs, lock)
	if err != nil {
		return nil, err
	}
	if err := b.postBuild(ctx, rootfs); err != nil {
		return nil, fmt.Errorf("finishing %s: %w", rootfs, err)
	}
	m := &Manifest{RecipeHash: r.Hash(), Recipe: r.canonical(), Builder: tool}
	if m.Python, m.Packages, err = b.pythonVersions(ctx, rootfs); err != nil {
		return nil, fmt.Errorf("reading Python versions: %w", err)
	}
	if m.DebianPackages, err = debianVersions(rootfs, r.Packages); err != nil {
		return nil, fmt.Errorf("reading Debian package versions: %w", err)
	}
	if m.SizeBytes, err = diskUsage(rootfs); err != nil {
		return nil, fmt.Errorf("measuring %s: %w", rootfs, err)
	}
	m.BuiltAt = time.Now().UTC().Truncate(time.Second)
	m.BuildSeconds = time.Since(start).Round(time.Millisecond).Seconds()
	return m, nil
}

// bootstrap creates the Debian tree at rootfs and names the tool it used.
//
// As root: debootstrap makes the base system in place, then apt-get, in the
// tree, installs the recipe's packages. debootstrap alone cannot: it does
// not resolve virtual packages, and bookworm's python3-zmq (pulled in by
// ipykernel) depends on one (python3-cffi-backend-api-min), so
// "debootstrap --include=..." leaves part of the stack unconfigured.
//
// Otherwise: mmdebstrap in a user namespace, which resolves with apt but
// can only hand the tree out as a tarball, unpacked then as the user.
//
// The tools inherit lock: should this process die, the tools it leaves
// behind keep the build lock until they end, so the next build does not
// remove a tree they are still writing.
func (b *Builder) bootstrap(ctx context.Context, r Recipe, tmp, rootfs string, lock *os.File) (string, error) {
	timeout := b.BootstrapTimeout
	if timeout == 0 {
		timeout = DefaultBootstrapTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if os.Geteuid() == 0 {
		return "debootstrap", b.debootstrap(ctx, r, tmp, rootfs, lock)
	}
	return "mmdebstrap", b.mmdebstrap(ctx, r, tmp, rootfs, lock)
}

func (b *Builder) debootstrap(ctx context.Context, r Recipe, tmp, rootfs string, lock *os.File) error {
	w := b.progress()
	tool, err := findTool("debootstrap")
	if err != nil {
		return err
	}
	chroot, err := findTool("chroot")
	if err != nil {
		return err
	}
	run := func(prefix, name string, args ...string) error {
		return runStreaming(ctx, b.runner(), w, streamOpts{prefix: prefix, env: toolEnv(), hold: lock}, name, args...)
	}
	fmt.Fprintf(w, "bootstrapping %s (%s) with debootstrap into %s\n", r.Suite, r.Variant, rootfs)
	if err := run("debootstrap: ", tool, "--variant="+r.Variant, r.Suite, rootfs, r.Mirror); err != nil {
		// The tree, and the log in it, is about to go: keep the log, unless
		// the build was stopped on purpose.
		if !errors.Is(ctx.Err(), context.Canceled) {
			log := filepath.Join(rootfs, "debootstrap", "debootstrap.log")
			if kept, kerr := keepLog(log, filepath.Dir(tmp), "debootstrap-"+r.ID()+".log"); kerr == nil {
				err = fmt.Errorf("%w\n(debootstrap's log: %s)", err, kept)
			}
		}
		return err
	}
	if len(r.Packages) == 0 {
		return nil
	}
	// dpkg reads its filters from the tree: they apply to every package
	// apt-get installs now (the base system's few files stay).
	if err := writeDpkgFilter(rootfs, r.DpkgFilter); err != nil {
		return err
	}
	fmt.Fprintf(w, "installing %d packages with apt-get in %s\n", len(r.Packages), rootfs)
	if err := run("apt-get: ", chroot, rootfs, "apt-get", "update"); err != nil {
		return err
	}
	args := []string{rootfs, "apt-get", "install", "--yes", "--no-install-recommends"}
	return run("apt-get: ", chroot, append(args, r.canonical().Packages...)...)
}

func (b *Builder) mmdebstrap(ctx context.Context, r Recipe, tmp, rootfs string, lock *os.File) error {
	w := b.progress()
	tool, err := findTool("mmdebstrap")
	if err != nil {
		return err
	}
	tarball := filepath.Join(tmp, "rootfs.tar")
	fmt.Fprintf(w, "bootstrapping %s (%s, %d packages) with mmdebstrap --mode=unshare into %s\n", r.Suite, r.Variant, len(r.Packages), tarball)
	// Device nodes cannot be unpacked without root, and podman provides
	// /dev anyway.
	args := []string{"--mode=unshare", "--variant=" + r.Variant, "--skip=output/dev"}
	for _, f := range r.DpkgFilter {
		args = append(args, "--dpkgopt="+f)
	}
	if len(r.Packages) > 0 {
		args = append(args, "--include="+strings.Join(r.canonical().Packages, ","))
	}
	args = append(args, r.Suite, tarball, r.Mirror)
	if err := runStreaming(ctx, b.runner(), w, streamOpts{prefix: "mmdebstrap: ", env: toolEnv(), hold: lock}, tool, args...); err != nil {
		return err
	}
	if err := os.Mkdir(rootfs, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(w, "unpacking %s\n", tarball)
	// Keep modes (-p), not owners: as a user every file becomes the user's,
	// which rootless podman maps to root inside the container.
	if _, err := b.runner().Run(ctx, "tar", "--extract", "--file", tarball, "--directory", rootfs,
		"--preserve-permissions", "--no-same-owner"); err != nil {
		return fmt.Errorf("unpacking the root filesystem: %w", err)
	}
	return os.Remove(tarball)
}

// dpkgFilterFile holds the recipe's dpkg filters inside the tree, where
// they also keep applying should anyone install a package later.
const dpkgFilterFile = "/etc/dpkg/dpkg.cfg.d/analyst-filter"

// writeDpkgFilter writes filter, one option a line, to dpkgFilterFile.
func writeDpkgFilter(rootfs string, filter []string) error {
	if len(filter) == 0 {
		return nil
	}
	return replace(rootfs, dpkgFilterFile, func(p string) error {
		return os.WriteFile(p, []byte(strings.Join(filter, "\n")+"\n"), 0o644)
	})
}

// keepLog copies the file at src to dir/name, for a failed build whose
// tree is removed.
func keepLog(src, dir, name string) (string, error) {
	b, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	dst := filepath.Join(dir, name)
	return dst, os.WriteFile(dst, b, 0o644)
}

// install moves the finished build tmp to final. An image already there
// (a forced rebuild) is moved aside first and removed after: between the
// two renames Lookup finds no image, but never a partial one.
func install(tmp, final string, w io.Writer) error {
	if _, err := os.Lstat(final); err != nil {
		return os.Rename(tmp, final)
	}
	suffix := make([]byte, 4)
	rand.Read(suffix)
	old := filepath.Join(filepath.Dir(final), ".old-"+filepath.Base(final)+"-"+hex.EncodeToString(suffix))
	if err := os.Rename(final, old); err != nil {
		return fmt.Errorf("moving the old image aside: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		if rerr := os.Rename(old, final); rerr != nil {
			err = errors.Join(err, fmt.Errorf("restoring the old image: %w", rerr))
		}
		return fmt.Errorf("installing the new image: %w", err)
	}
	if err := removeTree(old); err != nil {
		// The new image is in place; the next build retries the removal.
		fmt.Fprintf(w, "warning: %v\n", err)
	}
	return nil
}

// findTool finds a system program also where a user's PATH does not look
// (debootstrap and chroot live in /usr/sbin).
func findTool(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/sbin", "/usr/bin", "/bin"} {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	pkg := name
	if name == "chroot" {
		pkg = "coreutils"
	}
	return "", fmt.Errorf("%s not found: install it with: apt-get install -y %s", name, pkg)
}

// toolEnv is the environment of the bootstrap tools: a fixed one, because
// what they run inside the tree (dpkg, maintainer scripts, py3compile)
// inherits it and ours may hold anything (PYTHONDONTWRITEBYTECODE would
// leave the image without compiled modules). Only the user's identity,
// TMPDIR and proxy settings come through.
func toolEnv() []string {
	env := []string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"LANG=C.UTF-8",
		"DEBIAN_FRONTEND=noninteractive",
	}
	for _, k := range []string{
		"HOME", "USER", "LOGNAME", "TMPDIR",
		"http_proxy", "https_proxy", "ftp_proxy", "no_proxy", "all_proxy",
		"HTTP_PROXY", "HTTPS_PROXY", "FTP_PROXY", "NO_PROXY", "ALL_PROXY",
	} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}
