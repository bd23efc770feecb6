package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/kernel"
)

// KernelShellOptions are the inputs of `analyst kernel shell`.
type KernelShellOptions struct {
	Data string // file or folder mounted at /data
}

func newCmdKernelShell(f *Factory, runF func(context.Context, *KernelShellOptions) error) *cobra.Command {
	opts := &KernelShellOptions{}
	c := &cobra.Command{
		Use:   "shell [--data FILE]",
		Short: "Start an interactive IPython in the sandbox, for debugging",
		Long: `Start IPython in a sandbox with the same isolation, limits and mounts as a
kernel, with numpy, pandas and matplotlib imported. Nothing is captured, and
nothing written in the sandbox is kept; exit with Ctrl-D.`,
		Example: "  analyst kernel shell --data sales.csv",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runKernelShell(c.Context(), f, opts)
		},
	}
	c.Flags().StringVar(&opts.Data, "data", "", "file or folder to mount read-only at /data")
	addKernelFlags(c)
	return c
}

func runKernelShell(ctx context.Context, f *Factory, opts *KernelShellOptions) error {
	if opts.Data != "" {
		if _, err := os.Stat(opts.Data); err != nil {
			return withCode(ExitBadData, fmt.Errorf("data: %w", err))
		}
	}
	setup, err := f.KernelSetup(ctx)
	if err != nil {
		return err
	}
	kopts := setup.Options
	kopts.Data = opts.Data
	tty := f.IO.IsStdinTTY() && f.IO.IsStdoutTTY()
	if err := kernel.Shell(ctx, kopts, tty, f.IO.In, f.IO.Out, f.IO.ErrOut); err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		return withCode(ExitSandbox, err)
	}
	return nil
}
