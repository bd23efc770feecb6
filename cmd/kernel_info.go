package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/internal/units"
	"github.com/analyst-cli/analyst/kernel"
)

// KernelInfoOptions are the inputs of `analyst kernel info`.
type KernelInfoOptions struct {
	JSON bool
}

func newCmdKernelInfo(f *Factory, runF func(context.Context, *KernelInfoOptions) error) *cobra.Command {
	opts := &KernelInfoOptions{}
	c := &cobra.Command{
		Use:   "info",
		Short: "Show the kernel image, its package versions and the limits this host enforces",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runKernelInfo(c.Context(), f, opts)
		},
	}
	c.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return c
}

func runKernelInfo(ctx context.Context, f *Factory, opts *KernelInfoOptions) error {
	setup, err := f.KernelSetup(ctx)
	if err != nil {
		return err
	}
	m := setup.Image.Manifest
	enf := setup.Options.Enforcement()
	if opts.JSON {
		enc := json.NewEncoder(f.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{
			"image": setup.Image.Dir, "rootfs": setup.Image.RootFS, "recipe_hash": m.RecipeHash,
			"size_bytes": m.SizeBytes, "built_at": m.BuiltAt, "python": m.Python, "packages": m.Packages,
			"runtime": setup.Options.Runtime, "rootless": setup.Host.Rootless,
			"cgroup_version": setup.Host.CgroupVersion, "limits": enf, "driver": kernel.DriverHash(),
			"require_limits": setup.Options.RequireLimits,
		})
	}
	w := tabwriter.NewWriter(f.IO.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "image:\t%s\n", setup.Image.Dir)
	fmt.Fprintf(w, "recipe:\t%s (Debian %s, built %s in %.0fs)\n", m.ID(), m.Recipe.Suite, m.BuiltAt.Format(time.RFC3339), m.BuildSeconds)
	fmt.Fprintf(w, "size:\t%s\n", units.Bytes(m.SizeBytes))
	fmt.Fprintf(w, "python:\t%s\n", m.Python)
	names := make([]string, 0, len(m.Packages))
	for n := range m.Packages {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %s\t%s\n", n, m.Packages[n])
	}
	fmt.Fprintf(w, "runtime:\t%s (%s)\n", setup.Host.Runtime, setup.Options.Runtime)
	fmt.Fprintf(w, "rootless:\t%v\n", setup.Host.Rootless)
	fmt.Fprintf(w, "cgroups:\t%s\n", setup.Host.CgroupVersion)
	fmt.Fprintf(w, "driver:\t%s\n", kernel.DriverHash())
	fmt.Fprintf(w, "limits:\t\n")
	fmt.Fprintf(w, "  memory\t%s\n  processes\t%s\n  cpus\t%s\n  /tmp\t%s\n  /output\t%s\n  open files\t%s\n  network\t%s\n",
		enf.Memory, enf.Pids, enf.CPUs, enf.Tmp, enf.Output, enf.NoFile, enf.Network)
	if !enf.Totals {
		fmt.Fprintf(w, "  note\t%s\n", perProcessNote(setup.Options))
	}
	return w.Flush()
}
