// Command testsum reads `go test -json` events (or test2json's, from a test
// binary) and prints what a person needs of them: each package's result
// line and time, the whole output of every failed test, one line per test
// skipped for missing data (shareddata.SkipPrefix), and the counts. With
// -counts FILE it also writes the counts as JSON; with -total it reads such
// files and prints the closing line of `make test`:
//
//	tests: 1510 passed, 0 failed, 14 skipped (6 for missing data: dabench)
//
// It exits 1 when a test or a package failed, or when it saw no test at all
// (a build that failed before printing an event).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/analyst-cli/analyst/internal/shareddata"
)

func main() {
	countsFile := flag.String("counts", "", "write the counts as JSON to `FILE`")
	total := flag.Bool("total", false, "sum the counts files given as arguments and print the closing line")
	flag.Parse()
	var err error
	if *total {
		err = printTotal(os.Stdout, flag.Args())
	} else {
		err = summarize(os.Stdin, os.Stdout, *countsFile)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsum:", err)
		os.Exit(1)
	}
}

// event is one line of test2json's output.
type event struct {
	Action     string
	Package    string
	ImportPath string // build-output and build-fail events
	Test       string
	Output     string
	Elapsed    float64
}

// Counts are what a run of tests came to.
type Counts struct {
	Passed, Failed, Skipped int
	Missing                 map[string]int // skipped for missing data, by what was missing
	PackagesFailed          []string
}

func summarize(in io.Reader, out io.Writer, countsFile string) error {
	c := Counts{Missing: map[string]int{}}
	outputs := map[string]*strings.Builder{} // per package and test, until it ends
	times := map[string]float64{}
	reported := map[string]bool{} // packages whose result line was printed
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			fmt.Fprintln(out, sc.Text()) // not an event: pass it on
			continue
		}
		key := e.Package + " " + e.Test
		switch {
		case e.Action == "build-output":
			fmt.Fprint(out, e.Output)
		case e.Action == "build-fail":
			c.PackagesFailed = append(c.PackagesFailed, e.ImportPath)
		case e.Action == "output" && e.Test == "":
			if !strings.HasPrefix(e.Output, "=== ") && !strings.HasPrefix(e.Output, "PASS") {
				fmt.Fprint(out, e.Output)
			}
			reported[e.Package] = reported[e.Package] || strings.HasPrefix(e.Output, "ok ") || strings.HasPrefix(e.Output, "? ") || strings.HasPrefix(e.Output, "FAIL\t")
		case e.Action == "output":
			b := outputs[key]
			if b == nil {
				b = &strings.Builder{}
				outputs[key] = b
			}
			b.WriteString(e.Output)
		case e.Test == "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
			times[e.Package] = e.Elapsed
			if e.Action == "fail" {
				c.PackagesFailed = append(c.PackagesFailed, e.Package)
			}
			if !reported[e.Package] { // a test binary run through test2json
				fmt.Fprintf(out, "%s\t%s\t%.3fs\n", map[string]string{"pass": "ok  ", "skip": "ok  ", "fail": "FAIL"}[e.Action], e.Package, e.Elapsed)
			}
		case e.Action == "pass" || e.Action == "fail" || e.Action == "skip":
			text := ""
			if b := outputs[key]; b != nil {
				text = b.String()
				delete(outputs, key)
			}
			c.count(e, text, out)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading the test events: %w", err)
	}
	printTimes(out, times)
	fmt.Fprintln(out, c.line())
	if countsFile != "" {
		b, _ := json.Marshal(c)
		if err := os.WriteFile(countsFile, b, 0o644); err != nil {
			return err
		}
	}
	return c.verdict()
}

// count adds one test's end; a failed test's output is printed whole, a
// skip for missing data as its message.
func (c *Counts) count(e event, text string, out io.Writer) {
	switch e.Action {
	case "pass":
		c.Passed++
	case "fail":
		c.Failed++
		fmt.Fprintf(out, "--- FAIL: %s (%s)\n%s", e.Test, e.Package, text)
	case "skip":
		c.Skipped++
		if _, msg, ok := strings.Cut(text, shareddata.SkipPrefix); ok {
			what, _, _ := strings.Cut(msg, " ")
			c.Missing[what]++
			fmt.Fprintf(out, "--- SKIP: %s (%s): %s%s\n", e.Test, e.Package, shareddata.SkipPrefix, firstLine(msg))
		}
	}
}

func (c Counts) verdict() error {
	switch {
	case c.Failed > 0 || len(c.PackagesFailed) > 0:
		return fmt.Errorf("%d tests failed; packages failed: %s", c.Failed, strings.Join(c.PackagesFailed, ", "))
	case c.Passed+c.Failed+c.Skipped == 0:
		return errors.New("no test ran")
	}
	return nil
}

// line is the closing line: the counts, and what was skipped for missing
// data.
func (c Counts) line() string {
	s := fmt.Sprintf("tests: %d passed, %d failed, %d skipped", c.Passed, c.Failed, c.Skipped)
	if len(c.Missing) == 0 {
		return s + " (0 for missing data)"
	}
	var n int
	var what []string
	for k, v := range c.Missing {
		n += v
		what = append(what, k)
	}
	sort.Strings(what)
	return fmt.Sprintf("%s (%d for missing data: %s)", s, n, strings.Join(what, ", "))
}

func printTimes(out io.Writer, times map[string]float64) {
	pkgs := make([]string, 0, len(times))
	for p := range times {
		pkgs = append(pkgs, p)
	}
	sort.Slice(pkgs, func(i, j int) bool { return times[pkgs[i]] > times[pkgs[j]] })
	var sum float64
	for _, p := range pkgs {
		sum += times[p]
	}
	if len(pkgs) > 1 {
		fmt.Fprintf(out, "time per package (%s in all):", time.Duration(sum*float64(time.Second)).Round(time.Second))
		for _, p := range pkgs {
			if times[p] >= 1 {
				fmt.Fprintf(out, " %s %.0fs;", p[strings.LastIndex(p, "/analyst/")+len("/analyst/"):], times[p])
			}
		}
		fmt.Fprintln(out)
	}
}

func printTotal(out io.Writer, files []string) error {
	sum := Counts{Missing: map[string]int{}}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("reading the counts: %w", err)
		}
		var c Counts
		if err := json.Unmarshal(b, &c); err != nil {
			return fmt.Errorf("reading the counts of %s: %w", f, err)
		}
		sum.Passed += c.Passed
		sum.Failed += c.Failed
		sum.Skipped += c.Skipped
		sum.PackagesFailed = append(sum.PackagesFailed, c.PackagesFailed...)
		for k, v := range c.Missing {
			sum.Missing[k] += v
		}
	}
	fmt.Fprintln(out, sum.line())
	return sum.verdict()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
