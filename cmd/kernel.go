package cmd

import "github.com/spf13/cobra"

// newCmdKernel is `analyst kernel`; each subcommand is in its own file
// (kernel_build.go, kernel_info.go, kernel_exec.go, kernel_shell.go,
// kernel_prune.go), and what commands that start kernels share is in
// kernelsetup.go.
func newCmdKernel(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "kernel",
		Short: "Build, inspect and use the sandboxed Python kernel",
		Long: `The kernel is a persistent Python process in a Podman container: no network,
no capabilities, a read-only root filesystem, the dataset mounted read-only at
/data and a size-capped scratch folder at /output whose files are copied out. Its image is a Debian root
filesystem with pandas, matplotlib, seaborn, plotly, scipy, statsmodels and
scikit-learn, built locally from Debian's packages.`,
	}
	c.AddCommand(newCmdKernelBuild(f, nil))
	c.AddCommand(newCmdKernelInfo(f, nil))
	c.AddCommand(newCmdKernelExec(f, nil))
	c.AddCommand(newCmdKernelShell(f, nil))
	c.AddCommand(newCmdKernelPrune(f))
	return c
}
