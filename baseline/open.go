package baseline

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/internal/filehash"
	"github.com/analyst-cli/analyst/internal/runfile"
)

// MaxSketchBytes bounds a sketch Open reads (about 30 KB a column); the
// run.json naming it is read by runfile, within runfile.MaxBytes.
const MaxSketchBytes = 256 << 20

// SketchFile is where a run keeps its sketch, and BaselineFile the
// baseline's sketch it was compared with, in its NAME_files folder.
const (
	SketchFile   = "sketch.json"
	BaselineFile = "baseline.json"
)

// SketchRef is run.json's "sketch": the sidecar that holds the run's
// sketch (listed, with its sha256, in run.json's files).
type SketchRef struct {
	File    string `json:"file"`
	Version int    `json:"version"`
}

// Baseline is a run to compare with: its manifest, its data and its sketch.
type Baseline struct {
	Manifest string // NAME.run.json
	Data     Data
	Sketch   *Sketch
}

// Data identifies the baseline's data.
type Data struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Rows   int    `json:"rows"`
}

// Error is a baseline that cannot be compared with, and what to do.
type Error struct {
	Manifest string
	Msg      string
}

func (e *Error) Error() string { return "baseline " + e.Manifest + ": " + e.Msg }

// rerunHint says how to get a baseline this analyst compares with.
const rerunHint = "re-run the baseline with this version of analyst (analyst run OLD_DATA, or analyst replay on its run), then compare with that run"

// Open is the baseline run whose record (runrecord.Record, read by the
// caller) is at manifest, by what the record says: the analyst version
// that wrote it, its data, its sketch and its files. It reads the sketch
// named, checked against the sha256 the record lists for it, of the
// version this analyst compares. Every error is an *Error that says what
// to do.
func Open(manifest, version string, data Data, sketch *SketchRef, files []runfile.File) (*Baseline, error) {
	fail := func(format string, args ...any) error {
		return &Error{Manifest: manifest, Msg: fmt.Sprintf(format, args...)}
	}
	if sketch == nil {
		return nil, fail("it was written by analyst %s, which kept no sketch of the data for comparisons; %s", version, rerunHint)
	}
	if sketch.Version != 0 && sketch.Version != eda.SketchVersion {
		return nil, fail("%v; %s", &VersionError{Got: sketch.Version}, rerunHint)
	}
	path := filepath.Join(filepath.Dir(manifest), filepath.FromSlash(sketch.File))
	want := ""
	for _, f := range files {
		if f.Path == sketch.File {
			want = f.SHA256
		}
	}
	sum, err := filehash.SHA256(path)
	switch {
	case err != nil:
		return nil, fail("its sketch %s cannot be read (%v); copy the run's whole folder, or %s", sketch.File, err, rerunHint)
	case want == "" || sum != want:
		return nil, fail("its sketch %s is not the file the run wrote (sha256 %s, run.json records %q); %s", sketch.File, sum, want, rerunHint)
	}
	b, err := readBounded(path, MaxSketchBytes)
	if err != nil {
		return nil, fail("%v", err)
	}
	s, err := ParseSketch(b)
	var ve *VersionError
	switch {
	case errors.As(err, &ve):
		return nil, fail("%v; %s", err, rerunHint)
	case err != nil:
		return nil, fail("%s: %v; %s", sketch.File, err, rerunHint)
	}
	data.Rows = s.Rows
	return &Baseline{Manifest: manifest, Data: data, Sketch: s}, nil
}

// readBounded reads a file of at most limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooBig := fmt.Errorf("%s is larger than %d MiB: not a file analyst wrote", path, limit>>20)
	if fi, err := f.Stat(); err == nil && fi.Size() > limit {
		return nil, tooBig
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1)) // the size may change while it is read
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, tooBig
	}
	return b, nil
}
