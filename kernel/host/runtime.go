package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/analyst-cli/analyst/internal/command"
)

// cacheVersion changes when the probe's container or the cache format
// does, invalidating every cache file.
const cacheVersion = 2

// runtimeProbeTimeout bounds one trial container; a first rootless start
// sets up podman's storage and can take a few seconds.
const runtimeProbeTimeout = 90 * time.Second

// candidate is an OCI runtime to try: its name and its binary ("" when it
// is not installed).
type candidate struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// knownRuntimes are the runtimes podman has built-in search paths for, in
// order of preference, with their binary names: crun is podman's default,
// runc the one that works where crun refuses (hybrid cgroups).
var knownRuntimes = []struct{ name, binary string }{
	{"crun", "crun"},
	{"runc", "runc"},
	{"runsc", "runsc"},
	{"youki", "youki"},
	{"krun", "krun"},
	{"kata", "kata-runtime"},
}

// searchDirs are where podman looks for runtimes (containers.conf's
// defaults), before PATH.
var searchDirs = []string{"/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin", "/sbin", "/bin"}

// discover lists the candidates: crun and runc always (so that their
// absence is reported), podman's default runtime, then any other known
// runtime that is installed.
func discover(defaultName, defaultPath string) []candidate {
	var out []candidate
	seen := map[string]bool{}
	add := func(c candidate) {
		if !seen[c.Name] {
			seen[c.Name] = true
			out = append(out, c)
		}
	}
	for i, k := range knownRuntimes {
		path := findBinary(k.binary)
		if k.name == defaultName && defaultPath != "" {
			path = defaultPath
		}
		if i < 2 || path != "" {
			add(candidate{k.name, path})
		}
		if i == 1 && defaultName != "" {
			add(candidate{defaultName, defaultPath})
		}
	}
	return out
}

func findBinary(name string) string {
	for _, d := range searchDirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return ""
}

// probeArgs is the trial container: what the kernel's container needs from
// a runtime (no network, read-only root filesystem, explicit rlimits,
// which rootful podman needs here because its defaults exceed the host's
// hard limits), running only true.
func probeArgs(runtimePath, rootfs string) []string {
	return []string{
		"--runtime", runtimePath, "run", "--rm",
		// As the kernel: no tmpfs of podman's, whose copy of the image's
		// /tmp fails rootless on a file there the user cannot read.
		"--network=none", "--no-hosts", "--read-only", "--read-only-tmpfs=false", "--log-driver=none",
		"--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024",
		"--rootfs", rootfs, "true",
	}
}

// cacheKey is everything the runtime choice depends on.
type cacheKey struct {
	Version       int            `json:"version"`
	PodmanVersion string         `json:"podman_version"`
	CgroupVersion string         `json:"cgroup_version"`
	Rootless      bool           `json:"rootless"`
	RootFS        string         `json:"rootfs"`
	RootFSModTime time.Time      `json:"rootfs_mtime"`
	Runtimes      []runtimeStamp `json:"runtimes"`
}

// runtimeStamp identifies a runtime binary as installed: a package upgrade
// changes its time and size.
type runtimeStamp struct {
	candidate
	ModTime time.Time `json:"mtime"`
	Size    int64     `json:"size"`
}

type cacheFile struct {
	Key           cacheKey          `json:"key"`
	Runtime       string            `json:"runtime"`
	RuntimePath   string            `json:"runtime_path"`
	RuntimeErrors map[string]string `json:"runtime_errors,omitempty"`
}

func cachePath(cacheDir string) string {
	return filepath.Join(cacheDir, "host-"+strconv.Itoa(os.Geteuid())+".json")
}

// chooseRuntime fills info's runtime fields: from the cache when its key
// matches, else by trying each candidate, caching a success.
func chooseRuntime(ctx context.Context, r command.Runner, info *Info, rootfs, cacheDir string, cands []candidate) error {
	fi, err := os.Stat(rootfs)
	if err != nil {
		return fmt.Errorf("probing OCI runtimes: root filesystem: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("probing OCI runtimes: root filesystem %s is not a folder", rootfs)
	}
	key := cacheKey{
		Version: cacheVersion, PodmanVersion: info.PodmanVersion,
		CgroupVersion: info.CgroupVersion, Rootless: info.Rootless,
		RootFS: rootfs, RootFSModTime: fi.ModTime().UTC(),
	}
	for _, c := range cands {
		s := runtimeStamp{candidate: c}
		if c.Path != "" {
			if fi, err := os.Stat(c.Path); err == nil {
				s.ModTime, s.Size = fi.ModTime().UTC(), fi.Size()
			}
		}
		key.Runtimes = append(key.Runtimes, s)
	}
	if cacheDir != "" {
		if c, ok := readCache(cachePath(cacheDir), key); ok {
			info.Runtime, info.RuntimePath, info.RuntimeErrors = c.Runtime, c.RuntimePath, c.RuntimeErrors
			info.RuntimeVerified, info.RuntimeCached = true, true
			return nil
		}
	}

	for _, c := range cands {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("probing OCI runtimes: %w", err)
		}
		if c.Path == "" {
			setErr(info, c.Name, "not installed")
			continue
		}
		tctx, cancel := context.WithTimeout(ctx, runtimeProbeTimeout)
		_, err := r.Run(tctx, "podman", probeArgs(c.Path, rootfs)...)
		cancel()
		if err != nil {
			setErr(info, c.Name, why(err))
			continue
		}
		info.Runtime, info.RuntimePath, info.RuntimeVerified = c.Name, c.Path, true
		break
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("probing OCI runtimes: %w", err)
	}
	// A failure is not cached: whatever the user fixes, the next probe
	// should see it.
	// An unwritable cache (a shared, read-only image folder) only costs the
	// next probe its speed.
	if info.Runtime != "" && cacheDir != "" {
		_ = writeCache(cachePath(cacheDir), cacheFile{key, info.Runtime, info.RuntimePath, info.RuntimeErrors})
	}
	return nil
}

func setErr(info *Info, name, why string) {
	if info.RuntimeErrors == nil {
		info.RuntimeErrors = map[string]string{}
	}
	info.RuntimeErrors[name] = why
}

// why condenses a failed trial to one line: podman's "Error: ..." line if
// there is one (warnings may come first), else the first line it printed,
// else the error itself.
func why(err error) string {
	var ce *command.Error
	if errors.As(err, &ce) {
		first := ""
		for line := range strings.Lines(ce.Stderr) {
			line = strings.TrimSpace(line)
			if msg, ok := strings.CutPrefix(line, "Error: "); ok {
				return msg
			}
			if first == "" && line != "" {
				first = line
			}
		}
		if first != "" {
			return first
		}
		return ce.Err.Error()
	}
	line, _, _ := strings.Cut(err.Error(), "\n")
	return line
}

func readCache(path string, key cacheKey) (*cacheFile, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	var c cacheFile
	if json.Unmarshal(b, &c) != nil || c.Runtime == "" || !reflect.DeepEqual(normalize(c.Key), normalize(key)) {
		return nil, false
	}
	return &c, true
}

// normalize makes a key comparable after a JSON round trip.
func normalize(k cacheKey) cacheKey {
	k.RootFSModTime = k.RootFSModTime.UTC()
	rs := make([]runtimeStamp, len(k.Runtimes))
	for i, s := range k.Runtimes {
		s.ModTime = s.ModTime.UTC()
		rs[i] = s
	}
	k.Runtimes = rs
	return k
}

// writeCache writes atomically: a reader sees the old file or the new.
func writeCache(path string, c cacheFile) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".host-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
