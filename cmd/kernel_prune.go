package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/kernel"
)

func newCmdKernelPrune(f *Factory) *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:   "prune",
		Short: "Remove kernel containers left behind by analyst processes that were killed",
		Long: `Every kernel container is labelled with the process that started it. prune
removes those whose process is gone (with --all: every kernel container of
this user, including ones in use).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			removed, err := kernel.Prune(c.Context(), f.Runner, "", all)
			for _, r := range removed {
				fmt.Fprintf(f.IO.Out, "removed %s (started by pid %d)\n", r.Name, r.OwnerPID)
			}
			if err != nil {
				return withCode(ExitSandbox, err)
			}
			if len(removed) == 0 {
				fmt.Fprintln(f.IO.Out, "no leftover kernel containers")
			}
			return nil
		},
	}
	c.Flags().BoolVar(&all, "all", false, "remove every kernel container, also those in use")
	return c
}
