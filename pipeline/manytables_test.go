package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/dataset"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/pipeline"
	"github.com/analyst-cli/analyst/runrecord"
)

// tinyTables writes n 8-byte CSV tables (t0000.csv: "k,v\n1,2\n") into a
// new folder, as a folder at the file cap of small tables looks.
func tinyTables(t testing.TB, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "many")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("t%04d.csv", i)), []byte("k,v\n1,2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestManyTablesSummarised: past eda.FolderSections tables, the others are
// read and profiled in one stage, a cell each, and summed up in one table
// (rows, columns, alerts) in the notebook and the report, instead of a
// section each; every table is still loaded, profiled and recorded.
func TestManyTablesSummarised(t *testing.T) {
	n := eda.FolderSections + 2
	dir := tinyTables(t, n)
	opts := options(t, dir, filepath.Join(t.TempDir(), "out"))
	opts.NoExplore = true
	res := run(t, opts)

	nb, err := nbformat.ReadFile(res.Files.Notebook)
	if err != nil {
		t.Fatal(err)
	}
	sections, others := map[string]bool{}, 0
	var summary string
	for _, c := range nb.Cells {
		stage, _ := c.Stage()
		sections[stage] = true
		if stage != eda.StageOtherTables {
			continue
		}
		if c.HasTag(eda.ProfileTag) {
			others++
		}
		for _, o := range c.Outputs {
			if s, ok := o.DataString(nbformat.MimeHTML); ok {
				summary = s
			}
		}
	}
	last, first := fmt.Sprintf("t%04d", n-1), fmt.Sprintf("t%04d", eda.FolderSections)
	if !sections[eda.TableStage(eda.StageProfile, fmt.Sprintf("t%04d", eda.FolderSections-1))] ||
		sections[eda.TableStage(eda.StageLoad, first)] || sections[eda.TableStage(eda.StageProfile, last)] {
		t.Errorf("sections of their own: want the first %d tables' only; stages %v", eda.FolderSections, sections)
	}
	if others != 2 || !strings.Contains(summary, "<th>"+first+"</th>") || !strings.Contains(summary, "<th>"+last+"</th>") {
		t.Errorf("the other tables: %d profile cells (want 2), summary %q", others, summary)
	}

	var m runrecord.Record
	b, err := os.ReadFile(res.Files.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Data.Tables) != n || m.Data.Tables[n-1].Name != last || m.Data.Tables[n-1].Rows != 1 || m.Data.Tables[n-1].Columns != 2 {
		t.Errorf("run.json records %d tables (want %d, each 1 row × 2 columns): last %+v", len(m.Data.Tables), n, m.Data.Tables[n-1])
	}
	html, err := os.ReadFile(res.Files.Report)
	if err != nil {
		t.Fatal(err)
	}
	page := string(html)
	if !strings.Contains(page, `<section id="stage-other-tables"`) || strings.Contains(page, `id="stage-load-`+first+`"`) ||
		!strings.Contains(page, "<th>"+last+"</th>") {
		t.Errorf("the report does not sum up the other tables in their one section")
	}
}

// BenchmarkManyTables: a run over a folder at the file cap of 8-byte
// tables (dataset.MaxFolderFiles of them), no model: the report's and the
// notebook's sizes, and the analyst process's peak resident memory (the
// tables live in the kernel; the run keeps each table's profile and the
// notebook). Issue 37's targets: report under 20 MB, notebook under 10 MB.
func BenchmarkManyTables(b *testing.B) {
	dir := tinyTables(b, dataset.MaxFolderFiles)
	for i := 0; i < b.N; i++ {
		opts := options(b, dir, filepath.Join(b.TempDir(), "out"))
		opts.NoExplore = true
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		res, err := pipeline.Run(ctx, opts)
		cancel()
		if err != nil {
			b.Fatalf("Run: %v", err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "run-s")
		for _, f := range []struct{ path, unit string }{{res.Files.Report, "report-MB"}, {res.Files.Notebook, "notebook-MB"}} {
			fi, err := os.Stat(f.path)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(fi.Size())/1e6, f.unit)
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak-rss-MiB") // Linux: KiB
	}
}
