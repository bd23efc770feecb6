package dataset

import (
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/internal/meminfo"
	"github.com/analyst-cli/analyst/internal/units"
)

// FrameEstimate is how much memory the data will take once loaded as a
// pandas DataFrame, estimated on the host before any kernel starts. The
// out-of-core path reads it to decide whether the data fits.
type FrameEstimate struct {
	// Bytes is the frame's size as pandas counts it,
	// df.memory_usage(deep=True).sum().
	Bytes int64
	// Rows is the estimated number of rows; 0 when not estimated.
	Rows int64
	// Method says how: "a sample of 61,234 rows (4 MiB)", "4 × the file's size (xlsx)".
	Method string
}

// Memory the kernel needs besides the frame, and for working on it; measured
// with the sales data (docs/benchmarks.md, "Big files"): Python with pandas
// and matplotlib imported takes about 250 MiB, and the load and profile peak
// at about 1.3 times the frame's size.
const (
	kernelBaseBytes = 320 << 20
	workFactor      = 1.5
)

// PeakBytes is the memory the kernel needs to load and profile the frame.
func (e FrameEstimate) PeakBytes() int64 {
	return kernelBaseBytes + int64(float64(e.Bytes)*workFactor)
}

// Fits says whether the frame can be loaded and profiled under limit bytes.
func (e FrameEstimate) Fits(limit int64) bool { return e.PeakBytes() <= limit }

// MemoryError is data that would not fit in the kernel's memory limit,
// found before the kernel starts. Its message says what to change.
type MemoryError struct {
	Path     string
	Bytes    int64 // the file's size
	Estimate FrameEstimate
	Limit    int64
	// Delimited says the file is CSV or TSV, which the run could read out
	// of core (it was told not to: --out-of-core=false).
	Delimited bool
	// Folder says the data is a folder, whose tables are loaded together.
	Folder bool
}

func (e *MemoryError) Error() string {
	raise := fmt.Sprintf("raise the limit with --memory %s (config key kernel.memory, environment ANALYST_KERNEL_MEMORY)", units.Flag(e.Estimate.PeakBytes()))
	if in, err := meminfo.Read(); err == nil && e.Estimate.PeakBytes() > in.Total*9/10 {
		raise = fmt.Sprintf("this host has %s of RAM, too little to hold it", units.Bytes(in.Total))
	}
	outOfCore := "analyse it out of core with --out-of-core (the statistics computed in chunks, the model working on a sample)"
	what := "the file is " + units.Bytes(e.Bytes)
	switch {
	case e.Folder:
		what = "its tables and documents are " + units.Bytes(e.Bytes) + " (its tables are loaded together, whole)"
		outOfCore = "analyse its big tables one at a time (analyst run FOLDER/TABLE.csv reads a CSV file out of core when it will not fit)"
	case !e.Delimited:
		outOfCore = "export it as CSV, which analyst analyses out of core when it will not fit (the statistics computed in chunks, the model working on a sample)"
	}
	return fmt.Sprintf("%s: the data will not fit in the kernel's memory: %s; as a pandas DataFrame it would take about %s "+
		"(estimated from %s), and loading and profiling it about %s, more than the kernel's memory limit of %s. "+
		"Either %s, or %s",
		e.Path, what, units.Bytes(e.Estimate.Bytes), e.Estimate.Method, units.Bytes(e.Estimate.PeakBytes()),
		units.Bytes(e.Limit), raise, outOfCore)
}

// UsageError is a combination of options and data the run cannot honour,
// found before anything starts.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// estimateSample is how much of a text file (decompressed) the estimate reads.
const estimateSample = 4 << 20

// binaryFactors are frame size over file size for the formats estimated
// without reading them: generous, since a wrong "fits" costs a killed
// kernel and a wrong "does not fit" only a flag. Compressed formats
// (xlsx, ods, parquet) hold many times their size.
var binaryFactors = map[string]int64{
	"xlsx": 10, "ods": 10, "parquet": 8, "json": 4, "sav": 4, "dta": 3, "sas7bdat": 3, "xpt": 3, "xls": 3, "sqlite": 3,
}

// EstimateFrame estimates the DataFrame the loader will make of the file:
// for CSV and TSV from a sample of the first rows (see estimateCSV), for
// other formats as a factor of the file's size.
func EstimateFrame(path, format string, size int64) (*FrameEstimate, error) {
	if format != "csv" {
		factor, ok := binaryFactors[format]
		if !ok {
			factor = 4
		}
		return &FrameEstimate{Bytes: factor * size, Method: fmt.Sprintf("%d × the file's size (%s)", factor, format)}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return estimateCSV(f, size)
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// estimateCSV reads up to estimateSample bytes of the (decompressed) text,
// sizes each column of the sampled rows as pandas holds it, and scales by
// the share of the file the sample is.
func estimateCSV(r io.Reader, size int64) (*FrameEstimate, error) {
	raw := &countingReader{r: r}
	head := make([]byte, 4)
	n, _ := io.ReadFull(raw, head)
	var text io.Reader = io.MultiReader(bytes.NewReader(head[:n]), raw)
	switch {
	case bytes.HasPrefix(head, []byte("\x1f\x8b")):
		zr, err := gzip.NewReader(text)
		if err != nil {
			return nil, err
		}
		text = zr
	case bytes.HasPrefix(head, []byte("BZh")):
		text = bzip2.NewReader(text)
	case bytes.HasPrefix(head, []byte("\xfd7zXZ")):
		// No xz reader in Go: as a factor, like the binary formats.
		return &FrameEstimate{Bytes: 20 * size, Method: "20 × the file's size (xz-compressed)"}, nil
	}
	sample, err := io.ReadAll(io.LimitReader(text, estimateSample))
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("reading a sample to estimate the memory needed: %w", err)
	}
	whole := len(sample) < estimateSample
	if !whole {
		if i := bytes.LastIndexByte(sample, '\n'); i > 0 {
			sample = sample[:i+1]
		}
	}
	sample = bytes.TrimPrefix(sample, []byte("\xef\xbb\xbf"))
	records := fromHeader(csvRecords(sample))
	if len(records) < 2 {
		return &FrameEstimate{Bytes: 4 * size, Method: "4 × the file's size (too few rows to sample)"}, nil
	}
	header, rows := records[0], records[1:]
	perRow := int64(0)
	for c := range header {
		perRow += columnBytes(rows, c)
	}
	est := int64(len(rows))
	if !whole {
		// The rows in the rest of the file, at the sample's bytes per row
		// (of the compressed file, for a compressed one).
		est = int64(float64(len(rows)) * float64(size) / float64(raw.n))
	}
	return &FrameEstimate{
		Bytes:  est*perRow + 132, // + pandas' RangeIndex
		Rows:   est,
		Method: fmt.Sprintf("a sample of its first %s rows (%s)", thousands(len(rows)), units.Bytes(int64(len(sample)))),
	}, nil
}

// csvRecords splits the sample with the delimiter that gives the most rows
// of the most common width (as the loader's sniffer prefers).
func csvRecords(sample []byte) [][]string {
	var best [][]string
	bestScore := -1
	for _, d := range []rune{',', ';', '\t', '|'} {
		cr := csv.NewReader(bytes.NewReader(sample))
		cr.Comma, cr.LazyQuotes, cr.FieldsPerRecord, cr.ReuseRecord = d, true, -1, false
		var recs [][]string
		for {
			rec, err := cr.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				continue
			}
			recs = append(recs, rec)
		}
		if len(recs) == 0 {
			continue
		}
		width := modalWidth(recs)
		score := 0
		for _, rec := range recs {
			if len(rec) == width {
				score++
			}
		}
		if width < 2 {
			score = 0
		}
		if score > bestScore {
			best, bestScore = recs, score
		}
	}
	return best
}

// modalWidth is the most common number of fields of recs (the smallest of
// equals).
func modalWidth(recs [][]string) int {
	counts := map[int]int{}
	best := 0
	for _, rec := range recs {
		counts[len(rec)]++
	}
	for w, n := range counts {
		if n > counts[best] || (n == counts[best] && w < best) {
			best = w
		}
	}
	return best
}

// fromHeader drops the records above the first one of the table's width:
// title or comment lines above the header, which the loader skips too.
func fromHeader(recs [][]string) [][]string {
	width := modalWidth(recs)
	for i, rec := range recs {
		if len(rec) == width {
			return recs[i:]
		}
	}
	return recs
}

var dateLike = regexp.MustCompile(`^\s*(\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})([ T]\d|$)`)

// columnBytes is the average size of column c per row, as pandas holds it:
// 8 bytes for numbers and dates (int64, float64, datetime64), 1 for
// booleans, and for text an 8-byte pointer plus the Python string object
// (CPython 3.12+: 41 bytes plus one per character for ASCII, 57 plus one,
// two or four bytes per character otherwise) — as memory_usage(deep=True)
// counts them, each row's string on its own.
func columnBytes(rows [][]string, c int) int64 {
	var present, ints, floats, bools, dates int
	var text int64
	for _, row := range rows {
		if c >= len(row) || strings.TrimSpace(row[c]) == "" {
			text += 8 + 24 // missing in a text column: a float NaN object
			continue
		}
		v := strings.TrimSpace(row[c])
		present++
		text += 8 + pyStrBytes(row[c])
		switch {
		case isInt(v):
			ints++
		case isFloat(v):
			floats++
		case v == "True" || v == "False" || v == "true" || v == "false" || v == "TRUE" || v == "FALSE":
			bools++
		case dateLike.MatchString(v):
			dates++
		}
	}
	switch {
	case present == 0:
		return 8 // all missing: float64 NaN
	case ints+floats == present:
		return 8
	case bools == present && present == len(rows):
		return 1
	case float64(dates) >= 0.9*float64(present):
		return 8
	}
	return (text + int64(len(rows)) - 1) / int64(len(rows))
}

func isInt(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

func isFloat(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// pyStrBytes is sys.getsizeof of s as a CPython 3.12+ str.
func pyStrBytes(s string) int64 {
	n, widest := 0, rune(0)
	for _, r := range s {
		n++
		widest = max(widest, r)
	}
	switch {
	case widest < 0x80:
		return int64(41 + n)
	case widest < 0x100:
		return int64(57 + n)
	case widest < 0x10000:
		return int64(58 + 2*n)
	default:
		return int64(60 + 4*n)
	}
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// inMemoryFactor and gzipFactor estimate the frame when no sample of the
// file could be read: a delimited text file takes about 4.5 times its size
// as a DataFrame (text columns as Python strings: the sales example's 66
// bytes a row become 300), and gzip shrinks such text about 4 times.
const (
	inMemoryFactor = 5
	gzipFactor     = 4
)

// Estimate is the memory the data will take loaded whole: the
// estimate from a sample of the file (Input.Frame) when there is one, else
// a conservative factor of the file's size.
func (in *Input) Estimate() FrameEstimate {
	if in.Frame != nil {
		return *in.Frame
	}
	factor := int64(inMemoryFactor)
	if name := strings.ToLower(in.Name); strings.HasSuffix(name, ".gz") || strings.HasSuffix(name, ".gzip") {
		factor *= gzipFactor
	}
	return FrameEstimate{Bytes: factor * in.Bytes, Method: fmt.Sprintf("%d × the file's size, no sample of it could be read", factor)}
}
