package kernel_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/examples"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

// loadedKernel starts a kernel holding the generated 1,000,000-row sales
// frame in df: the parent a session is forked from.
func loadedKernel(b *testing.B) (*kernel.Kernel, kernel.Options) {
	opts := kerneltest.Options(b)
	data := filepath.Join(b.TempDir(), "sales.csv")
	f, err := os.Create(data)
	if err != nil {
		b.Fatal(err)
	}
	if err := examples.WriteSales(f, 1_000_000, 1); err != nil {
		b.Fatal(err)
	}
	f.Close()
	opts.Data = data
	k, err := kernel.Start(context.Background(), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { k.Close() })
	load := "df = pd.read_csv('/data/sales.csv', parse_dates=['date'])"
	if ex, err := k.Execute(context.Background(), load, kernel.ExecOptions{Timeout: 5 * time.Minute}); err != nil || ex.Status != kernel.StatusOK {
		b.Fatalf("load: %v %+v", err, ex)
	}
	return k, opts
}

func benchCell(b *testing.B, k *kernel.Kernel, code string) *kernel.Execution {
	ex, err := k.Execute(context.Background(), code, kernel.ExecOptions{})
	if err != nil || ex.Status != kernel.StatusOK {
		b.Fatalf("%q: %v %+v", code, err, ex)
	}
	return ex
}

// BenchmarkForkReady: a session forked from a kernel holding 1,000,000 rows,
// from the fork request until it is ready for code (and until its first
// cell's result), against a cold kernel on the same data (kernel.Start until
// ready, and until its first cell's result) and a cold `analyst kernel exec
// --data sales.csv -c 'x = 1'` process, interleaved in one run. A fork
// usually finds a spare copy the kernel forked while idle (analyst_fork.py);
// "after-cell" forks right after a cell of the kernel, which made the spare
// stale, so the fork waits for a new copy: the cost of a fork without one.
func BenchmarkForkReady(b *testing.B) {
	k, opts := loadedKernel(b)
	analyst := kerneltest.AnalystBinary(b)
	ctx := context.Background()
	var ready, first, afterCell, coldReady, coldFirst, cli []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		s, err := k.Fork(ctx, kernel.ForkOptions{})
		if err != nil {
			b.Fatal(err)
		}
		ready = append(ready, time.Since(start))
		benchCell(b, s, "x = 1")
		first = append(first, time.Since(start))
		b.StopTimer()
		s.Close()

		benchCell(b, k, "x = 1")
		start = time.Now()
		s, err = k.Fork(ctx, kernel.ForkOptions{})
		if err != nil {
			b.Fatal(err)
		}
		afterCell = append(afterCell, time.Since(start))
		s.Close()

		start = time.Now()
		c, err := kernel.Start(ctx, opts)
		if err != nil {
			b.Fatal(err)
		}
		coldReady = append(coldReady, time.Since(start))
		benchCell(b, c, "x = 1")
		coldFirst = append(coldFirst, time.Since(start))
		c.Close()
		cli = append(cli, kerneltest.KernelExec(b, analyst, opts.Data, "x = 1"))
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(ms(median(ready)), "fork-ready-ms")
	b.ReportMetric(ms(p95(ready)), "fork-ready-p95-ms")
	b.ReportMetric(ms(median(first)), "fork-first-cell-ms")
	b.ReportMetric(ms(median(afterCell)), "fork-after-cell-ms")
	b.ReportMetric(ms(median(coldReady)), "cold-ready-ms")
	b.ReportMetric(ms(median(coldFirst)), "cold-first-cell-ms")
	b.ReportMetric(ms(median(cli)), "kernel-exec-ms")
	b.ReportMetric(float64(median(ready))/float64(median(cli)), "ratio")
}

func p95(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)*95+99)/100-1]
}

// memoryCell prints, for every process in the container, its memory from
// /proc/PID/smaps_rollup (kB): run in the kernel, after its sessions ran
// theirs (the kernel's cell ends its spare copy first, see analyst_fork).
const memoryCell = `import json, os
out = {}
for pid in (p for p in os.listdir('/proc') if p.isdigit()):
    m = {}
    try:
        for line in open('/proc/%s/smaps_rollup' % pid):
            parts = line.split()
            if len(parts) == 3 and parts[2] == 'kB':
                m[parts[0].rstrip(':')] = int(parts[1])
    except OSError:
        continue
    out[pid] = m
print(json.dumps(out))`

type smaps struct {
	Rss, Pss, Private_Dirty int64 // kB
}

func memoryOf(b *testing.B, k *kernel.Kernel) map[int]smaps {
	var m map[int]smaps
	if err := json.Unmarshal([]byte(benchCell(b, k, memoryCell).Stdout()), &m); err != nil {
		b.Fatal(err)
	}
	return m
}

// forkMemorySessions is how many sessions BenchmarkForkMemory forks.
const forkMemorySessions = 4

// BenchmarkForkMemory: 4 sessions forked from a kernel holding 1,000,000
// rows, each running a follow-up (monthly revenue: a groupby and a bar
// chart) and keeping 32 MiB of its own. The memory of every process in the
// container, summed as PSS (which splits a page shared by n processes
// into n parts), against the kernel's alone before the fork plus what each
// session wrote (its private dirty pages: the 32 MiB, the follow-up's
// working memory its allocator kept, and the pages of the kernel's it
// wrote to, reference counts included).
func BenchmarkForkMemory(b *testing.B) {
	k, _ := loadedKernel(b)
	const kept = 32 << 10 // kB
	work := monthlyRevenue + "plt.show()\nmine = np.ones(" + strconv.Itoa(kept*1024/8) + ")"
	var before, total, wrote, bound, extra []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		parent := memoryOf(b, k)[1]
		var sessions []*kernel.Kernel
		for j := 0; j < forkMemorySessions; j++ {
			s, err := k.Fork(context.Background(), kernel.ForkOptions{})
			if err != nil {
				b.Fatal(err)
			}
			sessions = append(sessions, s)
			benchCell(b, s, work)
		}
		all := memoryOf(b, k)
		var pids []int
		for _, s := range sessions {
			pids = append(pids, s.Session().PID)
			s.Close()
		}
		sum, dirty := int64(0), int64(0)
		for _, m := range all {
			sum += m.Pss
		}
		for _, pid := range pids {
			dirty += all[pid].Private_Dirty
		}
		if len(all) != forkMemorySessions+1 {
			b.Fatalf("%d processes in the container, want the kernel and %d sessions: %v", len(all), forkMemorySessions, all)
		}
		before = append(before, mib(parent.Pss))
		total = append(total, mib(sum))
		wrote = append(wrote, mib(dirty)/forkMemorySessions)
		bound = append(bound, mib(parent.Pss+dirty))
		extra = append(extra, mib(dirty)/forkMemorySessions-mib(kept))
	}
	b.StopTimer()
	b.ReportMetric(medianF(before), "kernel-MiB")
	b.ReportMetric(medianF(total), "total-pss-MiB")
	b.ReportMetric(medianF(bound), "kernel+written-MiB")
	b.ReportMetric(medianF(wrote), "written-per-session-MiB")
	b.ReportMetric(medianF(extra), "written-beyond-32MiB-MiB")
	b.ReportMetric(medianF(total)/medianF(bound), "ratio")
}

func mib(kb int64) float64 { return float64(kb) / 1024 }

func medianF(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
