// Package cmd is analyst's command line: thin cobra commands over the
// packages that do the work.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/analyst-cli/analyst/internal/iostreams"
	"github.com/analyst-cli/analyst/internal/units"
	"github.com/analyst-cli/analyst/kernel"
)

// Main runs analyst with the process's arguments and streams and returns the
// exit code. SIGINT and SIGTERM cancel the context: commands stop their
// kernels, write what they have and exit 130.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, NewFactory(iostreams.System()), os.Args[1:])
}

// Run executes one command line and returns its exit code.
func Run(ctx context.Context, f *Factory, args []string) int {
	root := NewCmdRoot(f)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err == nil {
		return ExitOK
	}
	var se silentError
	if !errors.As(err, &se) {
		if strings.HasPrefix(err.Error(), "unknown command") || strings.HasPrefix(err.Error(), "unknown flag") {
			err = &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w\nRun 'analyst --help' for usage.", err)}
		}
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(f.IO.ErrOut, "analyst: interrupted")
		} else {
			fmt.Fprintf(f.IO.ErrOut, "analyst: %v\n", err)
		}
	}
	return exitCode(err)
}

// NewCmdRoot builds the command tree.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "analyst",
		Short: "Answer questions about data with code that runs in a sandbox",
		Long: `analyst answers questions about a dataset the way a careful analyst would: a
language model writes pandas and matplotlib code, the code runs in a sandboxed,
persistent Python kernel (a Podman container with no network and a read-only
view of the data), and the run is written out as a Jupyter notebook and an
HTML report that anyone can re-run.

Configuration comes from flags, then ANALYST_* environment variables, then the
config file (--config, ANALYST_CONFIG, or ` + "`" + `$XDG_CONFIG_HOME/analyst/config.yaml` + "`" + `), then
defaults. A flag --cell-timeout is the key kernel.cell-timeout in the file and
ANALYST_KERNEL_CELL_TIMEOUT in the environment.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(c *cobra.Command, args []string) error {
			return f.bindFlags(c)
		},
	}
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w\nRun '%s --help' for usage.", err, c.CommandPath())}
	})
	root.SetHelpTemplate(root.HelpTemplate() + "\n" + exitCodeHelp + "\n")

	pf := root.PersistentFlags()
	pf.String(keyConfig, "", "config file (default $XDG_CONFIG_HOME/analyst/config.yaml)")
	pf.String(keyCacheDir, "", "cache folder for the kernel image (default $XDG_CACHE_HOME/analyst)")
	pf.String(keyRuntime, "", "OCI runtime for podman (default: detect one that works here)")
	for _, name := range []string{keyConfig, keyCacheDir, keyRuntime} {
		_ = pf.SetAnnotation(name, viperKey, []string{name})
	}

	root.AddCommand(newCmdVersion(f, nil))
	root.AddCommand(newCmdConfig(f, nil))
	root.AddCommand(newCmdDoctor(f, nil))
	root.AddCommand(newCmdRun(f, nil))
	root.AddCommand(newCmdKernel(f))
	root.AddCommand(newCmdEval(f, nil))
	root.AddCommand(newCmdVerify(f, nil))
	root.AddCommand(newCmdReplay(f, nil))
	return root
}

// viperKey annotates a flag with the configuration key it sets.
const viperKey = "analyst/viper-key"

// bindFlags binds the running command's flags to their configuration keys,
// so a flag that is set wins over environment and file.
func (f *Factory) bindFlags(c *cobra.Command) error {
	var err error
	bind := func(fl *pflag.Flag) {
		if keys, ok := fl.Annotations[viperKey]; ok && err == nil {
			err = f.viper.BindPFlag(keys[0], fl)
		}
	}
	c.Flags().VisitAll(bind)
	c.InheritedFlags().VisitAll(bind)
	return err
}

// addKernelFlags adds the sandbox limit flags to a command that starts kernels.
func addKernelFlags(c *cobra.Command) {
	fl := c.Flags()
	fl.String("memory", "", "kernel memory limit, e.g. 8GiB (key kernel.memory; default: "+kernel.DefaultMemoryHelp+", here "+units.Bytes(kernel.DefaultMemoryBytes())+")")
	fl.Int("pids", 0, "kernel process limit (key kernel.pids)")
	fl.Float64("cpus", 0, "kernel CPU limit (key kernel.cpus)")
	fl.String("tmp-size", "", "size of the kernel's /tmp, e.g. 256MiB (key kernel.tmp-size)")
	fl.String("output-size", "", "size of the kernel's /output and most it may copy out, e.g. 256MiB (key kernel.output-size)")
	fl.Bool("require-limits", false, "refuse to start where memory and processes cannot be limited in total (key kernel.require-limits)")
	fl.Duration("cell-timeout", 0, "timeout per cell, e.g. 60s; analyst run gives its generated cells this once per started 100 MB of data (key kernel.cell-timeout)")
	for flag, key := range map[string]string{"memory": keyMemory, "pids": keyPids, "cpus": keyCPUs, "tmp-size": keyTmpSize,
		"output-size": keyOutputSize, "require-limits": keyRequireLims, "cell-timeout": keyCellTimeout} {
		_ = fl.SetAnnotation(flag, viperKey, []string{key})
	}
}
