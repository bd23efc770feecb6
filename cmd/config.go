package cmd

import (
	"context"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// configKeys are the settings `analyst config` lists, in order.
var configKeys = []string{keyModel, keyBaseURL, keyMaxTurns, keyReflectRounds, keyExplore, keyGoals, keyRunTimeout, keyFirstTokenTimeout, keyIdleTimeout, keyVision, keyContextLength, keyMaxReplyTokens, keyNAValues, keyOutOfCore, keyFailOn, keyCacheDir, keyRuntime, keyMemory, keyPids, keyCPUs, keyTmpSize, keyOutputSize, keyRequireLims, keyCellTimeout}

// ConfigOptions are the inputs of `analyst config` (none but the kernel
// flags, which it reports as set).
type ConfigOptions struct {
	cmd *cobra.Command // where a flag's value comes from
}

func newCmdConfig(f *Factory, runF func(context.Context, *ConfigOptions) error) *cobra.Command {
	opts := &ConfigOptions{}
	c := &cobra.Command{
		Use:   "config",
		Short: "Show the configuration in effect and where each value comes from",
		Long: `Show each setting, its value and its source: flag, env (ANALYST_*), file
(the config file, YAML) or default. A key such as kernel.memory is written in
the file as

  kernel:
    memory: 4GiB

and in the environment as ANALYST_KERNEL_MEMORY.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.cmd = c
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runConfig(f, opts)
		},
	}
	addKernelFlags(c)
	return c
}

func runConfig(f *Factory, opts *ConfigOptions) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	file := cfg.File
	if file == "" {
		file = "none (looked for " + defaultConfigFile() + ")"
	}
	fmt.Fprintf(f.IO.Out, "config file: %s\n", file)
	w := tabwriter.NewWriter(f.IO.Out, 0, 0, 2, ' ', 0)
	for _, key := range configKeys {
		value := f.viper.GetString(key)
		if key == keyCacheDir && value == "" {
			value = cfg.CacheDir
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", key, value, f.source(opts.cmd, key))
	}
	return w.Flush()
}

// source says where the value of key comes from.
func (f *Factory) source(c *cobra.Command, key string) string {
	changed := false
	mark := func(fl *pflag.Flag) {
		if keys, ok := fl.Annotations[viperKey]; ok && keys[0] == key && fl.Changed {
			changed = true
		}
	}
	c.Flags().VisitAll(mark)
	c.InheritedFlags().VisitAll(mark)
	env := envName(key)
	switch {
	case changed:
		return "flag"
	case os.Getenv(env) != "":
		return "env " + env
	case f.viper.InConfig(key):
		return "file"
	default:
		return "default"
	}
}
