package kernel

import (
	"context"
	"fmt"
	"io"

	"github.com/analyst-cli/analyst/internal/command"
)

// shellPreload is what an interactive shell imports first, like the driver.
const shellPreload = "import numpy as np, pandas as pd, matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot as plt"

// Shell runs an interactive IPython in a sandbox with the same isolation and
// mounts as a kernel, attached to the given streams, until it exits. It is
// for debugging what the kernel sees; nothing is captured.
func Shell(ctx context.Context, opts Options, tty bool, in io.Reader, out, errOut io.Writer) error {
	k := &Kernel{opts: opts, limits: opts.Limits.withDefaults(), name: namePrefix + "shell-" + randomHex(4), runner: opts.Runner, podman: opts.Podman}
	if k.runner == nil {
		k.runner = command.Exec{}
	}
	if k.podman == "" {
		k.podman = "podman"
	}
	if err := k.prepareMounts(); err != nil {
		k.cleanupFiles()
		return err
	}
	defer k.cleanupFiles()
	defer k.restoreOutputOwner()
	args, err := k.sandboxArgs(tty, "ipython3", "--no-banner", "--no-confirm-exit", "--quick", "-i", "-c", shellPreload)
	if err != nil {
		return err
	}
	args = append(args[:0:0], args...)
	// --rm: the shell's container goes when the shell ends.
	for i, a := range args {
		if a == "run" {
			args = append(args[:i+1], append([]string{"--rm"}, args[i+1:]...)...)
			break
		}
	}
	cmd := k.runner.Command(ctx, k.podman, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, errOut
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("kernel shell: %w", err)
	}
	return nil
}
