package pipeline

import (
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
)

// Dataset is a checked input made ready for a kernel: the file, its
// Parquet conversion if it needs one, and where and how the kernel's loader
// reads it. analyst run and each analyst eval case open it the same way.
type Dataset struct {
	In     *Input
	Source eda.Source
	conv   *Converted // a Parquet file's columns, or nil
}

// OpenDataset makes the checked input in ready for a kernel: it checks the
// sheet or table asked for (an *InputError), and converts a Parquet file
// (an *InputError when it cannot be read as Parquet). Close removes what it
// made.
func OpenDataset(in *Input, sheet, table string, load eda.LoadOptions) (*Dataset, error) {
	if err := in.CheckSource(sheet, table); err != nil {
		return nil, err
	}
	d := &Dataset{In: in, Source: eda.Source{Path: kernel.DataMount + "/" + in.Name, Sheet: sheet, Table: table, LoadOptions: load}}
	if in.Format == "parquet" {
		conv, err := ConvertParquet(in)
		if err != nil {
			return nil, err
		}
		d.conv = conv
		d.Source.Converted, d.Source.Converter = conv.Target, conv.Schema.Converter
	}
	return d, nil
}

// KernelOptions are opts with the dataset mounted, and the kernel's
// /output at outputDir.
func (d *Dataset) KernelOptions(opts kernel.Options, outputDir string) kernel.Options {
	opts.Data = d.In.Path
	opts.OutputDir = outputDir
	if d.conv != nil {
		opts.Mounts = append(append([]kernel.Mount(nil), opts.Mounts...), d.conv.Mount())
	}
	return opts
}

// LoadStages are the stages every analysis of the dataset starts with:
// setup, load and profile, read out of core when ooc is set.
func (d *Dataset) LoadStages(ooc *eda.OutOfCore) []eda.Stage {
	if ooc != nil {
		return []eda.Stage{eda.Setup(), eda.LoadOutOfCore(d.Source, *ooc), eda.ProfileOutOfCore()}
	}
	return []eda.Stage{eda.Setup(), eda.LoadFrom(d.Source), eda.ProfileStage()}
}

// Close removes the files OpenDataset made.
func (d *Dataset) Close() error {
	if d.conv == nil {
		return nil
	}
	return d.conv.Remove()
}
