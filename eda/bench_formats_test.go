package eda

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/examples"
	"github.com/analyst-cli/analyst/internal/parquetnpy"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

// BenchmarkLoadParquetVsCSV loads the 1,000,000-row sales data from Parquet
// (Go conversion, then the loader's numpy.load) and from CSV (the loader's
// read_csv and date parsing), each in a fresh kernel, and reports the load
// time, the kernel's peak memory and the DataFrame's size.
func BenchmarkLoadParquetVsCSV(b *testing.B) {
	dir := b.TempDir()
	for name, write := range map[string]func(f *os.File) error{
		"sales.csv":     func(f *os.File) error { return examples.WriteSales(f, 1_000_000, 1) },
		"sales.parquet": func(f *os.File) error { return examples.WriteSalesParquet(f, 1_000_000, 1) },
	} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		if err := write(f); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	load := func(b *testing.B, name string) (took time.Duration, peakMiB, frameMiB float64) {
		src := Source{Path: "/data/" + name}
		start := time.Now()
		var mounts []kernel.Mount
		if filepath.Ext(name) == ".parquet" {
			conv, err := os.MkdirTemp(dir, "conv")
			if err != nil {
				b.Fatal(err)
			}
			os.Chmod(conv, 0o755)
			defer os.RemoveAll(conv)
			if _, err := parquetnpy.Convert(filepath.Join(dir, name), conv); err != nil {
				b.Fatal(err)
			}
			src.Converted = "/data/" + name + ".columns"
			mounts = []kernel.Mount{{Source: conv, Target: src.Converted}}
		}
		convert := time.Since(start)
		k := kerneltest.Start(b, func(o *kernel.Options) { o.Data = filepath.Join(dir, name); o.Mounts = mounts })
		defer k.Close()
		mustRun(b, k, Setup())
		r := mustRun(b, k, LoadFrom(src))
		var mem struct{ Peak, Frame float64 }
		pyValue(b, k, `import resource
print(json.dumps({"Peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "Frame": float(df.memory_usage(deep=True).sum() / 2**20)}))`, &mem)
		return convert + r.execs[0].Duration, mem.Peak, mem.Frame
	}
	var csvT, pqT []time.Duration
	var csvPeak, pqPeak, csvFrame, pqFrame float64
	for b.Loop() {
		t, p, f := load(b, "sales.csv")
		csvT, csvPeak, csvFrame = append(csvT, t), p, f
		t, p, f = load(b, "sales.parquet")
		pqT, pqPeak, pqFrame = append(pqT, t), p, f
	}
	c, p := median(csvT), median(pqT)
	b.ReportMetric(float64(c.Milliseconds()), "csv-load-ms")
	b.ReportMetric(float64(p.Milliseconds()), "parquet-load-ms")
	b.ReportMetric(c.Seconds()/p.Seconds(), "csv/parquet")
	b.ReportMetric(csvPeak, "csv-peak-MiB")
	b.ReportMetric(pqPeak, "parquet-peak-MiB")
	b.ReportMetric(csvFrame, "csv-frame-MiB")
	b.ReportMetric(pqFrame, "parquet-frame-MiB")
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkLoadExports times the load stage on the 1,000,000-row sales data
// as written in the US (sales.csv, the big-file benchmark's file) and as a
// German export (';', dates 21.01.2024, amounts 1.234,56: the grouped
// numbers the loader converts and checks itself, since pandas' thousands
// separator would also turn the dates into integers), each in a fresh
// kernel. Run it in two trees to compare loaders.
func BenchmarkLoadExports(b *testing.B) {
	dir := b.TempDir()
	us, err := os.Create(filepath.Join(dir, "sales.csv"))
	if err != nil {
		b.Fatal(err)
	}
	if err := examples.WriteSales(us, 1_000_000, 1); err != nil {
		b.Fatal(err)
	}
	us.Close()
	var de bytes.Buffer
	de.WriteString("Bestellnummer;Datum;Region;Produkt;Kanal;Menge;Preis;Rabatt;Umsatz;Kunde\n")
	german := func(x float64) string {
		cents := int(math.Round(x * 100))
		return fmt.Sprintf("%s,%02d", dotted(cents/100), cents%100)
	}
	examples.Sales(1_000_000, 1, func(s examples.Sale) error {
		discount := ""
		if s.Discount != nil {
			discount = german(*s.Discount)
		}
		fmt.Fprintf(&de, "%d;%s;%s;%s;%s;%d;%s;%s;%s;%s\n", s.OrderID, s.Date.Format("02.01.2006"), s.Region, s.Product,
			s.Channel, s.Units, german(s.UnitPrice), discount, german(s.Revenue), s.CustomerID)
		return nil
	})
	os.WriteFile(filepath.Join(dir, "sales_de.csv"), de.Bytes(), 0o644)
	took := map[string][]time.Duration{}
	for b.Loop() {
		for _, name := range []string{"sales.csv", "sales_de.csv"} {
			k := kerneltest.Start(b, func(o *kernel.Options) { o.Data = dir })
			mustRun(b, k, Setup())
			r := mustRun(b, k, Load("/data/"+name))
			took[name] = append(took[name], r.execs[0].Duration)
			var kinds map[string]string
			pyValue(b, k, `print(json.dumps({c: str(t) for c, t in df.dtypes.items()}))`, &kinds)
			b.Logf("%s: %v, %v", name, r.execs[0].Duration.Round(time.Millisecond), kinds)
			k.Close()
		}
	}
	b.ReportMetric(float64(median(took["sales.csv"]).Milliseconds()), "us-load-ms")
	b.ReportMetric(float64(median(took["sales_de.csv"]).Milliseconds()), "de-load-ms")
}
