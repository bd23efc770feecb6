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
	level string // checkOK, checkWarn or checkFail
	what  string
	fix   string // the command that fixes it
}

// The levels of a check.
const (
	checkOK   = "ok" //houserules:literal the doctor's level, not a cell's status
	checkWarn = "warn"
	checkFail = "FAIL"
)

// DoctorOptions are the inputs of `analyst doctor` (the kernel flags).
type DoctorOptions struct{}

func newCmdDoctor(f *Factory, runF func(context.Context, *DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{}
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check that this host can run the sandboxed kernel",
		Long: `Check podman, the OCI runtime, subordinate ids for rootless use, the kernel
image and the limits this host enforces, then start a kernel and run code in
it. Each problem is printed with the command that fixes it. The exit code is
5 when a run would fail, 0 otherwise (warnings included).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runDoctor(c.Context(), f)
		},
	}
	addKernelFlags(c)
	return c
}

func runDoctor(ctx context.Context, f *Factory) error {
	checks := doctor(ctx, f)
	failed := false
	for _, ch := range checks {
		fmt.Fprintf(f.IO.Out, "%-4s  %s\n", ch.level, ch.what)
		if ch.fix != "" {
			fmt.Fprintf(f.IO.Out, "      fix: %s\n", ch.fix)
		}
		failed = failed || ch.level == checkFail
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if failed {
		fmt.Fprintln(f.IO.ErrOut, "analyst doctor: a run would fail on this host; see the fixes above")
		return silentError{code: ExitSandbox}
	}
	return nil
}

// doctor checks the configuration, podman and its user mapping, the image,
// the runtime and the limits, then starts a kernel; each step adds its
// lines, and a step that makes the later ones pointless ends the checks.
func doctor(ctx context.Context, f *Factory) []check {
	d := &doctorRun{f: f}
	cfg, err := f.Config()
	if err != nil {
		d.add(checkFail, "configuration: "+err.Error(), "fix the config file or the ANALYST_* variables")
		return d.checks
	}
	if cfg.File != "" {
		d.add(checkOK, "config file "+cfg.File, "")
	}
	img, imgErr := image.Lookup(cfg.CacheDir, image.DefaultRecipe())
	rootfs := ""
	if imgErr == nil {
		rootfs = img.RootFS
	}
	info, err := host.Probe(ctx, f.Runner, rootfs, cfg.CacheDir)
	if err != nil {
		d.add(checkFail, err.Error(), "apt-get install -y podman runc uidmap")
		return d.checks
	}
	d.add(checkOK, "podman "+info.PodmanVersion, "")
	d.users(info)
	d.image(img, imgErr)
	runtime := d.runtime(cfg, info)
	opts := f.kernelOptions(cfg, img, info, runtime)
	d.limits(cfg, info, opts)
	if imgErr != nil || runtime == "" || (cfg.RequireLimits && !opts.CgroupLimits) {
		return d.checks
	}
	d.kernel(ctx, opts)
	return d.checks
}

// doctorRun collects the doctor's checks.
type doctorRun struct {
	f      *Factory
	checks []check
}

func (d *doctorRun) add(level, what, fix string) {
	d.checks = append(d.checks, check{level, what, fix})
}

// users checks who the kernel runs as: root, or a user with subordinate
// ids for rootless podman.
func (d *doctorRun) users(info *host.Info) {
	if !info.Rootless {
		d.add(checkOK, "running as root (rootful podman; the kernel runs as an unprivileged user inside)", "")
		return
	}
	name := info.User
	if name == "" {
		if u, err := user.Current(); err == nil {
			name = u.Username
		}
	}
	if info.SubIDs {
		d.add(checkOK, "subordinate uids and gids for "+name+" (rootless podman)", "")
		return
	}
	d.add(checkFail, "no /etc/subuid or /etc/subgid range for "+name+": rootless podman cannot map users",
		fmt.Sprintf("sudo usermod --add-subuids 100000-165535 --add-subgids 100000-165535 %s && podman system migrate", name))
}

func (d *doctorRun) image(img *image.Image, err error) {
	if err != nil {
		d.add(checkFail, "kernel image not built ("+image.DefaultRecipe().ID()+")", "analyst kernel build")
		return
	}
	d.add(checkOK, fmt.Sprintf("kernel image %s, %s, Python %s, pandas %s", img.Manifest.ID(),
		units.Bytes(img.Manifest.SizeBytes), img.Manifest.Python, img.Manifest.Packages["pandas"]), "")
}

// runtime checks the OCI runtime and returns the one kernels would use
// ("" for none).
func (d *doctorRun) runtime(cfg *Config, info *host.Info) string {
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
		d.add(checkFail, "no OCI runtime can start a container here ("+strings.Join(notes, "; ")+")", "apt-get install -y runc")
	case !info.RuntimeVerified && cfg.Runtime == "":
		d.add(checkWarn, "OCI runtime "+runtime+" (not verified: no kernel image to try it with)", "analyst kernel build")
	default:
		line := "OCI runtime " + runtime
		if len(notes) > 0 {
			line += " (others tried: " + strings.Join(notes, "; ") + ")"
		}
		d.add(checkOK, line, "")
	}
	return runtime
}

// limits checks which limits the host enforces in total, and what falls
// back to per-process rlimits.
func (d *doctorRun) limits(cfg *Config, info *host.Info, opts kernel.Options) {
	var missing []string
	for _, l := range []struct {
		name     string
		enforced bool
	}{{"memory", info.Enforced.Memory}, {"pids", info.Enforced.Pids}, {"cpus", info.Enforced.CPU}} {
		if !l.enforced {
			missing = append(missing, l.name)
		}
	}
	if len(missing) == 0 {
		d.add(checkOK, fmt.Sprintf("cgroup %s enforces memory, pids and cpu limits (in total for the kernel)", info.CgroupVersion), "")
	} else {
		fix := ""
		if info.Rootless && info.CgroupVersion == "v1" {
			fix = "run as root, or boot with cgroup v2 (systemd.unified_cgroup_hierarchy=1) and delegate controllers to users"
		}
		level := checkWarn
		what := fmt.Sprintf("cgroup %s does not enforce %s limits for this user: memory and processes fall back to rlimits set by the kernel driver; CPU is not limited; ",
			info.CgroupVersion, strings.Join(missing, ", "))
		if !opts.CgroupLimits {
			what += perProcessNote(opts)
			if cfg.RequireLimits {
				level = checkFail
				what += "; kernel.require-limits is set, so kernels will not start here"
			}
		}
		d.add(level, what, fix)
	}
	d.add(checkOK, "/output: "+opts.Enforcement().Output+" (kernel.output-size)", "")
}

// kernel starts a kernel and runs pandas code in it.
func (d *doctorRun) kernel(ctx context.Context, opts kernel.Options) {
	start := time.Now()
	k, err := kernel.Start(ctx, opts)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			d.add(checkFail, "the kernel does not start: "+err.Error(), "analyst kernel build --force")
		}
		return
	}
	defer k.Close()
	ex, err := k.Execute(ctx, "import pandas as pd\nint(pd.Series([1, 2, 3]).sum())", kernel.ExecOptions{Timeout: 30 * time.Second})
	switch {
	case err != nil:
		d.add(checkFail, "the kernel does not run code: "+err.Error(), "")
	case ex.Status != kernel.StatusOK || ex.Text() != "6":
		d.add(checkFail, fmt.Sprintf("the kernel ran code wrongly: status %s, result %q %v", ex.Status, ex.Text(), ex.Error), "analyst kernel build --force")
	default:
		d.add(checkOK, fmt.Sprintf("kernel started and ran pandas code in %s", time.Since(start).Round(10*time.Millisecond)), "")
	}
}
