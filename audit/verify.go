package audit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/image"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/runrecord"
)

// Options configure a verification.
type Options struct {
	// Data is the dataset to re-run on; empty: the path run.json records.
	Data string
	// Kernel is the sandbox of the re-run, its RootFS the recorded image
	// (see FindImage). Data and OutputDir are set by Verify.
	Kernel kernel.Options
	// ImageNote is said in the report when the image is not the recorded one.
	ImageNote   string
	CellTimeout time.Duration
	// AllowedSigners, if set, is an ssh allowed-signers file that must
	// accept run.json's signature (NAME.run.json.sig).
	AllowedSigners string
	// Cell, if set, is told each cell's verdict as it is reached.
	Cell func(CellCheck)
	// Render, if set, renders the run's report and chart files again from
	// its notebook and run.json (pipeline.Render): their bytes by path
	// relative to the run's folder. Each must be the file the run wrote.
	Render func(nb *nbformat.Notebook) (map[string][]byte, error)
}

// Report is what verify found. OK is true when every file, cell and answer
// matches.
type Report struct {
	Run     string        `json:"run"`
	OK      bool          `json:"ok"`
	Data    DataCheck     `json:"data"`
	Image   ImageCheck    `json:"image"`
	Files   []FileCheck   `json:"files"`
	Cells   []CellCheck   `json:"cells"`
	Answers []AnswerCheck `json:"answers"`
	// Numbers are the answers' numbers run.json traced to cells, checked
	// in those cells.
	Numbers []NumberCheck `json:"numbers,omitempty"`
	// Rendered are the report and chart files against what the notebook
	// and run.json render (Options.Render); Facts are what run.json states
	// of the data and the sandbox against what the re-run found.
	Rendered []RenderCheck `json:"rendered,omitempty"`
	Facts    []FactCheck   `json:"facts,omitempty"`
	// Signature is the check of run.json's signature, when one was asked for.
	Signature *SignatureCheck `json:"signature,omitempty"`
	Duration  float64         `json:"duration_s"`

	reran map[string][]nbformat.Output // the re-run's outputs, by cell ID
}

// DataCheck is the dataset against its recorded sha256.
type DataCheck struct {
	Path   string `json:"path"`
	Status string `json:"status"` // ok, changed, missing
	Want   string `json:"want"`
	Got    string `json:"got,omitempty"`
	// Files are a folder's files that are not as recorded, each with why.
	Files []string `json:"files,omitempty"`
}

// ImageCheck is the kernel image of the re-run.
type ImageCheck struct {
	Recorded string `json:"recorded"`
	Used     string `json:"used"`
	Note     string `json:"note,omitempty"`
}

// CellCheck is one cell's verdict.
type CellCheck struct {
	Index  int      `json:"index"` // position in the notebook, from 1; 0: not in it (removed)
	ID     string   `json:"id"`
	Title  string   `json:"title"` // the source's first line
	Code   bool     `json:"code"`
	Status string   `json:"status"`
	Diffs  []string `json:"diffs,omitempty"`
}

// Cell verdicts; CellOK and CellDiffers are also those of the data, the
// files, the renderings and the facts.
const (
	CellOK      = "ok"      //houserules:literal verify's verdict: unchanged, and the re-run's outputs are the recorded ones
	CellDiffers = "differs" // the re-run's outputs are not the recorded ones
	CellEdited  = "edited"  // source, tags or outputs changed since the run
	CellAdded   = "added"   // not in the run's notebook
	CellRemoved = "removed" // in the run's notebook, gone now
	CellNotRun  = "not-run" //houserules:literal verify's verdict: the kernel could not run it (died earlier)
	CellSkipped = "skipped" // never ran in the original run either
)

// DataError is a dataset that is missing or not the recorded one (exit 3).
type DataError struct{ Msg string }

func (e *DataError) Error() string { return e.Msg }

// ImageError is a recorded kernel image that is not available (exit 5).
type ImageError struct{ Msg string }

func (e *ImageError) Error() string { return e.Msg }

// SandboxError is a kernel that could not start (exit 5).
type SandboxError struct{ Err error }

func (e *SandboxError) Error() string { return "starting the kernel: " + e.Err.Error() }
func (e *SandboxError) Unwrap() error { return e.Err }

// FindImage returns the kernel image run.json records. When it is not in
// the cache, warn picks the current recipe's image instead and says so in
// the note; otherwise the error, an *ImageError, says how to get it back.
func FindImage(cacheDir, recorded string, current image.Recipe, warn bool) (img *image.Image, note string, err error) {
	images, err := image.List(cacheDir)
	if err != nil {
		return nil, "", err
	}
	for i := range images {
		if strings.HasPrefix(images[i].Manifest.RecipeHash, recorded) && recorded != "" {
			return &images[i], "", nil
		}
	}
	cur, curErr := image.Lookup(cacheDir, current)
	if warn && curErr == nil {
		return cur, fmt.Sprintf("the recorded image %s is not in %s; re-ran in %s instead (--image-mismatch=warn): outputs may differ with its package versions",
			recorded, cacheDir, cur.Manifest.ID()), nil
	}
	msg := fmt.Sprintf("the run's kernel image %s is not in %s. Rebuild it with the analyst version that made the run (`analyst kernel build`), "+
		"or re-run in this analyst's image with --image-mismatch=warn", recorded, filepath.Join(cacheDir, "kernel"))
	if curErr != nil {
		msg += " (this analyst's image is not built either: analyst kernel build)"
	}
	return nil, "", &ImageError{Msg: msg}
}

// Verify checks run: its files against their hashes, the report and chart
// files against what the notebook and run.json render (opts.Render), the
// data against its hash, the notebook re-executed against its outputs, the
// answers against the outputs, and what run.json states of the data and the
// sandbox against what the re-run found. The error is an *DataError, *ImageError or
// *SandboxError, or the context's; the report is filled as far as verify got.
func Verify(ctx context.Context, run *Run, opts Options) (*Report, error) {
	start := time.Now()
	rec := run.Record
	rep := &Report{Run: run.Manifest, Image: ImageCheck{Recorded: rec.Image, Used: rec.Image, Note: opts.ImageNote}}
	defer func() { rep.Duration = time.Since(start).Seconds() }()
	if opts.ImageNote != "" {
		rep.Image.Used = filepath.Base(filepath.Dir(opts.Kernel.RootFS))
	}
	rep.Files = checkFiles(run)
	if opts.AllowedSigners != "" {
		rep.Signature = CheckSignature(ctx, run, opts.AllowedSigners)
		if !rep.Signature.OK {
			// A record that cannot be trusted is not worth re-running.
			rep.finish()
			return rep, nil
		}
	}

	nbPath := filepath.Join(run.Dir, rec.Outputs.Notebook)
	nb, err := nbformat.ReadFile(nbPath)
	if err != nil {
		rep.finish()
		return rep, fmt.Errorf("the notebook cannot be read, so it cannot be re-run: %w", err)
	}
	rep.Cells = checkCells(nb, rec.Cells)
	if opts.Render != nil {
		rep.Rendered = checkRendered(run, nb, opts.Render)
	}

	data, err := findData(run, opts.Data, &rep.Data)
	if err != nil {
		rep.finish()
		return rep, err
	}
	if err := rerun(ctx, nb, data, rec.Data.Name, opts, rep); err != nil {
		rep.finish()
		return rep, err
	}
	// A replay on new data is checked for the values it found in the new
	// outputs; numbers are traced in the run that wrote run.json either way.
	rep.Answers = checkAnswers(nb, rep.reran, answered(rec))
	rep.Numbers = checkNumbers(nb, rep.reran, rec.Questions)
	rep.Facts = checkFacts(rec, nb, rep.reran, opts.Kernel.Enforcement())
	rep.finish()
	return rep, nil
}

func (r *Report) finish() {
	r.OK = r.Data.Status == CellOK
	for _, f := range r.Files {
		r.OK = r.OK && f.Status == CellOK
	}
	for _, c := range r.Cells {
		r.OK = r.OK && (c.Status == CellOK || c.Status == CellSkipped)
	}
	for _, a := range r.Answers {
		r.OK = r.OK && a.Found
	}
	for _, n := range r.Numbers {
		r.OK = r.OK && n.Found
	}
	for _, f := range r.Rendered {
		r.OK = r.OK && f.Status == CellOK
	}
	for _, f := range r.Facts {
		r.OK = r.OK && f.Status == CellOK
	}
	if r.Signature != nil {
		r.OK = r.OK && r.Signature.OK
	}
}

// checkCells aligns the notebook's cells with the recorded digests by id.
func checkCells(nb *nbformat.Notebook, recorded []runrecord.Cell) []CellCheck {
	want := map[string]string{}
	for _, c := range recorded {
		want[c.ID] = c.SHA256
	}
	seen := map[string]bool{}
	var out []CellCheck
	for i, c := range nb.Cells {
		cc := CellCheck{Index: i + 1, ID: c.ID, Title: firstLine(c.Source), Code: c.CellType == nbformat.Code, Status: CellOK}
		seen[c.ID] = true
		switch sum, ok := want[c.ID]; {
		case !ok:
			cc.Status = CellAdded
			cc.Diffs = []string{"this cell is not in the run's notebook"}
		case sum != nbformat.CellDigest(c):
			cc.Status = CellEdited
			cc.Diffs = []string{"source, tags or outputs changed since the run (digest differs from run.json)"}
		}
		out = append(out, cc)
	}
	for i, c := range recorded {
		if !seen[c.ID] {
			out = append(out, CellCheck{ID: c.ID, Status: CellRemoved, Title: fmt.Sprintf("(cell %d of the run)", i+1),
				Diffs: []string{fmt.Sprintf("cell %d of the run's notebook (id %s) is gone", i+1, c.ID)}})
		}
	}
	return out
}

// runData is the data a re-run mounts: a file, or a folder's files.
type runData struct {
	file  string
	files []kernel.DataFile
}

// findData finds the dataset, a file or a folder, and checks it against
// its recorded sha256.
func findData(run *Run, given string, dc *DataCheck) (runData, error) {
	if run.Record.Data.Format == eda.FormatFolder {
		files, err := checkFolderData(run, given, dc)
		return runData{files: files}, err
	}
	file, err := checkData(run, given, dc)
	return runData{file: file}, err
}

// checkData finds the dataset file and checks its sha256; it returns the
// path to mount.
func checkData(run *Run, given string, dc *DataCheck) (string, error) {
	rec := run.Record.Data
	dc.Want = rec.SHA256
	path := given
	if path == "" {
		path = rec.Path
		if _, err := os.Stat(path); err != nil {
			// A run folder moved with its data next to it.
			if alt := filepath.Join(run.Dir, rec.Name); fileExists(alt) {
				path = alt
			}
		}
	}
	dc.Path = path
	got, err := FileSHA256(path)
	if err != nil {
		dc.Status = "missing"
		return "", &DataError{Msg: fmt.Sprintf("the run's data %s cannot be read (%v); give it with --data FILE", path, err)}
	}
	dc.Got = got
	if got != rec.SHA256 {
		dc.Status = "changed"
		return "", &DataError{Msg: fmt.Sprintf("%s is not the run's data: sha256 %s, the run recorded %s", path, got, rec.SHA256)}
	}
	dc.Status = CellOK
	return path, nil
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// rerun executes the notebook's code cells in order in a fresh kernel with
// the data at /data/NAME (a folder's files in /data), as in the run, and
// compares their outputs.
func rerun(ctx context.Context, nb *nbformat.Notebook, data runData, name string, opts Options, rep *Report) error {
	kopts := opts.Kernel
	kopts.Data, kopts.DataFiles = "", data.files
	if data.files == nil {
		mount, cleanup, err := dataMount(data.file, name)
		if err != nil {
			return err
		}
		defer cleanup()
		kopts.Data = mount
	}
	outDir, err := os.MkdirTemp("", "analyst-verify-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(outDir) // 0700: the kernel (this process) copies /output's files here
	kopts.OutputDir = outDir
	k, err := kernel.Start(ctx, kopts)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &SandboxError{err}
	}
	defer k.Close()

	rep.reran = map[string][]nbformat.Output{}
	byIndex := map[int]*CellCheck{}
	for i := range rep.Cells {
		byIndex[rep.Cells[i].Index] = &rep.Cells[i]
	}
	dead := ""
	for i, c := range nb.Cells {
		if c.CellType != nbformat.Code {
			continue
		}
		cc := byIndex[i+1]
		switch {
		case c.HasTag(nbformat.TagNotRun):
			cc.Status = CellSkipped
		case dead != "":
			cc.Status, cc.Diffs = CellNotRun, []string{dead}
		default:
			ex, err := k.Execute(ctx, c.Source, kernel.ExecOptions{Timeout: opts.CellTimeout})
			if err != nil && ctx.Err() != nil {
				return ctx.Err()
			}
			if ex == nil || ex.Status == kernel.StatusDied || ex.StateLost {
				dead = "the kernel died in an earlier cell"
				if ex != nil {
					dead += ": " + ex.Cause
				}
			}
			if ex == nil {
				cc.Status, cc.Diffs = CellNotRun, []string{fmt.Sprintf("the kernel cannot run cells: %v", err)}
				break
			}
			got, err := readBack(ex)
			if err != nil {
				return err
			}
			rep.reran[c.ID] = got
			if d := compareOutputs(c.Outputs, got); len(d) > 0 {
				if cc.Status == CellOK {
					cc.Status = CellDiffers
				}
				cc.Diffs = append(cc.Diffs, d...)
			}
		}
		if opts.Cell != nil {
			opts.Cell(*cc)
		}
	}
	return nil
}

// readBack puts a re-run's outputs through the notebook writer and reader,
// so they are in the form the recorded outputs were read in.
func readBack(ex *kernel.Execution) ([]nbformat.Output, error) {
	nb := nbformat.New()
	ex.AddToNotebook(nb)
	b, err := nbformat.Marshal(nb)
	if err != nil {
		return nil, fmt.Errorf("writing a re-run's outputs: %w", err)
	}
	back, err := nbformat.Read(strings.NewReader(string(b)))
	if err != nil {
		return nil, fmt.Errorf("reading a re-run's outputs back: %w", err)
	}
	return back.Cells[0].Outputs, nil
}

// dataMount is what to mount so the data is /data/NAME in the kernel: the
// file itself, or, when it has another name (--data), a folder holding it
// under the recorded name.
func dataMount(data, name string) (string, func(), error) {
	if filepath.Base(data) == name {
		return data, func() {}, nil
	}
	dir, err := os.MkdirTemp(filepath.Dir(data), ".analyst-verify-data-")
	if err != nil {
		dir, err = os.MkdirTemp("", "analyst-verify-data-")
	}
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(dir) } // 0700: the kernel stages its file again, in its own folder
	if err := os.Link(data, filepath.Join(dir, name)); err != nil {
		if err := copyFile(data, filepath.Join(dir, name)); err != nil {
			cleanup()
			return "", nil, fmt.Errorf("placing the data under its recorded name %s: %w", name, err)
		}
	}
	return dir, cleanup, nil
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(line); len(r) > 60 {
		line = string(r[:60]) + "…"
	}
	return line
}
