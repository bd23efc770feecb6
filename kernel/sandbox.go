package kernel

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/internal/owner"
	"github.com/analyst-cli/analyst/kernel/seccomp"
)

// driverFS is the driver the kernel runs; its tests (driver/test_*.py) are
// not embedded: charts_test.go reads them from the source tree.
//
//go:embed driver/analyst_driver.py driver/analyst_charts.py driver/analyst_fork.py
var driverFS embed.FS

// Paths inside the container.
const (
	DataMount   = "/data"
	OutputMount = "/output"
	driverMount = "/opt/analyst"
	driverPath  = driverMount + "/analyst_driver.py"
	hostname    = "analyst-kernel"
)

// DriverHash identifies the embedded driver: it is in `analyst version` and
// in run manifests, so a run names the exact driver that produced it.
func DriverHash() string {
	h := sha256.New()
	names := driverFiles()
	for _, n := range names {
		b, _ := driverFS.ReadFile(n)
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func driverFiles() []string {
	var names []string
	_ = fs.WalkDir(driverFS, "driver", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return nil
	})
	sort.Strings(names)
	return names
}

// Environment is the complete environment of the kernel: nothing from the
// host's environment reaches it.
func (k *Kernel) environment() []string {
	threads := strconv.Itoa(int(max(1, min(k.limits.CPUs, float64(runtime.NumCPU())))))
	return []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=/tmp",
		"LANG=C.UTF-8",
		"MPLCONFIGDIR=/tmp/matplotlib",
		"PYTHONDONTWRITEBYTECODE=1",
		"PYTHONHASHSEED=0",
		// No user site: a usercustomize.py or .pth that one forked session
		// writes under HOME must not run in a later session's Python.
		"PYTHONNOUSERSITE=1",
		"PYTHONUNBUFFERED=1",
		"OPENBLAS_NUM_THREADS=" + threads,
		"OMP_NUM_THREADS=" + threads,
		"MKL_NUM_THREADS=" + threads,
	}
}

// EnvironmentKeys are the names of the only variables a kernel has: ours,
// HOSTNAME, which podman sets even with --unsetenv-all, and TMPDIR, which a
// forked session sets to its own folder.
func EnvironmentKeys() []string {
	k := &Kernel{limits: DefaultLimits()}
	keys := []string{"HOSTNAME", "TMPDIR"}
	for _, kv := range k.environment() {
		keys = append(keys, strings.SplitN(kv, "=", 2)[0])
	}
	return keys
}

// prepareMounts writes the driver and an empty resolv.conf to a private
// folder, and stages the data there under a neutral name (stage.go), so no
// path of the host shows in the container's mount table.
func (k *Kernel) prepareMounts() error {
	dir, err := os.MkdirTemp("", namePrefix)
	if err != nil {
		return fmt.Errorf("starting kernel: %w", err)
	}
	k.tmpDir = dir
	// So PruneFolders can tell this folder from a killed kernel's.
	if err := owner.WriteFile(dir); err != nil {
		return fmt.Errorf("starting kernel: %w", err)
	}
	drv := filepath.Join(dir, "driver")
	if err := os.Mkdir(drv, 0o755); err != nil {
		return fmt.Errorf("starting kernel: %w", err)
	}
	for _, name := range driverFiles() {
		b, err := driverFS.ReadFile(name)
		if err != nil {
			return fmt.Errorf("starting kernel: reading embedded driver: %w", err)
		}
		if err := os.WriteFile(filepath.Join(drv, filepath.Base(name)), b, 0o444); err != nil {
			return fmt.Errorf("starting kernel: writing driver: %w", err)
		}
	}
	// The host's resolver address is nobody's business inside the sandbox.
	if err := os.WriteFile(filepath.Join(dir, "resolv.conf"), nil, 0o444); err != nil {
		return fmt.Errorf("starting kernel: %w", err)
	}
	// Podman's default seccomp profile plus our denials (no namespaces,
	// mounts, keyring, bpf, perf, ptrace; local and IP sockets only): see
	// package seccomp.
	if err := os.WriteFile(filepath.Join(dir, "seccomp.json"), seccomp.Profile(), 0o444); err != nil {
		return fmt.Errorf("starting kernel: %w", err)
	}
	if err := k.writeIdentityFiles(dir); err != nil {
		return fmt.Errorf("starting kernel: %w", err)
	}
	// dir stays 0700 (os.MkdirTemp's mode): it holds links to the data,
	// and no other local user may reach them. The container sees only the
	// folders mounted from inside it, whose own modes let its user read;
	// rootless podman runs as the caller, dir's owner.
	var data *staged
	switch {
	case k.opts.Data != "" && len(k.opts.DataFiles) > 0:
		return fmt.Errorf("starting kernel: give Data or DataFiles, not both")
	case k.opts.Data != "":
		data, err = stageData(k.opts.Data, filepath.Join(dir, "data"), k.opts.DataID)
	case len(k.opts.DataFiles) > 0:
		data, err = stageFiles(k.opts.DataFiles, filepath.Join(dir, "data"))
	}
	if err != nil {
		return fmt.Errorf("starting kernel: data: %w", err)
	}
	k.stagedData = data
	return nil
}

// identityFiles are the container's files about itself. Podman would write
// them into its own storage and bind-mount them from there, which shows
// the storage's host path in the container's mount table; ours come from
// the kernel's private folder instead.
var identityFiles = []string{"passwd", "group", "hostname"}

// writeIdentityFiles writes /etc/passwd and /etc/group (the image's, plus
// the sandbox user) and /etc/hostname to dir.
func (k *Kernel) writeIdentityFiles(dir string) error {
	uid, gid := sandboxUID, sandboxUID
	if k.opts.Rootless {
		uid, gid = os.Getuid(), os.Getgid() // --userns=keep-id
	}
	content := map[string]string{
		"passwd":   fmt.Sprintf("analyst:x:%d:%d:analyst kernel:/tmp:/bin/sh\n", uid, gid),
		"group":    fmt.Sprintf("analyst:x:%d:\n", gid),
		"hostname": hostname + "\n",
	}
	for _, name := range identityFiles {
		text := content[name]
		if name != "hostname" {
			b, err := os.ReadFile(filepath.Join(k.opts.RootFS, "etc", name))
			if err != nil {
				return fmt.Errorf("reading the image's /etc/%s: %w", name, err)
			}
			text = string(b) + text
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o444); err != nil {
			return err
		}
	}
	return nil
}

func (k *Kernel) cleanupFiles() {
	if k.tmpDir != "" {
		_ = os.RemoveAll(k.tmpDir)
	}
}

// rlimits are the limits the driver sets itself: always the open-files cap,
// and memory and process caps where cgroups do not enforce them.
func (k *Kernel) rlimits() map[string]int64 {
	r := map[string]int64{"nofile": int64(k.limits.NoFile)}
	if !k.opts.CgroupLimits {
		r["as"] = k.limits.MemoryBytes
		r["nproc"] = int64(k.limits.Pids)
	}
	return r
}

// mountArgs mount the data and the extra mounts read-only, and the
// output tmpfs.
func (k *Kernel) mountArgs() ([]string, error) {
	var args []string
	if s := k.stagedData; s != nil {
		target := DataMount
		if !s.dir {
			target = DataMount + "/" + filepath.Base(s.path)
			args = append(args, "--tmpfs", DataMount+":rw,nosuid,nodev,noexec,size=64k,mode=0755")
		}
		if strings.ContainsAny(s.path, ",:") {
			return nil, fmt.Errorf("starting kernel: data name %q contains ',' or ':', which podman cannot mount; copy or link it to a plain name", filepath.Base(s.path))
		}
		args = append(args, "--volume", s.path+":"+target+":ro")
	}
	for _, m := range k.opts.Mounts {
		abs, err := filepath.Abs(m.Source)
		if err != nil {
			return nil, fmt.Errorf("starting kernel: mount: %w", err)
		}
		if strings.ContainsAny(abs+m.Target, ",:") {
			return nil, fmt.Errorf("starting kernel: mount %q contains ',' or ':', which podman cannot mount", abs)
		}
		args = append(args, "--volume", abs+":"+m.Target+":ro")
	}
	if k.opts.OutputDir != "" {
		// A tmpfs, not the host folder: the kernel copies its files out
		// after each cell (output.go), so the cap holds for the host too.
		// U: owned by the sandbox user (runc keeps the image folder's mode,
		// 0755, whatever mode= says).
		args = append(args, tmpfsMount(OutputMount, k.limits.OutputBytes, "noexec,notmpcopyup,U=true")...)
	}
	return args, nil
}

// shmBytes is the size of /dev/shm: podman's own default.
const shmBytes = 64 << 20

// bytesPerFile is how much of a writable tmpfs's size each file or folder
// on it stands for: its cap on their number is its size over this. An
// empty one pins about half a KiB of host kernel memory (3.1 million
// folders took 1.7 GB), so a full count costs an eighth of the size cap
// at most, and 256 MiB still holds 65,536 of them.
const bytesPerFile = 4 << 10

// tmpfsMount mounts a tmpfs of size bytes at dst that holds at most
// size/bytesPerFile files and folders, with opts (podman's --mount
// options) besides nosuid and nodev. Podman 4.3 refuses nr_inodes in
// --tmpfs and in --mount, but passes tmpfs-size's value to the mount as it
// is; --mount reads its value as CSV, so a quoted field carries the
// inode cap within it. TestResourceTmpFilesCapped reads the cap back from
// the container's mount table, so a podman that drops it fails there.
func tmpfsMount(dst string, size int64, opts string) []string {
	return []string{"--mount", fmt.Sprintf(`type=tmpfs,destination=%s,"tmpfs-size=%d,nr_inodes=%d",nosuid,nodev,%s`, dst, size, tmpfsFiles(size), opts)}
}

// tmpfsFiles is how many files and folders a writable tmpfs of size bytes holds.
func tmpfsFiles(size int64) int64 {
	return max(size/bytesPerFile, 1024)
}

// podmanArgs is the whole podman command line after "podman" for the driver.
func (k *Kernel) podmanArgs() ([]string, error) {
	return k.sandboxArgs(false, "python3", "-X", "utf8", driverPath)
}

// sandboxArgs is a podman command line that runs entry in the sandbox.
func (k *Kernel) sandboxArgs(tty bool, entry ...string) ([]string, error) {
	l := k.limits
	var args []string
	if k.opts.Runtime != "" {
		args = append(args, "--runtime", k.opts.Runtime)
	}
	args = append(args, "run", "--interactive")
	if tty {
		args = append(args, "--tty")
	}
	args = append(args,
		"--name", k.name,
		"--hostname", hostname,
		"--label", LabelKernel+"=1",
	)
	args = append(args, ownerLabels()...)
	args = append(args,
		"--network=none",
		"--no-hosts",
		"--http-proxy=false",
		"--cap-drop=all",
		"--security-opt=no-new-privileges",
		"--security-opt", "seccomp="+k.tmpDir+"/seccomp.json",
		// On top of podman's masked paths: the host's boot line.
		"--security-opt", "mask=/proc/cmdline",
		"--read-only",
		"--read-only-tmpfs=false",
	)
	// The places the sandbox user may write are capped in files too: each
	// empty file or folder holds host kernel memory that no size cap counts
	// (and, rootless on cgroup v1, no memory limit either).
	args = append(args, tmpfsMount("/tmp", l.TmpBytes, "notmpcopyup,tmpfs-mode=1777")...)
	args = append(args, tmpfsMount("/dev/shm", shmBytes, "noexec,notmpcopyup,tmpfs-mode=1777")...)
	args = append(args,
		// runc creates the mount points of files (podman's /run/.containerenv,
		// a data file at /data/NAME) in the root filesystem; small tmpfs
		// folders keep those out of the cached image.
		"--tmpfs", "/run:rw,nosuid,nodev,noexec,size=1m,mode=0755",
		"--log-driver=none",
		"--unsetenv-all",
		"--ulimit", fmt.Sprintf("nofile=%d:%d", l.NoFile, l.NoFile),
		// Rootful podman's default nproc rlimit fails to apply here; the pids
		// limit (or the driver's rlimit) is what bounds processes.
		"--ulimit", fmt.Sprintf("nproc=%d:%d", 4*l.Pids, 4*l.Pids),
		"--workdir", "/tmp",
		"--volume", k.tmpDir+"/driver:"+driverMount+":ro",
		"--volume", k.tmpDir+"/resolv.conf:/etc/resolv.conf:ro",
	)
	for _, name := range identityFiles {
		args = append(args, "--volume", k.tmpDir+"/"+name+":/etc/"+name+":ro")
	}
	if k.opts.CgroupLimits {
		args = append(args,
			"--memory", strconv.FormatInt(l.MemoryBytes, 10),
			"--memory-swap", strconv.FormatInt(l.MemoryBytes, 10),
			"--pids-limit", strconv.Itoa(l.Pids),
			"--cpus", strconv.FormatFloat(l.CPUs, 'f', -1, 64),
		)
	}
	if k.opts.Rootless {
		args = append(args, "--userns=keep-id")
	} else {
		args = append(args, "--user", fmt.Sprintf("%d:%d", sandboxUID, sandboxUID))
	}
	for _, kv := range k.environment() {
		args = append(args, "--env", kv)
	}
	mounts, err := k.mountArgs()
	if err != nil {
		return nil, err
	}
	args = append(args, mounts...)
	args = append(args, "--rootfs", k.opts.RootFS)
	return append(args, entry...), nil
}
