package kernel_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/examples"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

// loadSales is the cell that loads the generated sales CSV into df.
const loadSales = "df = pd.read_csv('/data/sales.csv', parse_dates=['date'])"

// loadedKernel starts a kernel holding the generated 1,000,000-row sales
// frame in df (a follow-up's warm kernel; the parent a session is forked
// from), closed when the benchmark ends.
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
	if ex, err := k.Execute(context.Background(), loadSales, kernel.ExecOptions{Timeout: 5 * time.Minute}); err != nil || ex.Status != kernel.StatusOK {
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

// containerMemory reads, from the host's /proc, the memory of every process in
// k's container (smaps_rollup, kB), by its pid inside the container. From
// the host because inside it the processes are not dumpable: their
// smaps_rollup is closed to each other (analyst_fork.py). Needs root (the
// benchmark runs rootful), as reading another user's smaps does.
func containerMemory(b *testing.B, k *kernel.Kernel) map[int]smaps {
	out, err := exec.Command("podman", "inspect", "--format", "{{.State.Pid}}", k.Name()).Output()
	if err != nil {
		b.Fatalf("podman inspect %s: %v", k.Name(), err)
	}
	init := strings.TrimSpace(string(out))
	ns, err := os.Readlink("/proc/" + init + "/ns/pid")
	if err != nil {
		b.Fatal(err)
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		b.Fatal(err)
	}
	all := map[int]smaps{}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		dir := "/proc/" + e.Name()
		if got, err := os.Readlink(dir + "/ns/pid"); err != nil || got != ns {
			continue
		}
		inner, m, ok := readProcess(dir)
		if ok {
			all[inner] = m
		}
	}
	return all
}

// readProcess reads a host process's pid in its own namespace (the last of
// NSpid) and its smaps_rollup; false if it has ended meanwhile.
func readProcess(dir string) (int, smaps, bool) {
	status, err := os.ReadFile(dir + "/status")
	if err != nil {
		return 0, smaps{}, false
	}
	inner := 0
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "NSpid:"); ok {
			f := strings.Fields(rest)
			inner, _ = strconv.Atoi(f[len(f)-1])
		}
	}
	rollup, err := os.ReadFile(dir + "/smaps_rollup")
	if err != nil || inner == 0 {
		return 0, smaps{}, false
	}
	var m smaps
	for _, line := range strings.Split(string(rollup), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[2] != "kB" {
			continue
		}
		v, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "Rss:":
			m.Rss = v
		case "Pss:":
			m.Pss = v
		case "Private_Dirty:":
			m.PrivateDirty = v
		}
	}
	return inner, m, true
}

type smaps struct {
	Rss, Pss, PrivateDirty int64 // kB
}

// forkMemorySessions is how many sessions BenchmarkForkMemory forks.
const forkMemorySessions = 4

// BenchmarkForkMemory: 4 sessions forked from a kernel holding 1,000,000
// rows, each running a follow-up (monthly revenue: a groupby and a bar
// chart) and keeping 32 MiB of its own. The memory of every process in the
// container (read from the host's /proc), summed as PSS (which splits a
// page shared by n processes into n parts), against the kernel's alone
// before its first fork plus what each other process wrote (its private
// dirty pages: for a session the 32 MiB, the follow-up's working memory its
// allocator kept, and the pages of the kernel's it wrote to, reference
// counts included; the spare copy the kernel keeps forked while idle is
// counted the same way).
func BenchmarkForkMemory(b *testing.B) {
	k, _ := loadedKernel(b)
	const kept = 32 << 10 // kB
	work := monthlyRevenue + "plt.show()\nmine = np.ones(" + strconv.Itoa(kept*1024/8) + ")"
	first := containerMemory(b, k)
	if len(first) != 1 {
		b.Fatalf("%d processes in the container before the first fork, want the kernel alone: %v", len(first), first)
	}
	parent := first[1]
	var total, wrote, spare, bound, extra []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var sessions []*kernel.Kernel
		for j := 0; j < forkMemorySessions; j++ {
			s, err := k.Fork(context.Background(), kernel.ForkOptions{})
			if err != nil {
				b.Fatal(err)
			}
			sessions = append(sessions, s)
			benchCell(b, s, work)
		}
		all := containerMemory(b, k)
		isSession := map[int]bool{}
		for _, s := range sessions {
			isSession[s.Session().PID] = true
		}
		for _, s := range sessions {
			s.Close()
		}
		var sum, dirty, others int64
		for pid, m := range all {
			sum += m.Pss
			switch {
			case isSession[pid]:
				dirty += m.PrivateDirty
			case pid != 1:
				others += m.PrivateDirty // the spare copy
			}
		}
		if n := len(all) - 1 - len(sessions); n < 0 || n > 1 {
			b.Fatalf("%d processes in the container, want the kernel, %d sessions and at most a spare: %v", len(all), forkMemorySessions, all)
		}
		total = append(total, mib(sum))
		wrote = append(wrote, mib(dirty)/forkMemorySessions)
		spare = append(spare, mib(others))
		bound = append(bound, mib(parent.Pss+dirty+others))
		extra = append(extra, mib(dirty)/forkMemorySessions-mib(kept))
	}
	b.StopTimer()
	b.ReportMetric(mib(parent.Pss), "kernel-MiB")
	b.ReportMetric(medianF(total), "total-pss-MiB")
	b.ReportMetric(medianF(bound), "kernel+written-MiB")
	b.ReportMetric(medianF(wrote), "written-per-session-MiB")
	b.ReportMetric(medianF(extra), "written-beyond-32MiB-MiB")
	b.ReportMetric(medianF(spare), "spare-written-MiB")
	b.ReportMetric(medianF(total)/medianF(bound), "ratio")
}

func mib(kb int64) float64 { return float64(kb) / 1024 }

func medianF(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
