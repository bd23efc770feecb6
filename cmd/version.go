package cmd

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/image"
)

// Set at build time: -ldflags "-X github.com/analyst-cli/analyst/cmd.Version=..."
var (
	Version = "dev"
	Commit  = ""
)

// commit is the build's VCS revision: from ldflags, else from Go's build info.
func commit() string {
	if Commit != "" {
		return Commit
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" && dirty {
			rev += "-dirty"
		}
		if rev != "" {
			return rev
		}
	}
	return "unknown"
}

// VersionOptions are the inputs of `analyst version` (none).
type VersionOptions struct{}

func newCmdVersion(f *Factory, runF func(context.Context, *VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{}
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, kernel driver and image",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runVersion(f)
		},
	}
}

func runVersion(f *Factory) error {
	out := f.IO.Out
	fmt.Fprintf(out, "analyst %s\n", Version)
	fmt.Fprintf(out, "commit:  %s\n", commit())
	fmt.Fprintf(out, "driver:  %s\n", kernel.DriverHash())
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	recipe := image.DefaultRecipe()
	img, err := image.Lookup(cfg.CacheDir, recipe)
	if err != nil {
		fmt.Fprintf(out, "image:   %s (not built; run: analyst kernel build)\n", recipe.ID())
		return nil
	}
	fmt.Fprintf(out, "image:   %s (%s)\n", img.Manifest.ID(), img.Dir)
	return nil
}
