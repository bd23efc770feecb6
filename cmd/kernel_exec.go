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
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/dataset"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/internal/units"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/nbformat"
)

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

// codeFilesFolder is where, in --out DIR, the files the code writes to
// /output land: DIR/output, never DIR itself.
const codeFilesFolder = "output"

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
of at most kernel.output-size) are copied into DIR/output after each cell,
and listed: regular files only, never executable, never over a file that
was there already. DIR itself is never mounted into the sandbox: what was
in it stays out of the code's reach, and the code's files never land beside
yours (a json.py or conftest.py there would be imported by the next Python
or pytest started in DIR).

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
	c.Flags().StringVar(&opts.OutDir, "out", "", "folder for charts, and for the files the code writes to /output (in DIR/output)")
	c.Flags().BoolVar(&opts.Load, "load", false, //houserules:literal a flag's name
		"read the --data file into df first, as analyst run does")
	addSourceFlags(c, &opts.Sheet, &opts.Table)
	c.Flags().BoolVar(&opts.JSON, "json", false, "print JSON lines: one per output, one status per cell")
	c.Flags().DurationVar(&opts.Timeout, "timeout", 0, //houserules:literal a flag's name
		"timeout per cell (default: kernel.cell-timeout)")
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
	load, ds, err := execSource(opts)
	if err != nil {
		return err
	}
	if ds != nil {
		defer ds.Close()
	}
	setup, err := f.KernelSetup(ctx)
	if err != nil {
		return err
	}
	kopts := setup.Options
	kopts.Data = opts.Data
	if opts.OutDir != "" {
		kopts.OutputDir = filepath.Join(opts.OutDir, codeFilesFolder)
	}
	if ds != nil {
		kopts = ds.KernelOptions(kopts, kopts.OutputDir)
	}
	k, err := kernel.Start(ctx, kopts)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		return withCode(ExitSandbox, err)
	}
	defer k.Close()

	if err := execLoad(ctx, f, k, opts, load); err != nil {
		return err
	}
	p := &execPrinter{io: f, json: opts.JSON, outDir: opts.OutDir}
	for i, cell := range splitCells(code) {
		ex, err := k.Execute(ctx, cell, kernel.ExecOptions{Timeout: opts.Timeout})
		if ex != nil {
			if perr := p.print(i+1, ex); perr != nil {
				return perr
			}
			p.listFiles(kopts.OutputDir, k.OutputFiles())
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

// execLoad runs the loader's cells (--load): a data error exits 3.
func execLoad(ctx context.Context, f *Factory, k *kernel.Kernel, opts *KernelExecOptions, load []string) error {
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
	listed map[string]int64 // files the code wrote, as listed: their size
}

// listFiles says, in text mode, which files the code wrote to /output
// (copied into dir) since the last cell: what it put on the host.
func (p *execPrinter) listFiles(dir string, files []kernel.OutputFile) {
	if p.json {
		return
	}
	if p.listed == nil {
		p.listed = map[string]int64{}
	}
	for _, f := range files {
		if n, ok := p.listed[f.Name]; ok && n == f.Bytes {
			continue
		}
		p.listed[f.Name] = f.Bytes
		fmt.Fprintf(p.io.IO.Out, "[file written by the code: %s] %s\n", units.Rounded(f.Bytes), filepath.Join(dir, f.Name))
	}
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
		case nbformat.OutputStream:
			w := out
			if o.Name == "stderr" {
				w = errOut
			}
			fmt.Fprint(w, o.Text)
		case nbformat.OutputExecuteResult, nbformat.OutputDisplayData:
			if _, ok := o.Data[nbformat.MimeChart]; ok {
				continue // charts are listed below
			}
			if s, ok := o.DataString(nbformat.MimePlain); ok {
				fmt.Fprintln(out, s)
			}
		case nbformat.OutputError:
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
		if err := c.WriteFiles(base); err != nil {
			return err
		}
		if w != nil {
			fmt.Fprintf(w, "%s] %s.png\n", label, base)
		}
	}
	return nil
}

// execSource checks --load, --sheet and --table against the data file, and
// opens it as analyst run does (converting a Parquet file); nil for data
// mounted as it is. load is the loader's cells to run first.
func execSource(opts *KernelExecOptions) (load []string, ds *dataset.Dataset, err error) {
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
	in, err := dataset.CheckFile(opts.Data)
	if err != nil {
		return nil, nil, withCode(ExitBadData, err)
	}
	if ds, err = dataset.Open(in, opts.Sheet, opts.Table, eda.LoadOptions{}); err != nil {
		return nil, nil, runError(err)
	}
	if !opts.Load {
		return nil, ds, nil
	}
	for _, st := range ds.LoadStages(nil)[:2] {
		for _, c := range st.Cells {
			if !c.Markdown && (slices.Contains(c.Tags, eda.TagSetup) || slices.Contains(c.Tags, eda.TagLoadData)) {
				load = append(load, c.Code())
			}
		}
	}
	return load, ds, nil
}
