package cmd

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/analyst-cli/analyst/internal/units"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/host"
	"github.com/analyst-cli/analyst/kernel/image"
	"github.com/analyst-cli/analyst/pipeline"
	"github.com/analyst-cli/analyst/report"
)

// kernelSetup is what starting a kernel needs on this host.
type kernelSetup struct {
	Options kernel.Options
	Image   *image.Image
	Host    *host.Info
}

// kernelSetup finds the image, probes the host and resolves the options.
func (f *Factory) kernelSetup(ctx context.Context) (*kernelSetup, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	img, err := image.Lookup(cfg.CacheDir, image.DefaultRecipe())
	if err != nil {
		return nil, withCode(ExitSandbox, err)
	}
	return f.kernelSetupFor(ctx, cfg, img)
}

// kernelSetupFor is kernelSetup with a given image (analyst verify re-runs
// in the image a run recorded).
func (f *Factory) kernelSetupFor(ctx context.Context, cfg *Config, img *image.Image) (*kernelSetup, error) {
	info, err := host.Probe(ctx, f.Runner, img.RootFS, cfg.CacheDir)
	if err != nil {
		return nil, withCode(ExitSandbox, err)
	}
	runtime := cfg.Runtime
	if runtime == "" {
		runtime = info.Runtime
	}
	if runtime == "" {
		return nil, withCode(ExitSandbox, fmt.Errorf("no OCI runtime works with podman here (%s); run: analyst doctor", runtimeErrors(info)))
	}
	// What killed processes left behind goes before anything new starts.
	if _, err := removeLeftovers(ctx, f, f.IO.ErrOut, "analyst: ", false); err != nil {
		fmt.Fprintf(f.IO.ErrOut, "analyst: warning: removing what killed analyst processes left: %v\n", err)
	}
	return &kernelSetup{Image: img, Host: info, Options: f.kernelOptions(cfg, img, info, runtime)}, nil
}

// apply sets the run's kernel, image and their provenance.
func (s *kernelSetup) apply(o *pipeline.Options) {
	o.Kernel, o.Runtime = s.Options, s.Options.Runtime
	o.ImageID, o.Versions = s.Image.Manifest.ID(), s.versions()
	o.KaTeXDir = report.KaTeXDirIn(s.Image.RootFS)
}

// versions are the image's python and library versions, as the model is
// told them.
func (s *kernelSetup) versions() map[string]string {
	return s.Image.Manifest.Versions()
}

// kernelOptions are the options of a kernel on this host with this image.
// img may be nil (doctor without an image): RootFS is then empty.
func (f *Factory) kernelOptions(cfg *Config, img *image.Image, info *host.Info, runtime string) kernel.Options {
	rootfs := ""
	if img != nil {
		rootfs = img.RootFS
	}
	return kernel.Options{
		RootFS:        rootfs,
		Runtime:       runtimeArg(runtime, info),
		Limits:        cfg.Limits,
		CgroupLimits:  info.Enforced.Memory && info.Enforced.Pids,
		RequireLimits: cfg.RequireLimits,
		Rootless:      info.Rootless,
		Runner:        f.Runner,
	}
}

// runtimeArg is what podman's --runtime gets: the probed binary's path when
// the probe chose it, else the configured name or path as given.
func runtimeArg(runtime string, info *host.Info) string {
	if runtime == info.Runtime && info.RuntimePath != "" {
		return info.RuntimePath
	}
	return runtime
}

// perProcessNote says plainly what rlimits do not bound: the total.
func perProcessNote(o kernel.Options) string {
	l := o.Limits
	return fmt.Sprintf("memory is limited per process only; worst case = limit × process limit = %s × %d = %s (set kernel.require-limits to refuse such hosts)",
		units.Bytes(l.MemoryBytes), l.Pids, units.Bytes(l.MemoryBytes*int64(l.Pids)))
}

func runtimeErrors(info *host.Info) string {
	var parts []string
	for name, why := range info.RuntimeErrors {
		parts = append(parts, name+": "+why)
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "none found"
	}
	return strings.Join(parts, "; ")
}
