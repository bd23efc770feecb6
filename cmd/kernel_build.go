package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/internal/units"
	"github.com/analyst-cli/analyst/kernel/image"
)

// KernelBuildOptions are the inputs of `analyst kernel build`.
type KernelBuildOptions struct {
	Force bool
}

func newCmdKernelBuild(f *Factory, runF func(context.Context, *KernelBuildOptions) error) *cobra.Command {
	opts := &KernelBuildOptions{}
	c := &cobra.Command{
		Use:   "build",
		Short: "Build the kernel image from Debian's packages (cached)",
		Long: `Build the kernel's root filesystem with debootstrap (as root) or mmdebstrap
(without root) from Debian's packages, and cache it under the cache folder,
keyed by a hash of the recipe. A second build with the same recipe does
nothing; --force rebuilds. An interrupted build leaves no image behind.`,
		Example: "  analyst kernel build\n  ANALYST_CACHE_DIR=/var/cache/analyst analyst kernel build --force",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runKernelBuild(c.Context(), f, opts)
		},
	}
	c.Flags().BoolVar(&opts.Force, "force", false, "rebuild even if a cached image exists")
	return c
}

func runKernelBuild(ctx context.Context, f *Factory, opts *KernelBuildOptions) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	b := &image.Builder{Runner: f.Runner, CacheDir: cfg.CacheDir, Progress: f.IO.ErrOut}
	start := time.Now()
	img, err := b.Build(ctx, image.DefaultRecipe(), opts.Force)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		return withCode(ExitSandbox, err)
	}
	fmt.Fprintf(f.IO.Out, "kernel image %s ready in %s: %s (%s)\n", img.Manifest.ID(),
		time.Since(start).Round(time.Second), img.RootFS, units.Bytes(img.Manifest.SizeBytes))
	return nil
}
