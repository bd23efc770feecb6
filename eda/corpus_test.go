package eda

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/internal/shareddata"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

// Files as other projects' reader test suites write them (issue 35): DuckDB's
// CSV test files, read by analyst's own load cell in the real kernel.

// duckdbCorpus is DuckDB's CSV test files (shared/corpora/duckdb-csv, see the
// README there), or the test is skipped for missing data.
func duckdbCorpus(t *testing.T) string {
	t.Helper()
	return shareddata.Data{
		Name: "corpora/duckdb-csv", Env: "ANALYST_CORPORA_DUCKDB", Witness: "LICENSE",
		HowToGet: "put DuckDB's CSV test files (data/csv of github.com/duckdb/duckdb, MIT) in shared/corpora/duckdb-csv " +
			"beside the repository (shared/corpora/README.md), or set ANALYST_CORPORA_DUCKDB to their folder",
	}.Require(t)
}

// corpusReading is how analyst's loader read one file: its shape, column
// names and pandas types, or the message it refused the file with, or the
// exception it crashed with.
type corpusReading struct {
	Rows      int      `json:"rows"`
	Names     []string `json:"names"`
	Types     []string `json:"types"`
	NoHeader  bool     `json:"no_header"`
	Delimiter string   `json:"delimiter"`
	Notes     []string `json:"notes"`
	Alert     string   `json:"alert"`
	Refused   string   `json:"refused"`
	Crash     string   `json:"crash"`
}

// readingAlerts are the alert types that speak to how a file was read (a
// column typed otherwise than its values, rows or values lost or kept as
// text): those a reader of a file DuckDB reads better must be shown. The
// others (skewed, high_cardinality...) describe the data, not its reading.
var readingAlerts = []string{AlertRaggedRows, AlertJoinedLines, AlertAmbiguousNumbers, AlertTimesAsText,
	AlertExcelSerialDates, AlertAmbiguousDates, AlertDatesAsText, AlertMixedTypes, AlertEmpty,
	AlertMissingMarkers, AlertUnconverted, AlertNumbersAsText, AlertPossibleEpoch}

// corpusReader is a kernel with the load cell's functions defined (the
// generated loader without its call), the profile's cells as functions
// (a folder's notebook defines them so), and corpus_reading(path), which
// reads one file with load_table as the load cell does, runs the profile's
// columns and alerts cells on it, and prints the reading with the alerts
// that speak to it (readingAlerts).
func corpusReader(t testing.TB, dir string) *kernel.Kernel {
	t.Helper()
	k := kerneltest.Start(t, func(o *kernel.Options) { o.Data = dir })
	mustRun(t, k, Setup())
	mustRun(t, k, Stage{Name: "corpus-reader", Cells: []Cell{
		Code(loader("", "", DefaultNAValues)),
		profileFunctions(),
		Code("import contextlib, io\n\nREADING_ALERTS = " + pyList(readingAlerts) + `

def corpus_reading(path):
    global df, load_info
    try:
        frame, info = load_table(path)
    except AnalystDataError as e:
        return {"refused": str(e)[:200]}
    except Exception as e:  # a crash of the loader: the table says so
        return {"crash": f"{type(e).__name__}: {e}"[:200]}
    df, load_info = frame, info
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # the profile prints its overview; the reading is the output
            run_profile_columns()
            run_profile_alerts()
    except Exception as e:  # a crash of the profile after a correct load: the table says so too
        return {"crash": f"profile: {type(e).__name__}: {e}"[:200]}
    clip = lambda text: text[:200]  # a file's names and notes can be megabytes (DuckDB tests long lines)
    return {"rows": len(frame), "names": [clip(str(c)) for c in frame.columns], "types": [str(t) for t in frame.dtypes],
            "no_header": bool(info.get("no_header")), "delimiter": info.get("delimiter", ""),
            "notes": [clip(n) for n in info["notes"]],
            "alert": clip(" / ".join(f"{a['type']}: {a['message']}" for a in alerts if a["type"] in READING_ALERTS))}
`)}})
	return k
}

// readCorpusFile reads rel (a path under the corpus folder) in k.
func readCorpusFile(t testing.TB, k *kernel.Kernel, rel string) corpusReading {
	t.Helper()
	code := fmt.Sprintf("print(json.dumps(corpus_reading(%s)))", pyString(path.Join(kernel.DataMount, rel)))
	ex, err := k.Execute(context.Background(), code, kernel.ExecOptions{Timeout: time.Minute})
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	if ex.Status != kernel.StatusOK {
		return corpusReading{Crash: fmt.Sprintf("cell ended %s: %s", ex.Status, ex.Cause)}
	}
	var r corpusReading
	if err := json.Unmarshal([]byte(ex.Stdout()), &r); err != nil {
		t.Fatalf("%s printed %.300q: %v", rel, ex.Stdout(), err)
	}
	return r
}

// TestLoaderCorpus reads a representative slice of DuckDB's CSV test files,
// one of each kind issue 35 found read wrong, in one kernel, and checks
// analyst's reading of each (as DuckDB's auto-detection reads it, or better
// where noted). docs/loader-corpus.md has the whole corpus.
func TestLoaderCorpus(t *testing.T) {
	dir := duckdbCorpus(t)
	k := corpusReader(t, dir)
	for _, c := range []struct {
		file       string
		rows, cols int
		noHeader   bool
		delimiter  string
		note       string // a note the reading must have
	}{
		// Cause 1: files without a header row keep their first row.
		{"real/lineitem_sample.csv", 10, 16, true, "|", "has no header row"},
		{"real/web_page.csv", 60, 14, true, "|", "has no header row"},
		{"real/greek_utf8.csv", 8, 3, true, "|", "has no header row"},
		// ... and files with one keep it as names.
		{"real/ontime_sample.csv", 9, 110, false, ",", ""},
		// Cause 2: a tab file with a quoted comma in every line.
		{"real/ncvoter.csv", 10, 94, true, "\t", ""},
		// Cause 3: quotes escaped with a backslash.
		{"real/imdb_movie_info_escaped.csv", 201, 5, true, ",", "escaped with a backslash"},
		// Cause 12: a file of one line without a header.
		{"auto/single_numeric.csv", 1, 1, true, ",", ""},
		{"auto/mixed_single_line.csv", 1, 2, true, ",", ""},
		{"autotypecandidates.csv", 1, 3, true, "|", ""},
		// Judged one by one (testdata/corpus-judgements): values quoted with single quotes,
		// blank lines in one column, comment lines first and indented, words with spaces,
		// grouped numbers in one column, a labelled footer, quotes first after line 240.
		{"from_df.csv", 4, 2, true, ",", "single quotes"},
		{"blank_line.csv", 11, 1, false, ",", "read as missing values"},
		{"comments/empty_space.csv", 4, 2, true, ";", "are comments"},
		{"small_lineitem_strings.csv", 1, 1, false, ",", ""},
		{"thousands_separator/simple.csv", 5, 1, true, ";", "grouped with commas"},
		{"unionbyname_21248_1.csv", 1, 8, false, "|", "Ultima actualizacion"},
		{"page_namespacepage_title_sample.csv", 3993, 2, false, "\t", "not quoting"},
		// Quotes that are text, not quoting; a stray NUL inside a value.
		{"thijs_unquoted.csv", 4, 3, true, "|", "not quoting"},
		{"nullbyte.csv", 1, 3, false, "|", "NUL bytes inside its lines"},
	} {
		t.Run(c.file, func(t *testing.T) {
			r := readCorpusFile(t, k, c.file)
			if r.Refused != "" || r.Crash != "" {
				t.Fatalf("refused %q, crashed %q", r.Refused, r.Crash)
			}
			if r.Rows != c.rows || len(r.Names) != c.cols || r.NoHeader != c.noHeader || r.Delimiter != c.delimiter {
				t.Errorf("read %d rows × %d columns (no header %v, delimiter %q); want %d × %d (%v, %q); notes %q",
					r.Rows, len(r.Names), r.NoHeader, r.Delimiter, c.rows, c.cols, c.noHeader, c.delimiter, r.Notes)
			}
			if c.note != "" && !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, c.note) }) {
				t.Errorf("no note says %q: %q", c.note, r.Notes)
			}
		})
	}
}

// corpusFolders are the folders of DuckDB's CSV tests read beside its
// top-level files for docs/loader-corpus.md: real exports and the
// sniffer's tests, not those that test DuckDB's own errors, globbing or
// fuzzing (afl, fuzzing, error, rejects, glob).
var corpusFolders = []string{"real", "headers", "comments", "auto", "encodings", "unescaped_quotes", "unquoted_escape",
	"thousands_separator", "decimal_separators", "null", "auto_date", "dateformat", "inconsistencies", "test", "multidelimiter"}

// corpusFiles lists the files of the corpus read for the table, sorted.
func corpusFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	top, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range top {
		if e.Type().IsRegular() && e.Name() != "LICENSE" {
			files = append(files, e.Name())
		}
	}
	for _, folder := range corpusFolders {
		err := filepath.WalkDir(filepath.Join(dir, folder), func(p string, d os.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			rel, err := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(files)
	return files
}

// duckdbReading is DuckDB's reading of a file (scripts/duckdb-corpus.mjs).
type duckdbReading struct {
	File  string   `json:"file"`
	Rows  int      `json:"rows"`
	Names []string `json:"names"`
	Types []string `json:"types"`
	Error string   `json:"error"`
}

// duckdbReadings runs scripts/duckdb-corpus.mjs over files (node, with
// @duckdb/node-api in DUCKDB_NODE_DIR).
func duckdbReadings(t *testing.T, dir string, files []string) map[string]duckdbReading {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "scripts", "duckdb-corpus.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(strings.Join(files, "\n") + "\n")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("DuckDB's readings (node %s; install @duckdb/node-api with npm install --prefix DIR and set DUCKDB_NODE_DIR=DIR): %v",
			script, err)
	}
	readings := map[string]duckdbReading{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r duckdbReading
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		readings[r.File] = r
	}
	return readings
}

// coarseType is a column type as both readers can be compared on: number,
// date (dates and timestamps), time, bool or text.
func coarseType(typ string) string {
	switch t := strings.ToUpper(typ); {
	case strings.HasPrefix(t, "DATETIME64"), t == "DATE", strings.HasPrefix(t, "TIMESTAMP"):
		return "date"
	case t == "TIME":
		return "time"
	case t == "BOOL", t == "BOOLEAN":
		return "bool"
	case t == "OBJECT", t == "VARCHAR", t == "CATEGORY":
		return "text"
	default:
		return "number" // int64, float64, BIGINT, DOUBLE, DECIMAL(p,s), ...
	}
}

// shapeText is "rows × columns (number 3, text 2)".
func shapeText(rows int, types []string) string {
	counts := map[string]int{}
	var order []string
	for _, typ := range types {
		c := coarseType(typ)
		if counts[c] == 0 {
			order = append(order, c)
		}
		counts[c]++
	}
	parts := make([]string, len(order))
	for i, c := range order {
		parts[i] = fmt.Sprintf("%s %d", c, counts[c])
	}
	return fmt.Sprintf("%d × %d (%s)", rows, len(types), strings.Join(parts, ", "))
}

// corpusVerdict compares the two readings: "same", "types differ",
// "shape differs", or who refused or crashed.
func corpusVerdict(d duckdbReading, a corpusReading) string {
	switch {
	case a.Crash != "":
		return "analyst crashes"
	case d.Error != "" && a.Refused != "":
		return "both refuse"
	case d.Error == "" && d.Rows == 0 && a.Refused != "":
		return "both find no rows"
	case d.Error != "":
		return "DuckDB refuses"
	case a.Refused != "":
		return "analyst refuses"
	case d.Rows != a.Rows || len(d.Types) != len(a.Types):
		return "shape differs"
	}
	for i := range d.Types {
		if coarseType(d.Types[i]) != coarseType(a.Types[i]) {
			return "types differ"
		}
	}
	return "same"
}

// TestLoaderCorpusTable reads every file of corpusFiles both ways, DuckDB's
// auto-detection (read_csv(FILE)) and analyst's load cell in the real
// kernel, and writes the table to docs/loader-corpus.md. A benchmark more
// than a test (a few minutes, node and DuckDB needed):
//
//	ANALYST_BENCH_LOADER_CORPUS=1 DUCKDB_NODE_DIR=/var/tmp/duckdb-node go test ./eda/ -run TestLoaderCorpusTable -v
//
// or scripts/bench.sh loader-corpus.
func TestLoaderCorpusTable(t *testing.T) {
	if os.Getenv("ANALYST_BENCH_LOADER_CORPUS") == "" {
		t.Skip("a benchmark: set ANALYST_BENCH_LOADER_CORPUS=1 to write docs/loader-corpus.md")
	}
	dir := duckdbCorpus(t)
	files := corpusFiles(t, dir)
	duck := duckdbReadings(t, dir, files)
	judged, problems, err := readJudgements()
	if err != nil || len(problems) > 0 {
		t.Fatalf("%v %q (TestCorpusJudgements says more)", err, problems)
	}
	k := corpusReader(t, dir)
	verdicts, used := map[string]int{}, map[string]int{}
	var rows, duckdbRight strings.Builder
	for _, f := range files {
		d, a := duck[f], readCorpusFile(t, k, f)
		v := corpusVerdict(d, a)
		verdicts[v]++
		cell, problem := judgedVerdict(v, f, a, judged)
		if problem != "" {
			problems = append(problems, problem)
		}
		if j, ok := judged[f]; ok && cell != v {
			used[j.Better]++
			if j.Better == betterDuckDB {
				fmt.Fprintf(&duckdbRight, "| `%s` | %s | %s |\n", f, j.Why, analystCell(a))
			}
		} else if ok {
			problems = append(problems, fmt.Sprintf("%s (%s): judged at %s, but the readings no longer differ: remove the line",
				f, v, j.Source))
		}
		fmt.Fprintf(&rows, "| `%s` | %s | %s | %s |\n", f, duckdbCell(d), analystCell(a), cell)
	}
	var b strings.Builder
	b.WriteString(corpusIntro)
	fmt.Fprintf(&b, "\n%d files: ", len(files))
	var counts []string
	for _, v := range []string{"same", "types differ", "shape differs", "DuckDB refuses", "analyst refuses", "both refuse", "both find no rows", "analyst crashes"} {
		counts = append(counts, fmt.Sprintf("%s %d", v, verdicts[v]))
	}
	right := "none now.\n"
	if duckdbRight.Len() > 0 {
		right = corpusDuckDBRight + duckdbRight.String()
	}
	fmt.Fprintf(&b, "%s.\n\nThe differing files judged one by one (eda/%s): %s.\n\n%s%s\n%s\n| file | DuckDB | analyst | verdict |\n|---|---|---|---|\n%s",
		strings.Join(counts, ", "), judgementsDir, judgementCounts(used), corpusJudged, right, corpusFixed, rows.String())
	if err := os.WriteFile(filepath.Join("..", "docs", "loader-corpus.md"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// duckdbCell and analystCell are a reading as a cell of the table.
func duckdbCell(d duckdbReading) string {
	if d.Error != "" {
		return "refused: " + tableText(d.Error)
	}
	return shapeText(d.Rows, d.Types)
}

func analystCell(a corpusReading) string {
	switch {
	case a.Crash != "":
		return "crashed: " + tableText(a.Crash)
	case a.Refused != "":
		return "refused: " + tableText(a.Refused)
	}
	cell := shapeText(a.Rows, a.Types)
	if a.NoHeader {
		cell += ", no header"
	}
	if a.Alert != "" {
		cell += ", alert: " + tableText(a.Alert)
	}
	return cell
}

// tableText is s shortened to fit a Markdown table cell.
func tableText(s string) string {
	s = strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
	if r := []rune(s); len(r) > 90 {
		return string(r[:89]) + "…"
	}
	return s
}

const corpusIntro = `# The loader against DuckDB on DuckDB's own CSV test files

Written by ` + "`TestLoaderCorpusTable`" + ` (eda/corpus_test.go; ` + "`scripts/bench.sh loader-corpus`" + `): each file
of [DuckDB's CSV reader tests](https://github.com/duckdb/duckdb/tree/main/data/csv) (MIT; the real
exports and sniffer tests, not the folders that test DuckDB's own errors, globbing or fuzzing) read
by DuckDB's auto-detection (` + "`read_csv(FILE)`" + `, npm ` + "`@duckdb/node-api`" + `, a test-time tool only)
and by analyst's load cell in the real kernel. Shapes are rows × columns, with the columns counted
by type (number, date, time, bool, text); "no header" says analyst read the first row as data.
The verdict compares the two readings; where they differ, which one is right is the file's
question: [loading-data.md](loading-data.md) says what the loader decides and why.
`

// corpusJudged heads the table of the files judged "duckdb" in
// eda/testdata/corpus-judgements: where DuckDB's reading is the right one,
// analyst must say so in an alert (TestLoaderCorpusTable fails otherwise).
const corpusJudged = `Where DuckDB reads better (judged from the files), analyst must say so in an alert (the table's
test fails otherwise), so that none of these reads wrong silently: `

// corpusDuckDBRight heads the table of those files, when there are any.
const corpusDuckDBRight = `these.

| file | why DuckDB is right | what analyst does |
|---|---|---|
`

// corpusFixed names the files once read better by DuckDB that the loader
// now reads as DuckDB does.
const corpusFixed = `Once read better by DuckDB, now read as it reads them (each rule in loading-data.md, with its
counter-case as a test): ` + "`test_apple_financial.csv.gz`" + ` (rows that all end with a tab below a
preamble: a trailing delimiter), ` + "`comments/mid_line*.csv`" + `, ` + "`comments/midline*.csv`" + `,
` + "`comments/simple_mid_line.csv`" + ` (a ` + "`#`" + ` that starts a comment inside lines: cut there, the
lines split more evenly; a note says so), ` + "`empty_space_start_value.csv`" + ` (spaces before quoted
fields skipped: reading so splits the rows more evenly), ` + "`auto/tab_single_quote*.csv`" + `,
` + "`from_df.csv`" + ` (values quoted with single quotes), ` + "`blank_line.csv`" + ` (blank lines between the
rows of a one-column file are missing values), ` + "`comments/empty_space.csv`" + ` (a comment line first
and comment lines indented with spaces), ` + "`small_lineitem_strings.csv`" + `, ` + "`test/5438.csv`" + `,
` + "`test/no_newline_unicode.csv`" + `, ` + "`unescaped_quotes/unescaped_quote.csv`" + ` (lines of words with
single spaces are one column, not fields split at the spaces),
` + "`page_namespacepage_title_sample.csv`" + ` (quotes that are text, first after line 240: the lines from the
first quote on decide the quoting too). Also now read right where neither
was: ` + "`thousands_separator/simple*.csv`" + ` (one column of numbers grouped with commas) and
` + "`unionbyname_21248_*.csv`" + ` (a labelled footer note, ` + "`Ultima actualizacion: ...`" + `, left out).
`
