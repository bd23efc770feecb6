package cmd

import (
	"context"
	"errors"
	"fmt"
	"os/user"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/internal/units"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/host"
	"github.com/analyst-cli/analyst/kernel/image"
)

// check is one line of the doctor's report.
type check struct {
	level string // "ok", "warn" or "FAIL"
	what  string
	fix   string // the command that fixes it
}

func newCmdDoctor(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check that this host can run the sandboxed kernel",
		Long: `Check podman, the OCI runtime, subordinate ids for rootless use, the kernel
image and the limits this host enforces, then start a kernel and run code in
it. Each problem is printed with the command that fixes it. The exit code is
5 when a run would fail, 0 otherwise (warnings included).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			checks := doctor(c.Context(), f)
			failed := false
			for _, ch := range checks {
				fmt.Fprintf(f.IO.Out, "%-4s  %s\n", ch.level, ch.what)
				if ch.fix != "" {
					fmt.Fprintf(f.IO.Out, "      fix: %s\n", ch.fix)
				}
				failed = failed || ch.level == "FAIL"
			}
			if c.Context().Err() != nil {
				return c.Context().Err()
			}
			if failed {
				fmt.Fprintln(f.IO.ErrOut, "analyst doctor: a run would fail on this host; see the fixes above")
				return silentError{code: ExitSandbox}
			}
			return nil
		},
	}
	addKernelFlags(c)
	return c
}

func doctor(ctx context.Context, f *Factory) []check {
	var checks []check
	add := func(level, what, fix string) { checks = append(checks, check{level, what, fix}) }
	cfg, err := f.Config()
	if err != nil {
		add("FAIL", "configuration: "+err.Error(), "fix the config file or the ANALYST_* variables")
		return checks
	}
	if cfg.File != "" {
		add("ok", "config file "+cfg.File, "")
	}

	img, imgErr := image.Lookup(cfg.CacheDir, image.DefaultRecipe())
	rootfs := ""
	if imgErr == nil {
		rootfs = img.RootFS
	}
	info, err := host.Probe(ctx, f.Runner, rootfs, cfg.CacheDir)
	if err != nil {
		add("FAIL", err.Error(), "apt-get install -y podman runc uidmap")
		return checks
	}
	add("ok", "podman "+info.PodmanVersion, "")

	if info.Rootless {
		name := info.User
		if name == "" {
			if u, err := user.Current(); err == nil {
				name = u.Username
			}
		}
		if info.SubIDs {
			add("ok", "subordinate uids and gids for "+name+" (rootless podman)", "")
		} else {
			add("FAIL", "no /etc/subuid or /etc/subgid range for "+name+": rootless podman cannot map users",
				fmt.Sprintf("sudo usermod --add-subuids 100000-165535 --add-subgids 100000-165535 %s && podman system migrate", name))
		}
	} else {
		add("ok", "running as root (rootful podman; the kernel runs as an unprivileged user inside)", "")
	}

	if imgErr != nil {
		add("FAIL", "kernel image not built ("+image.DefaultRecipe().ID()+")", "analyst kernel build")
	} else {
		add("ok", fmt.Sprintf("kernel image %s, %s, Python %s, pandas %s", img.Manifest.ID(),
			units.Bytes(img.Manifest.SizeBytes), img.Manifest.Python, img.Manifest.Packages["pandas"]), "")
	}

	runtime := cfg.Runtime
	if runtime == "" {
		runtime = info.Runtime
	}
	var notes []string
	for name, why := range info.RuntimeErrors {
		notes = append(notes, name+": "+why)
	}
	switch {
	case runtime == "":
		add("FAIL", "no OCI runtime can start a container here ("+strings.Join(notes, "; ")+")", "apt-get install -y runc")
	case !info.RuntimeVerified && cfg.Runtime == "":
		add("warn", "OCI runtime "+runtime+" (not verified: no kernel image to try it with)", "analyst kernel build")
	default:
		line := "OCI runtime " + runtime
		if len(notes) > 0 {
			line += " (others tried: " + strings.Join(notes, "; ") + ")"
		}
		add("ok", line, "")
	}

	var missing []string
	if !info.Enforced.Memory {
		missing = append(missing, "memory")
	}
	if !info.Enforced.Pids {
		missing = append(missing, "pids")
	}
	if !info.Enforced.CPU {
		missing = append(missing, "cpus")
	}
	opts := f.kernelOptions(cfg, img, info, runtime)
	if len(missing) == 0 {
		add("ok", fmt.Sprintf("cgroup %s enforces memory, pids and cpu limits (in total for the kernel)", info.CgroupVersion), "")
	} else {
		fix := ""
		if info.Rootless && info.CgroupVersion == "v1" {
			fix = "run as root, or boot with cgroup v2 (systemd.unified_cgroup_hierarchy=1) and delegate controllers to users"
		}
		level := "warn"
		what := fmt.Sprintf("cgroup %s does not enforce %s limits for this user: memory and processes fall back to rlimits set by the kernel driver; CPU is not limited; ",
			info.CgroupVersion, strings.Join(missing, ", "))
		if !opts.CgroupLimits {
			what += perProcessNote(opts)
			if cfg.RequireLimits {
				level = "FAIL"
				what += "; kernel.require-limits is set, so kernels will not start here"
			}
		}
		add(level, what, fix)
	}
	add("ok", "/output: "+opts.Enforcement().Output+" (kernel.output-size)", "")

	if imgErr != nil || runtime == "" {
		return checks
	}
	if cfg.RequireLimits && !opts.CgroupLimits {
		return checks
	}
	start := time.Now()
	k, err := kernel.Start(ctx, opts)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return checks
		}
		add("FAIL", "the kernel does not start: "+err.Error(), "analyst kernel build --force")
		return checks
	}
	defer k.Close()
	ex, err := k.Execute(ctx, "import pandas as pd\nint(pd.Series([1, 2, 3]).sum())", kernel.ExecOptions{Timeout: 30 * time.Second})
	switch {
	case err != nil:
		add("FAIL", "the kernel does not run code: "+err.Error(), "")
	case ex.Status != kernel.StatusOK || ex.Text() != "6":
		add("FAIL", fmt.Sprintf("the kernel ran code wrongly: status %s, result %q %v", ex.Status, ex.Text(), ex.Error), "analyst kernel build --force")
	default:
		add("ok", fmt.Sprintf("kernel started and ran pandas code in %s", time.Since(start).Round(10*time.Millisecond)), "")
	}
	return checks
}
