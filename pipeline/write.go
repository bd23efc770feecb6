package pipeline

import (
	"encoding/json"

	"github.com/analyst-cli/analyst/internal/atomicfile"
	"github.com/analyst-cli/analyst/nbformat"
)

// write writes the run's outputs into the staging folder, the notebook
// first (the charts and the report are rendered from it as written) and
// run.json last, and commits them.
func (r *runner) write(res *Result) error {
	if err := r.keepSketches(); err != nil {
		return err
	}
	nbPath := r.out.path(r.name + ".ipynb")
	if err := nbformat.WriteFile(nbPath, r.nb); err != nil {
		return err
	}
	// The charts and the report are rendered from the notebook as written
	// and the facts run.json records, as analyst verify renders them again
	// (Render).
	nb, err := nbformat.ReadFile(nbPath)
	if err != nil {
		return err
	}
	charts, err := r.out.writeCharts(nb, r.name)
	if err != nil {
		return err
	}
	m := r.manifest(charts)
	if err := WriteReport(r.out.path(r.name+".html"), renderInput(m, nb, r.opts.KaTeXDir)); err != nil {
		return err
	}
	m.Model = r.manifestModel() // it counts the numbers the report traced
	if m.Files, err = r.out.written(r.name); err != nil {
		return err
	}
	m.Cells = cellDigests(nb)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(r.out.path(r.name+".run.json"), append(b, '\n')); err != nil {
		return err
	}
	files, err := r.out.commit(r.name)
	if err != nil {
		return err
	}
	res.Files = files
	res.Manifest = m
	return nil
}
