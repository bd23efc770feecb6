package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/kernel"
)

func newCmdKernelPrune(f *Factory) *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:   "prune",
		Short: "Remove kernel containers and folders left behind by analyst processes that were killed",
		Long: `Every kernel container is labelled with the analyst process that started it,
and its temporary folder ($TMPDIR/analyst-kernel-*) names it too. prune
removes those whose process is gone (with --all: every kernel container of
this user, including ones in use). Every command that starts a kernel does
the same first (without --all), and says what it removed; a run also removes
the staging folders (.NAME.run-*) that killed runs left in its output folder.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			n, err := removeLeftovers(c.Context(), f, f.IO.Out, "", all)
			if err != nil {
				return withCode(ExitSandbox, err)
			}
			if n == 0 {
				fmt.Fprintln(f.IO.Out, "no leftover kernel containers or folders")
			}
			return nil
		},
	}
	c.Flags().BoolVar(&all, "all", false, "remove every kernel container, also those in use")
	return c
}

// removeLeftovers removes the kernel containers and temporary folders of
// analyst processes that are gone (every container with all), says so on
// w, each line after prefix, and returns how many it removed.
func removeLeftovers(ctx context.Context, f *Factory, w io.Writer, prefix string, all bool) (int, error) {
	removed, err := kernel.Prune(ctx, f.Runner, "", all)
	for _, r := range removed {
		fmt.Fprintf(w, "%sremoved kernel container %s (started by analyst process %d%s)\n", prefix, r.Name, r.OwnerPID, goneNote(r.Orphan))
	}
	folders, ferr := kernel.PruneFolders(os.TempDir())
	for _, d := range folders {
		fmt.Fprintf(w, "%sremoved kernel folder %s (made by analyst process %d, which is gone)\n", prefix, d.Path, d.OwnerPID)
	}
	return len(removed) + len(folders), errors.Join(err, ferr)
}

func goneNote(orphan bool) string {
	if orphan {
		return ", which is gone"
	}
	return ", still running"
}
