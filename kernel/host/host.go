// Package host finds out what this machine's podman can do for the kernel:
// rootless or not, which OCI runtime actually starts a container here, and
// which resource limits the cgroup setup lets podman enforce.
package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"slices"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/internal/command"
)

// Info is what the kernel needs to know about this host.
type Info struct {
	PodmanVersion     string   `json:"podman_version"`
	Rootless          bool     `json:"rootless"`
	User              string   `json:"user"`
	UID               int      `json:"uid"`
	CgroupVersion     string   `json:"cgroup_version"` // "v1" or "v2"
	CgroupControllers []string `json:"cgroup_controllers"`
	// Runtime is the chosen OCI runtime's name ("runc"), "" if none works.
	Runtime string `json:"runtime"`
	// RuntimePath is its binary; give it to podman --runtime, so podman
	// uses exactly the binary that was tried.
	RuntimePath string `json:"runtime_path"`
	// RuntimeVerified says a container was started with Runtime on the
	// given root filesystem. Without a root filesystem, Runtime is
	// podman's default, unverified.
	RuntimeVerified bool `json:"runtime_verified"`
	// RuntimeCached says the runtime choice came from the cache file, not
	// from starting containers now.
	RuntimeCached bool `json:"runtime_cached"`
	// RuntimeErrors says, for each runtime tried before the chosen one (or
	// all, if none works), why it failed.
	RuntimeErrors map[string]string `json:"runtime_errors,omitempty"`
	// Enforced says which limits podman can enforce here.
	Enforced Enforcement `json:"enforced"`
	// SubIDs: /etc/subuid and /etc/subgid give the user ranges, which
	// rootless podman needs. Always true for root.
	SubIDs bool `json:"subids"`
}

// Enforcement lists the cgroup limits podman can apply. Where one is
// false, the kernel falls back to rlimits and says so.
type Enforcement struct {
	Memory bool `json:"memory"` // --memory
	Pids   bool `json:"pids"`   // --pids-limit
	CPU    bool `json:"cpu"`    // --cpus
}

// InstallHint is how to get what the kernel needs from Debian.
const InstallHint = "apt-get install -y podman runc uidmap"

// Probe asks podman about this host and finds a working OCI runtime by
// starting a trivial container on rootfs with each candidate in turn
// (crun, then runc, then others installed). rootfs "" skips that and
// reports podman's default runtime, unverified. The runtime choice is
// cached in cacheDir ("" means no cache), keyed by everything that could
// change it, because starting containers takes a second and the kernel
// probes at every start. A nil r runs real commands.
func Probe(ctx context.Context, r command.Runner, rootfs, cacheDir string) (*Info, error) {
	if r == nil {
		r = command.Exec{}
	}
	return probe(ctx, r, rootfs, cacheDir, nil)
}

// podmanInfo is the part of `podman info --format json` read here.
type podmanInfo struct {
	Host struct {
		CgroupVersion     string   `json:"cgroupVersion"`
		CgroupControllers []string `json:"cgroupControllers"`
		Security          struct {
			Rootless bool `json:"rootless"`
		} `json:"security"`
		OCIRuntime struct {
			Name string `json:"name"`
			Path string `json:"path"`
		} `json:"ociRuntime"`
	} `json:"host"`
	Version struct {
		Version string `json:"Version"`
	} `json:"version"`
}

// probe is Probe with the runtime candidates given (nil: discovered).
func probe(ctx context.Context, r command.Runner, rootfs, cacheDir string, cands []candidate) (*Info, error) {
	out, err := r.Run(ctx, "podman", "info", "--format", "json")
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("podman not found: install it with: %s", InstallHint)
		}
		return nil, fmt.Errorf("asking podman about this host: %w", err)
	}
	var pi podmanInfo
	if err := json.Unmarshal(out, &pi); err != nil {
		return nil, fmt.Errorf("reading podman info: %w", err)
	}
	info := &Info{
		PodmanVersion:     pi.Version.Version,
		Rootless:          pi.Host.Security.Rootless,
		UID:               os.Geteuid(),
		CgroupVersion:     pi.Host.CgroupVersion,
		CgroupControllers: pi.Host.CgroupControllers,
	}
	info.User = strconv.Itoa(info.UID)
	if u, err := user.LookupId(info.User); err == nil {
		info.User = u.Username
	}
	info.Enforced = enforcement(info.CgroupVersion, info.Rootless, info.CgroupControllers)
	info.SubIDs = info.UID == 0 || (hasSubIDs("/etc/subuid", info.User, info.UID) && hasSubIDs("/etc/subgid", info.User, info.UID))

	if rootfs == "" {
		info.Runtime = pi.Host.OCIRuntime.Name
		info.RuntimePath = pi.Host.OCIRuntime.Path
		return info, nil
	}
	if cands == nil {
		cands = discover(pi.Host.OCIRuntime.Name, pi.Host.OCIRuntime.Path)
	}
	if err := chooseRuntime(ctx, r, info, rootfs, cacheDir, cands); err != nil {
		return nil, err
	}
	return info, nil
}

// enforcement derives the enforceable limits from the cgroup controllers
// podman reports. Rootless podman on cgroup v1 ignores all limits (it says
// "Resource limits are not supported and ignored on cgroups V1 rootless
// systems") whatever the controllers.
func enforcement(version string, rootless bool, controllers []string) Enforcement {
	if rootless && version == "v1" {
		return Enforcement{}
	}
	return Enforcement{
		Memory: slices.Contains(controllers, "memory"),
		Pids:   slices.Contains(controllers, "pids"),
		CPU:    slices.Contains(controllers, "cpu"),
	}
}

// hasSubIDs reports whether the subordinate id file at path (subuid(5)
// format: "name-or-uid:start:count") gives the user a non-empty range.
func hasSubIDs(path, name string, uid int) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	return parseSubIDs(string(b), name, uid)
}

func parseSubIDs(content, name string, uid int) bool {
	for line := range strings.Lines(content) {
		f := strings.Split(strings.TrimSpace(line), ":")
		if len(f) != 3 || (f[0] != name && f[0] != strconv.Itoa(uid)) {
			continue
		}
		if n, err := strconv.ParseUint(f[2], 10, 32); err == nil && n > 0 {
			return true
		}
	}
	return false
}
