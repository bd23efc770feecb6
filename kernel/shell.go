package kernel

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/analyst-cli/analyst/internal/command"
)

// shellPreload is what an interactive shell imports first, like the driver.
const shellPreload = "import numpy as np, pandas as pd, matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot as plt"

// Shell runs an interactive IPython in a sandbox with the same isolation and
// mounts as a kernel, attached to the given streams, until it exits. It is
// for debugging what the kernel sees; nothing is captured.
func Shell(ctx context.Context, opts Options, tty bool, in io.Reader, out, errOut io.Writer) error {
	args, cleanup, err := SandboxArgs(opts, tty, "ipython3", "--no-banner", "--no-confirm-exit", "--quick", "-i", "-c", shellPreload)
	if err != nil {
		return err
	}
	defer cleanup()
	runner, podman := opts.Runner, opts.Podman
	if runner == nil {
		runner = command.Exec{}
	}
	if podman == "" {
		podman = "podman"
	}
	cmd := runner.Command(ctx, podman, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, errOut
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("kernel shell: %w", err)
	}
	return nil
}

// SandboxArgs returns podman's arguments (after "podman") to run entry once,
// with --rm, in a sandbox with the isolation, limits and mounts a kernel with
// these options gets; cleanup removes the files prepared for it. Nothing is
// copied out of /output: a one-off run keeps no files.
func SandboxArgs(opts Options, tty bool, entry ...string) (args []string, cleanup func(), err error) {
	k := &Kernel{opts: opts, limits: opts.Limits.withDefaults(), name: namePrefix + "once-" + randomHex(4)}
	cleanup = k.cleanupFiles
	if err := k.prepareMounts(); err != nil {
		cleanup()
		return nil, nil, err
	}
	args, err = k.sandboxArgs(tty, entry...)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	i := slices.Index(args, "run")
	return slices.Insert(args, i+1, "--rm"), cleanup, nil
}
