package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/kernel"
)

func newCmdKernelShell(f *Factory) *cobra.Command {
	var data string
	c := &cobra.Command{
		Use:   "shell [--data FILE]",
		Short: "Start an interactive IPython in the sandbox, for debugging",
		Long: `Start IPython in a sandbox with the same isolation, limits and mounts as a
kernel, with numpy, pandas and matplotlib imported. Nothing is captured, and
nothing written in the sandbox is kept; exit with Ctrl-D.`,
		Example: "  analyst kernel shell --data sales.csv",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if data != "" {
				if _, err := os.Stat(data); err != nil {
					return withCode(ExitBadData, fmt.Errorf("data: %w", err))
				}
			}
			setup, err := f.KernelSetup(c.Context())
			if err != nil {
				return err
			}
			opts := setup.Options
			opts.Data = data
			tty := f.IO.IsStdinTTY() && f.IO.IsStdoutTTY()
			if err := kernel.Shell(c.Context(), opts, tty, f.IO.In, f.IO.Out, f.IO.ErrOut); err != nil {
				if errors.Is(err, context.Canceled) {
					return err
				}
				return withCode(ExitSandbox, err)
			}
			return nil
		},
	}
	c.Flags().StringVar(&data, "data", "", "file or folder to mount read-only at /data")
	addKernelFlags(c)
	return c
}
