package audit

import (
	"fmt"
	"io"
)

// WriteText prints the report for people: files, data, image, one line per
// cell with its diffs, answers, and the verdict.
func (r *Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "run: %s\n", r.Run)
	for _, f := range r.Files {
		if f.Status != "ok" {
			fmt.Fprintf(w, "file %-10s %s\n", f.Status, f.Path)
		}
	}
	if n := countFiles(r.Files, "ok"); n > 0 {
		fmt.Fprintf(w, "files: %d of %d match their sha256\n", n, len(r.Files))
	}
	if r.Data.Status != "" {
		fmt.Fprintf(w, "data: %s %s\n", r.Data.Status, r.Data.Path)
	}
	for _, f := range r.Data.Files {
		fmt.Fprintf(w, "    %s\n", f)
	}
	if r.Image.Note != "" {
		fmt.Fprintf(w, "image: WARNING %s\n", r.Image.Note)
	}
	for _, c := range r.Cells {
		if !c.Code && c.Status == CellOK {
			continue // markdown cells are named only when changed
		}
		where := fmt.Sprintf("cell %d", c.Index)
		if c.Index == 0 {
			where = "cell -"
		}
		fmt.Fprintf(w, "%-8s %-8s %s\n", where, c.Status, c.Title)
		for _, d := range c.Diffs {
			fmt.Fprintf(w, "    %s\n", d)
		}
	}
	for _, a := range r.Answers {
		if a.Found {
			fmt.Fprintf(w, "answer   ok       @%s[%s] shown by cell %d\n", a.Name, a.Value, a.Cell)
		} else if a.Problem != "" {
			fmt.Fprintf(w, "answer   MISSING  @%s[%s]: %s\n", a.Name, a.Value, a.Problem)
		} else {
			fmt.Fprintf(w, "answer   MISSING  @%s[%s] appears in no cell's output\n", a.Name, a.Value)
		}
	}
	ok := 0
	for _, n := range r.Numbers {
		if n.Found {
			ok++
		} else {
			fmt.Fprintf(w, "number   MISSING  %s: %s\n", n.Text, n.Problem)
		}
	}
	if ok > 0 {
		fmt.Fprintf(w, "numbers: %d of %d traced numbers shown by their cells\n", ok, len(r.Numbers))
	}
	r.writeRendered(w)
	if s := r.Signature; s != nil {
		fmt.Fprintf(w, "signature: %s\n", s.Message)
	}
	if r.OK {
		fmt.Fprintln(w, "verified: every file, cell, answer and fact matches")
	} else {
		fmt.Fprintln(w, "NOT verified: see the lines above")
	}
}

func countFiles(fs []FileCheck, status string) int {
	n := 0
	for _, f := range fs {
		if f.Status == status {
			n++
		}
	}
	return n
}

// writeRendered prints the report and chart files that are not what the
// notebook and run.json render, and the facts the re-run did not find.
func (r *Report) writeRendered(w io.Writer) {
	ok := 0
	for _, f := range r.Rendered {
		if f.Status == "ok" {
			ok++
			continue
		}
		fmt.Fprintf(w, "rendered %-8s %s", f.Status, f.Path)
		if f.Diff != "" {
			fmt.Fprintf(w, ": %s", f.Diff)
		}
		fmt.Fprintln(w)
	}
	if ok > 0 {
		fmt.Fprintf(w, "rendered: %d of %d report and chart files are what the notebook and run.json render\n", ok, len(r.Rendered))
	}
	ok = 0
	for _, f := range r.Facts {
		if f.Status == "ok" {
			ok++
			continue
		}
		fmt.Fprintf(w, "fact     %-8s run.json %s: %s; the re-run: %s\n", f.Status, f.Name, f.Recorded, f.Reran)
	}
	if ok > 0 {
		fmt.Fprintf(w, "facts: %d of %d in run.json (rows, columns, format, limits) are the re-run's\n", ok, len(r.Facts))
	}
}
