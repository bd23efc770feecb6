package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/internal/atomicfile"
	"github.com/analyst-cli/analyst/internal/units"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/host"
	"github.com/analyst-cli/analyst/kernel/image"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/pipeline"
)

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
	c.AddCommand(newCmdKernelBuild(f))
	c.AddCommand(newCmdKernelInfo(f))
	c.AddCommand(newCmdKernelExec(f, nil))
	c.AddCommand(newCmdKernelShell(f))
	c.AddCommand(newCmdKernelPrune(f))
	return c
}

func newCmdKernelBuild(f *Factory) *cobra.Command {
	var force bool
	c := &cobra.Command{
		Use:   "build",
		Short: "Build the kernel image from Debian's packages (cached)",
		Long: `Build the kernel's root filesystem with debootstrap (as root) or mmdebstrap
(without root) from Debian's packages, and cache it under the cache folder,
keyed by a hash of the recipe. A second build with the same recipe does
nothing; --force rebuilds. An interrupted build leaves no image behind.`,
		Example: "  analyst kernel build\n  ANALYST_CACHE_DIR=/var/cache/analyst analyst kernel build --force",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			b := &image.Builder{Runner: f.Runner, CacheDir: cfg.CacheDir, Progress: f.IO.ErrOut}
			start := time.Now()
			img, err := b.Build(c.Context(), image.DefaultRecipe(), force)
			if err != nil {
				if errors.Is(err, context.Canceled) {
					return err
				}
				return withCode(ExitSandbox, err)
			}
			fmt.Fprintf(f.IO.Out, "kernel image %s ready in %s: %s (%s)\n", img.Manifest.ID(),
				time.Since(start).Round(time.Second), img.RootFS, units.Bytes(img.Manifest.SizeBytes))
			return nil
		},
	}
	c.Flags().BoolVar(&force, "force", false, "rebuild even if a cached image exists")
	return c
}

// kernelSetup is what starting a kernel needs on this host.
type kernelSetup struct {
	Options kernel.Options
	Image   *image.Image
	Host    *host.Info
}

// kernelSetup finds the image, probes the host and resolves the options.
func (f *Factory) kernelSetup(ctx context.Context) (*kernelSetup, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	img, err := image.Lookup(cfg.CacheDir, image.DefaultRecipe())
	if err != nil {
		return nil, withCode(ExitSandbox, err)
	}
	return f.kernelSetupFor(ctx, cfg, img)
}

// kernelSetupFor is kernelSetup with a given image (analyst verify re-runs
// in the image a run recorded).
func (f *Factory) kernelSetupFor(ctx context.Context, cfg *Config, img *image.Image) (*kernelSetup, error) {
	info, err := host.Probe(ctx, f.Runner, img.RootFS, cfg.CacheDir)
	if err != nil {
		return nil, withCode(ExitSandbox, err)
	}
	runtime := cfg.Runtime
	if runtime == "" {
		runtime = info.Runtime
	}
	if runtime == "" {
		return nil, withCode(ExitSandbox, fmt.Errorf("no OCI runtime works with podman here (%s); run: analyst doctor", runtimeErrors(info)))
	}
	return &kernelSetup{Image: img, Host: info, Options: f.kernelOptions(cfg, img, info, runtime)}, nil
}

// versions are the image's python and library versions, as the model is
// told them.
func (s *kernelSetup) versions() map[string]string {
	v := map[string]string{"python": s.Image.Manifest.Python}
	for k, ver := range s.Image.Manifest.Packages {
		v[k] = ver
	}
	return v
}

// kernelOptions are the options of a kernel on this host with this image.
// img may be nil (doctor without an image): RootFS is then empty.
func (f *Factory) kernelOptions(cfg *Config, img *image.Image, info *host.Info, runtime string) kernel.Options {
	rootfs := ""
	if img != nil {
		rootfs = img.RootFS
	}
	return kernel.Options{
		RootFS:        rootfs,
		Runtime:       runtimeArg(runtime, info),
		Limits:        cfg.Limits,
		CgroupLimits:  info.Enforced.Memory && info.Enforced.Pids,
		RequireLimits: cfg.RequireLimits,
		Rootless:      info.Rootless,
		Runner:        f.Runner,
	}
}

// runtimeArg is what podman's --runtime gets: the probed binary's path when
// the probe chose it, else the configured name or path as given.
func runtimeArg(runtime string, info *host.Info) string {
	if runtime == info.Runtime && info.RuntimePath != "" {
		return info.RuntimePath
	}
	return runtime
}

// perProcessNote says plainly what rlimits do not bound: the total.
func perProcessNote(o kernel.Options) string {
	l := o.Limits
	return fmt.Sprintf("memory is limited per process only; worst case = limit × process limit = %s × %d = %s (set kernel.require-limits to refuse such hosts)",
		units.Bytes(l.MemoryBytes), l.Pids, units.Bytes(l.MemoryBytes*int64(l.Pids)))
}

func runtimeErrors(info *host.Info) string {
	var parts []string
	for name, why := range info.RuntimeErrors {
		parts = append(parts, name+": "+why)
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "none found"
	}
	return strings.Join(parts, "; ")
}

func newCmdKernelInfo(f *Factory) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "info",
		Short: "Show the kernel image, its package versions and the limits this host enforces",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			setup, err := f.kernelSetup(c.Context())
			if err != nil {
				return err
			}
			m := setup.Image.Manifest
			enf := setup.Options.Enforcement()
			if asJSON {
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
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

// KernelExecOptions are the inputs of `analyst kernel exec`.
type KernelExecOptions struct {
	Data    string
	Load    bool // read Data into df first, as analyst run does
	Sheet   string
	Table   string
	Code    string
	File    string
	OutDir  string
	JSON    bool
	Timeout time.Duration
}

func newCmdKernelExec(f *Factory, runF func(context.Context, *KernelExecOptions) error) *cobra.Command {
	opts := &KernelExecOptions{}
	c := &cobra.Command{
		Use:   "exec [--data FILE] [--json] [--out DIR] (-c CODE | FILE | -)",
		Short: "Run Python code in a fresh sandbox and print its outputs",
		Long: `Run code in a fresh kernel and print what it produced: streams, values, charts
and errors. A file may hold several cells separated by lines starting with
"# %%"; they run in one kernel, in order, and stop at the first error.

Charts come back without savefig: every matplotlib figure shown or left open
is captured. With --out DIR they are saved there as PNG and JSON
descriptions, and the files the code writes to /output (a scratch folder
of at most kernel.output-size) are copied into DIR after each cell: regular
files only, never over a file DIR already had. DIR itself is never mounted
into the sandbox: what was in it stays out of the code's reach.

With --load, the data file is first read into df by analyst run's loader (any
format analyst run reads; --sheet and --table as there). A Parquet file is
converted to typed NumPy columns before the kernel starts (the kernel has no
pyarrow); they are mounted read-only at /data/NAME.columns.`,
		Example: `  analyst kernel exec -c 'print(1 + 1)'
  analyst kernel exec --data sales.csv -c 'pd.read_csv("/data/sales.csv").describe()'
  analyst kernel exec --data sales.csv --out charts analysis.py
  analyst kernel exec --data sales.parquet --load -c 'df.dtypes'
  echo 'import sys; print(sys.version)' | analyst kernel exec --json -`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErrorf("kernel exec takes at most one FILE, got %d arguments", len(args))
			}
			if (opts.Code != "") == (len(args) == 1) {
				return usageErrorf("give exactly one of -c CODE or FILE (use - for standard input)")
			}
			if len(args) == 1 {
				opts.File = args[0]
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return kernelExecRun(c.Context(), f, opts)
		},
	}
	c.Flags().StringVarP(&opts.Code, "code", "c", "", "code to run")
	c.Flags().StringVar(&opts.Data, "data", "", "file or folder to mount read-only at /data")
	c.Flags().StringVar(&opts.OutDir, "out", "", "folder for charts and for the files the code writes to /output")
	c.Flags().BoolVar(&opts.Load, "load", false, "read the --data file into df first, as analyst run does")
	addSourceFlags(c, &opts.Sheet, &opts.Table)
	c.Flags().BoolVar(&opts.JSON, "json", false, "print JSON lines: one per output, one status per cell")
	c.Flags().DurationVar(&opts.Timeout, "timeout", 0, "timeout per cell (default: kernel.cell-timeout)")
	addKernelFlags(c)
	return c
}

func kernelExecRun(ctx context.Context, f *Factory, opts *KernelExecOptions) error {
	code := opts.Code
	if opts.File != "" {
		var b []byte
		var err error
		if opts.File == "-" {
			b, err = io.ReadAll(f.IO.In)
		} else {
			b, err = os.ReadFile(opts.File)
		}
		if err != nil {
			return usageErrorf("reading code: %v", err)
		}
		code = string(b)
	}
	if opts.Data != "" {
		if _, err := os.Stat(opts.Data); err != nil {
			return withCode(ExitBadData, fmt.Errorf("data: %w", err))
		}
	}
	load, conv, err := execSource(opts)
	if err != nil {
		return err
	}
	if conv != nil {
		defer conv.Remove()
	}
	setup, err := f.kernelSetup(ctx)
	if err != nil {
		return err
	}
	kopts := setup.Options
	kopts.Data = opts.Data
	kopts.OutputDir = opts.OutDir
	if conv != nil {
		kopts.Mounts = append(kopts.Mounts, conv.Mount())
	}
	k, err := kernel.Start(ctx, kopts)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		return withCode(ExitSandbox, err)
	}
	defer k.Close()

	p := &execPrinter{io: f, json: opts.JSON, outDir: opts.OutDir}
	for _, cell := range load {
		ex, err := k.Execute(ctx, cell, kernel.ExecOptions{Timeout: opts.Timeout})
		if err != nil {
			return err
		}
		if ex.Status != kernel.StatusOK {
			if ex.Error != nil && ex.Error.Name == eda.DataErrorName {
				return withCode(ExitBadData, fmt.Errorf("%s: %s", opts.Data, ex.Error.Value))
			}
			return withCode(ExitFailure, fmt.Errorf("loading %s: %s%s", opts.Data, ex.Status, causeSuffix(ex)))
		}
		if !opts.JSON {
			fmt.Fprint(f.IO.ErrOut, ex.Stdout())
		}
	}
	for i, cell := range splitCells(code) {
		ex, err := k.Execute(ctx, cell, kernel.ExecOptions{Timeout: opts.Timeout})
		if ex != nil {
			if perr := p.print(i+1, ex); perr != nil {
				return perr
			}
		}
		if err != nil {
			return err
		}
		if ex.Status != kernel.StatusOK {
			if !opts.JSON {
				fmt.Fprintf(f.IO.ErrOut, "cell %d: %s%s\n", i+1, ex.Status, causeSuffix(ex))
			}
			return silentError{code: ExitFailure}
		}
	}
	return nil
}

func causeSuffix(ex *kernel.Execution) string {
	if ex.Cause != "" {
		return ": " + ex.Cause
	}
	return ""
}

// splitCells splits code at "# %%" lines (the percent cell format of
// Jupytext, VS Code and Spyder).
func splitCells(code string) []string {
	var cells []string
	var cur []string
	flush := func() {
		c := strings.TrimSpace(strings.Join(cur, "\n"))
		if c != "" {
			cells = append(cells, strings.Join(cur, "\n"))
		}
		cur = nil
	}
	for _, line := range strings.Split(code, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "# %%") {
			flush()
			continue
		}
		cur = append(cur, line)
	}
	flush()
	if len(cells) == 0 {
		return []string{code}
	}
	return cells
}

// The JSON lines of `kernel exec --json`.
type execOutputLine struct {
	Type   string          `json:"type"` // "output"
	Cell   int             `json:"cell"`
	Output nbformat.Output `json:"output"`
}

type execStatusLine struct {
	Type           string        `json:"type"` // "status"
	Cell           int           `json:"cell"`
	Status         kernel.Status `json:"status"`
	ExecutionCount int           `json:"execution_count"`
	DurationMS     float64       `json:"duration_ms"`
	StateLost      bool          `json:"state_lost,omitempty"`
	Cause          string        `json:"cause,omitempty"`
}

// execPrinter writes a cell's outputs as text or JSON lines.
type execPrinter struct {
	io     *Factory
	json   bool
	outDir string
	charts int
}

func (p *execPrinter) print(cell int, ex *kernel.Execution) error {
	out, errOut := p.io.IO.Out, p.io.IO.ErrOut
	if p.json {
		enc := json.NewEncoder(out)
		for _, o := range ex.Outputs {
			if err := enc.Encode(execOutputLine{Type: "output", Cell: cell, Output: o}); err != nil {
				return err
			}
		}
		if err := p.saveCharts(ex, nil); err != nil {
			return err
		}
		return enc.Encode(execStatusLine{Type: "status", Cell: cell, Status: ex.Status, ExecutionCount: ex.ExecutionCount,
			DurationMS: float64(ex.Duration.Microseconds()) / 1000, StateLost: ex.StateLost, Cause: ex.Cause})
	}
	for _, o := range ex.Outputs {
		switch o.OutputType {
		case "stream":
			w := out
			if o.Name == "stderr" {
				w = errOut
			}
			fmt.Fprint(w, o.Text)
		case "execute_result", "display_data":
			if _, ok := o.Data[nbformat.MimeChart]; ok {
				continue // charts are listed below
			}
			if s, ok := o.DataString(nbformat.MimePlain); ok {
				fmt.Fprintln(out, s)
			}
		case "error":
			fmt.Fprintln(errOut, strings.Join(o.Traceback, "\n"))
		}
	}
	return p.saveCharts(ex, out)
}

// saveCharts writes each chart's PNG and description to the output folder
// and, for text output, says where.
func (p *execPrinter) saveCharts(ex *kernel.Execution, w io.Writer) error {
	for _, c := range ex.Charts() {
		p.charts++
		label := fmt.Sprintf("[chart %d: %s", p.charts, c.Kind)
		if c.Title != "" {
			label += fmt.Sprintf(" %q", c.Title)
		}
		if p.outDir == "" {
			if w != nil {
				fmt.Fprintln(w, label+"] (use --out DIR to save it)")
			}
			continue
		}
		base := filepath.Join(p.outDir, fmt.Sprintf("chart-%d", p.charts))
		if len(c.PNG) > 0 {
			if err := atomicfile.WriteFile(base+".png", c.PNG); err != nil {
				return err
			}
		}
		if err := atomicfile.WriteFile(base+".json", c.Description); err != nil {
			return err
		}
		if w != nil {
			fmt.Fprintf(w, "%s] %s.png\n", label, base)
		}
	}
	return nil
}

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
			setup, err := f.kernelSetup(c.Context())
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

// execSource checks --load, --sheet and --table against the data file, and
// converts a Parquet file. load is the loader's cells to run first.
func execSource(opts *KernelExecOptions) (load []string, conv *pipeline.Converted, err error) {
	if opts.Sheet != "" || opts.Table != "" {
		opts.Load = true
	}
	if opts.Data == "" {
		if opts.Load {
			return nil, nil, usageErrorf("--load, --sheet and --table need --data FILE")
		}
		return nil, nil, nil
	}
	fi, err := os.Stat(opts.Data)
	if err != nil || fi.IsDir() || (!opts.Load && !strings.HasSuffix(strings.ToLower(opts.Data), ".parquet")) {
		if opts.Load {
			return nil, nil, usageErrorf("--load needs --data to be one data file")
		}
		return nil, nil, nil // a folder or any file, mounted as it is
	}
	in, err := pipeline.CheckInput(opts.Data)
	if err != nil {
		return nil, nil, withCode(ExitBadData, err)
	}
	if err := in.CheckSource(opts.Sheet, opts.Table); err != nil {
		return nil, nil, withCode(ExitUsage, err)
	}
	src := eda.Source{Path: kernel.DataMount + "/" + in.Name, Sheet: opts.Sheet, Table: opts.Table}
	if in.Format == "parquet" {
		if conv, err = pipeline.ConvertParquet(in); err != nil {
			return nil, nil, withCode(ExitBadData, err)
		}
		src.Converted, src.Converter = conv.Target, conv.Schema.Converter
	}
	if !opts.Load {
		return nil, conv, nil
	}
	for _, st := range []eda.Stage{eda.Setup(), eda.LoadFrom(src)} {
		for _, c := range st.Cells {
			if !c.Markdown && (slices.Contains(c.Tags, eda.TagSetup) || slices.Contains(c.Tags, eda.TagLoadData)) {
				load = append(load, c.Source)
			}
		}
	}
	return load, conv, nil
}
