package kernel

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/analyst-cli/analyst/internal/command"
	"github.com/analyst-cli/analyst/internal/dirfd"
	"github.com/analyst-cli/analyst/internal/meminfo"
	"github.com/analyst-cli/analyst/internal/units"
)

// Options configure one kernel: which image, what it may see, and its limits.
type Options struct {
	// RootFS is the kernel image: a root filesystem folder (see kernel/image).
	RootFS string
	// Runtime is the OCI runtime podman should use ("runc"); empty means
	// podman's default.
	Runtime string
	// Data is a file or folder mounted read-only at /data. A file keeps its
	// name: /data/NAME.
	Data string
	// DataID, when set, is the file Data was when it was checked: staging
	// refuses another one (a *DataChangedError).
	DataID dirfd.ID
	// DataFiles, set instead of Data, make /data a folder of these files
	// only, each at its Path (a folder dataset: its tables and documents, not
	// what else its folder holds). Each is staged as Data's files are.
	DataFiles []DataFile
	// Mounts are more folders or files mounted read-only (a converted
	// Parquet file next to it at /data/NAME.columns).
	Mounts []Mount
	// OutputDir, if set, receives the files the code writes to /output: the
	// container gets a size-capped tmpfs there (no host folder is mounted
	// writable), and the kernel copies new and changed regular files out
	// after each cell (see output.go). Files already in OutputDir are never
	// visible to, nor overwritten by, the sandbox.
	OutputDir string
	// Limits bound the kernel's resources.
	Limits Limits
	// CgroupLimits says the host enforces --memory, --pids-limit and --cpus.
	// When false (rootless on cgroup v1) the driver sets rlimits instead.
	CgroupLimits bool
	// RequireLimits refuses to start a kernel where memory and processes
	// cannot be limited as totals (CgroupLimits false): for callers who need
	// that guarantee rather than the per-process rlimit fallback.
	RequireLimits bool
	// Rootless says podman runs without root; the container user is then the
	// caller's own uid (--userns=keep-id), so files in /output are theirs.
	Rootless bool
	// Runner runs podman; nil means command.Exec{}.
	Runner command.Runner
	// StartTimeout bounds container start plus the driver's imports.
	StartTimeout time.Duration
	// InterruptGrace is how long a cell may take to stop after an interrupt
	// (its timeout, or the caller's ctx ending) before the kernel is killed;
	// zero means DefaultInterruptGrace. Nothing the kernel sends meanwhile
	// extends it.
	InterruptGrace time.Duration
	// NoPreload skips importing pandas and matplotlib at start (benchmarks).
	NoPreload bool
	// Podman is the podman binary; empty means "podman".
	Podman string
}

// DataFile is a file of the data: Source on the host, seen at
// /data/Path in the kernel (Path relative, with '/').
type DataFile struct {
	Path, Source string
	// Dir and Rel, when Dir is set, are how the file is opened instead of
	// Source: Rel beneath the folder Dir, no link followed (the folder as
	// it was checked, whatever its owner swapped since).
	Dir *dirfd.Dir
	Rel string
	// ID, when set, is the file that was checked and hashed: staging
	// refuses another one (a *DataChangedError).
	ID dirfd.ID
}

// DataChangedError is a data file that is not, when staged, the file that
// was checked: replaced, or reached through a link that was not there.
type DataChangedError struct {
	Path string // the file as the caller named it (Source)
	Why  string
}

func (e *DataChangedError) Error() string {
	return e.Path + ": the file changed between its check and its staging for the kernel (" + e.Why + ")"
}

// Mount is a host path mounted read-only at Target in the kernel.
type Mount struct {
	Source, Target string
}

// Limits are the sandbox's resource limits.
type Limits struct {
	MemoryBytes int64   // address space when enforced by rlimit
	Pids        int     // processes and threads
	CPUs        float64 // CPU share (cgroups only)
	TmpBytes    int64   // size of the /tmp tmpfs
	OutputBytes int64   // size of the /output tmpfs, and of all it may copy to the host
	NoFile      int     // open files
	// Output caps per cell, enforced by the driver.
	StreamBytes     int // stream text kept; the rest is dropped with a marker
	StreamStopBytes int // stream text after which the cell is stopped
	ImageBytes      int // largest PNG kept
	HTMLBytes       int // largest HTML view kept
	MaxDisplays     int // rich outputs kept per cell
	// CellTimeout is the default per-cell timeout.
	CellTimeout time.Duration
}

// cellOutputBytes bounds the output replies Go accepts for one cell,
// whatever the driver claims: what the driver's own caps let through (the
// stream text kept twice over, each display at its largest image in base64
// plus its HTML twice, and room for an error's traceback). A driver past it
// is not the driver's code speaking.
func (l Limits) cellOutputBytes() int64 {
	perDisplay := int64(l.ImageBytes)/3*4 + 2*int64(l.HTMLBytes) + 64<<10
	return 2*int64(l.StreamBytes) + int64(l.MaxDisplays)*perDisplay + 4<<20
}

// DefaultLimits are the limits used unless the caller sets others.
func DefaultLimits() Limits {
	return Limits{
		MemoryBytes:     DefaultMemoryBytes(),
		Pids:            256,
		CPUs:            2,
		TmpBytes:        256 << 20,
		OutputBytes:     256 << 20,
		NoFile:          1024,
		StreamBytes:     1 << 20,
		StreamStopBytes: 64 << 20,
		ImageBytes:      8 << 20,
		HTMLBytes:       1 << 20,
		MaxDisplays:     50,
		CellTimeout:     60 * time.Second,
	}
}

// Memory limit defaults (see MemoryForHost).
const (
	// FallbackMemoryBytes is the limit where the host's RAM cannot be read.
	FallbackMemoryBytes = 2 << 30
	minMemoryBytes      = 1 << 30
	memoryStep          = 256 << 20
)

// DefaultMemoryHelp says how the default memory limit is chosen, for
// --help and messages.
const DefaultMemoryHelp = "half of the host's RAM (MemTotal), rounded down to 256 MiB, at least 1 GiB"

var (
	defaultMemoryOnce sync.Once
	defaultMemory     int64
)

// DefaultMemoryBytes is the kernel's memory limit unless one is set:
// MemoryForHost of this host's RAM, or FallbackMemoryBytes where
// /proc/meminfo cannot be read.
func DefaultMemoryBytes() int64 {
	defaultMemoryOnce.Do(func() {
		defaultMemory = FallbackMemoryBytes
		if in, err := meminfo.Read(); err == nil {
			defaultMemory = MemoryForHost(in.Total)
		}
	})
	return defaultMemory
}

// MemoryForHost is the default memory limit on a host with total bytes of
// RAM: half of it, rounded down to 256 MiB, at least 1 GiB. Half, because a
// pandas frame needs room to be worked on (the load and the profile peak at
// about 1.3 times the frame's size) while the host keeps the other half for
// itself, its page cache and other work; a cgroup limit reserves nothing, so
// a generous cap costs nothing until it is used. MemTotal rather than
// MemAvailable: the limit is recorded in the report, and two runs of the same
// data on the same machine must write the same bytes.
func MemoryForHost(total int64) int64 {
	m := total / 2 / memoryStep * memoryStep
	if m < minMemoryBytes {
		m = minMemoryBytes
	}
	return m
}

// withDefaults fills zero fields from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MemoryBytes == 0 {
		l.MemoryBytes = d.MemoryBytes
	}
	if l.Pids == 0 {
		l.Pids = d.Pids
	}
	if l.CPUs == 0 {
		l.CPUs = d.CPUs
	}
	if l.TmpBytes == 0 {
		l.TmpBytes = d.TmpBytes
	}
	if l.OutputBytes == 0 {
		l.OutputBytes = d.OutputBytes
	}
	if l.NoFile == 0 {
		l.NoFile = d.NoFile
	}
	if l.StreamBytes == 0 {
		l.StreamBytes = d.StreamBytes
	}
	if l.StreamStopBytes == 0 {
		l.StreamStopBytes = d.StreamStopBytes
	}
	if l.ImageBytes == 0 {
		l.ImageBytes = d.ImageBytes
	}
	if l.HTMLBytes == 0 {
		l.HTMLBytes = d.HTMLBytes
	}
	if l.MaxDisplays == 0 {
		l.MaxDisplays = d.MaxDisplays
	}
	if l.CellTimeout == 0 {
		l.CellTimeout = d.CellTimeout
	}
	return l
}

// Enforced describes, for a run manifest, how each limit is enforced.
type Enforced struct {
	Memory  string `json:"memory"`
	Pids    string `json:"pids"`
	CPUs    string `json:"cpus"`
	Tmp     string `json:"tmp"`
	Output  string `json:"output"`
	NoFile  string `json:"nofile"`
	Network string `json:"network"`
	// Totals says memory and processes are limited in total (cgroups);
	// false means per process only (rlimits).
	Totals bool `json:"totals"`
}

// Enforcement reports how the limits in o are enforced on this host.
func (o Options) Enforcement() Enforced {
	l := o.Limits.withDefaults()
	e := Enforced{
		Tmp: fmt.Sprintf("tmpfs size %s, at most %d files and folders", units.Bytes(l.TmpBytes), tmpfsFiles(l.TmpBytes)),
		Output: fmt.Sprintf("tmpfs size %s, at most %d files and folders, copied out after each cell (at most %s in total)",
			units.Bytes(l.OutputBytes), tmpfsFiles(l.OutputBytes), units.Bytes(l.OutputBytes)),
		NoFile:  fmt.Sprintf("rlimit %d", l.NoFile),
		Network: "none (only a loopback interface)",
	}
	if o.CgroupLimits {
		e.Totals = true
		e.Memory = fmt.Sprintf("cgroup %s", units.Bytes(l.MemoryBytes))
		e.Pids = fmt.Sprintf("cgroup %d", l.Pids)
		e.CPUs = fmt.Sprintf("cgroup %g", l.CPUs)
	} else {
		e.Memory = fmt.Sprintf("rlimit address space %s per process only (host does not enforce cgroup limits); worst case = %s × %d processes = %s",
			units.Bytes(l.MemoryBytes), units.Bytes(l.MemoryBytes), l.Pids, units.Bytes(l.MemoryBytes*int64(l.Pids)))
		e.Pids = fmt.Sprintf("rlimit nproc %d (host does not enforce cgroup limits)", l.Pids)
		e.CPUs = "not enforced (host does not enforce cgroup limits)"
	}
	return e
}

// ErrLimitsNotEnforced is returned by Start when Options.RequireLimits is
// set and the host cannot enforce memory and process limits as totals.
var ErrLimitsNotEnforced = errors.New("memory and process limits cannot be enforced as totals on this host")

// checkRequiredLimits refuses a host without total limits when asked to.
func (o Options) checkRequiredLimits() error {
	if !o.RequireLimits || o.CgroupLimits {
		return nil
	}
	l := o.Limits.withDefaults()
	return fmt.Errorf("starting kernel: %w: podman cannot apply cgroup memory and pids limits for this user here (as with rootless podman on cgroup v1), so memory would be limited per process only "+
		"(worst case %s × %d processes = %s) and kernel.require-limits is set; "+
		"run as root (rootful podman), or boot with cgroup v2 (systemd.unified_cgroup_hierarchy=1) and delegate the memory and pids controllers to this user",
		ErrLimitsNotEnforced, units.Bytes(l.MemoryBytes), l.Pids, units.Bytes(l.MemoryBytes*int64(l.Pids)))
}

// sandboxUID is the container user when podman runs as root: not root, and
// not a uid a desktop user is likely to have.
const sandboxUID = 10001
