// Package kernel runs Python code in a sandboxed, persistent kernel: one
// rootless-capable Podman container per kernel, started once, with an embedded
// driver that speaks JSON lines over the container's stdin and stdout.
package kernel

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/analyst-cli/analyst/internal/command"
	"github.com/analyst-cli/analyst/internal/meminfo"
	"github.com/analyst-cli/analyst/internal/units"
	"github.com/analyst-cli/analyst/nbformat"
)

// Labels put on every kernel container, so leftovers can be found (Prune):
// the owner is the analyst process that started it, by pid and start time
// (clock ticks after boot), since pids are reused.
const (
	LabelKernel     = "io.analyst.kernel"
	LabelOwner      = "io.analyst.owner-pid"
	LabelOwnerStart = "io.analyst.owner-start"
	namePrefix      = "analyst-kernel-"
)

// maxLine bounds one protocol line (an 8 MiB PNG is about 11 MiB of base64).
const maxLine = 64 << 20

// linesQueued bounds the lines read ahead of Execute. Few: a file chunk is a
// 5.6 MB line, and whatever is queued when a cell is interrupted must still
// be handled within the grace (64 queued chunks took longer than 5 s at a
// load average of 16 on 2 cores); past them the driver waits on its pipe.
const linesQueued = 4

// ErrDead is returned by Execute once the kernel has died or been killed.
var ErrDead = errors.New("kernel is not running")

// Kernel is a running sandboxed Python kernel. Its methods are safe for
// concurrent use; cells run one at a time.
type Kernel struct {
	opts   Options
	limits Limits
	name   string
	runner command.Runner
	podman string
	tmpDir string
	out    *outputSink // nil without an output folder
	// stagedData is the data as mounted, from a neutral path (stage.go).
	stagedData *staged

	cmd     *exec.Cmd
	args    []string
	stdin   io.WriteCloser
	stderr  *tailBuffer
	lines   chan []byte
	exited  chan struct{} // closed when the podman process has exited
	waitErr error

	ready readyReply

	forks *forkTable // the sessions forked from this kernel (fork.go)
	fork  *forkLink  // set when this kernel is a forked session

	mu      sync.Mutex // one cell at a time
	deadMu  sync.Mutex
	dead    error // set once the kernel can no longer run cells
	closeMu sync.Mutex
	closed  bool
	seq     int
}

// Start starts a kernel and waits until the driver has imported pandas and
// matplotlib and is ready for code.
func Start(ctx context.Context, opts Options) (*Kernel, error) {
	if err := opts.checkStart(); err != nil {
		return nil, err
	}
	k := newKernel(opts)
	if err := k.launch(); err != nil {
		k.cleanupFiles()
		return nil, err
	}
	if err := k.send(k.driverConfig()); err != nil {
		k.Close()
		return nil, k.startError(err)
	}
	if err := k.waitReady(ctx); err != nil {
		k.Close() // first: podman's last words complete the error
		if ctx.Err() != nil {
			return nil, fmt.Errorf("starting kernel: %w", ctx.Err())
		}
		return nil, k.startError(err)
	}
	return k, nil
}

// checkStart refuses options no kernel can start with.
func (o Options) checkStart() error {
	if err := o.checkRequiredLimits(); err != nil {
		return err
	}
	if o.RootFS == "" {
		return errors.New("starting kernel: no kernel image given (run: analyst kernel build)")
	}
	if _, err := os.Stat(filepath.Join(o.RootFS, "usr", "bin", "python3")); err != nil {
		return fmt.Errorf("starting kernel: %s is not a kernel image (no usr/bin/python3); run: analyst kernel build", o.RootFS)
	}
	return nil
}

func newKernel(opts Options) *Kernel {
	k := &Kernel{
		opts:   opts,
		limits: opts.Limits.withDefaults(),
		name:   namePrefix + randomHex(6),
		runner: opts.Runner,
		podman: opts.Podman,
		stderr: &tailBuffer{max: 16 << 10},
		lines:  make(chan []byte, linesQueued),
		exited: make(chan struct{}),
		forks:  &forkTable{},
	}
	if k.runner == nil {
		k.runner = command.Exec{}
	}
	if k.podman == "" {
		k.podman = "podman"
	}
	return k
}

// launch prepares the kernel's files and output folder and starts podman;
// on an error nothing runs (the caller removes the files).
func (k *Kernel) launch() error {
	if err := k.prepareMounts(); err != nil {
		return err
	}
	if k.opts.OutputDir != "" {
		out, err := newOutputSink(k.opts.OutputDir, k.limits.OutputBytes)
		if err != nil {
			return fmt.Errorf("starting kernel: %w", err)
		}
		k.out = out
	}
	args, err := k.podmanArgs()
	if err != nil {
		return err
	}
	k.args = args
	// The container outlives any one call's ctx; Close ends it.
	cmd := k.runner.Command(context.Background(), k.podman, args...)
	// Own process group: a Ctrl-C at the terminal reaches analyst, which
	// then stops the kernel in order, not podman directly.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = k.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("starting kernel: %w", err)
	}
	if k.stdin, err = cmd.StdinPipe(); err != nil {
		return fmt.Errorf("starting kernel: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return k.startError(fmt.Errorf("running podman: %w", err))
	}
	k.cmd = cmd
	go k.readLines(stdout)
	go func() {
		k.waitErr = cmd.Wait()
		close(k.exited)
	}()
	return nil
}

// driverConfig is the driver's first line: the caps it enforces.
func (k *Kernel) driverConfig() driverConfig {
	cfg := driverConfig{
		Preload:         !k.opts.NoPreload,
		StreamLimit:     k.limits.StreamBytes,
		StreamStopLimit: k.limits.StreamStopBytes,
		ImageLimit:      k.limits.ImageBytes,
		HTMLLimit:       k.limits.HTMLBytes,
		MaxDisplays:     k.limits.MaxDisplays,
		RLimits:         k.rlimits(),
		SessionMemory:   k.limits.MemoryBytes,
	}
	if k.opts.OutputDir != "" {
		cfg.OutputDir = OutputMount
		cfg.OutputLimit = units.Bytes(k.limits.OutputBytes)
		cfg.OutputMaxFiles = maxOutputFiles
	}
	return cfg
}

// DefaultStartTimeout bounds a start unless Options.StartTimeout says
// otherwise.
const DefaultStartTimeout = 90 * time.Second

// waitReady waits for the driver's ready line, within the start timeout
// and ctx; it says why it stopped waiting.
func (k *Kernel) waitReady(ctx context.Context) error {
	timeout := k.opts.StartTimeout
	if timeout == 0 {
		timeout = DefaultStartTimeout
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-k.lines:
			if !ok {
				<-k.exited
				return errors.New("the kernel exited before it was ready")
			}
			var m reply
			if err := json.Unmarshal(line, &m); err != nil || m.Type != replyReady {
				continue
			}
			if err := json.Unmarshal(line, &k.ready); err != nil {
				return fmt.Errorf("reading ready message: %w", err)
			}
			return nil
		case <-timer.C:
			return fmt.Errorf("the kernel was not ready after %s", timeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (k *Kernel) startError(err error) error {
	return fmt.Errorf("starting kernel: %w\ncommand: %s\n%s", err, command.Line(append([]string{k.podman}, k.args...)...), strings.TrimSpace(k.stderr.String()))
}

// Name is the container's name.
func (k *Kernel) Name() string { return k.name }

// Python is the kernel's Python version.
func (k *Kernel) Python() string { return k.ready.Python }

// UID is the user id the driver runs as inside the container.
func (k *Kernel) UID() int { return k.ready.UID }

// PreloadTime is how long the driver took to import pandas and matplotlib.
func (k *Kernel) PreloadTime() time.Duration {
	return time.Duration(k.ready.PreloadMS * float64(time.Millisecond))
}

// RLimits are the rlimits the driver applied (memory/pids fallback).
func (k *Kernel) RLimits() map[string]any { return k.ready.RLimits }

// OutputFiles are the files the kernel copied out of /output into
// Options.OutputDir, by name (none without an output folder). What the
// sandbox wrote to the host: a report lists them.
func (k *Kernel) OutputFiles() []OutputFile {
	if k.out == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.out.files()
}

// Options returns the options the kernel was started with.
func (k *Kernel) Options() Options { return k.opts }

// Limits returns the limits in force, defaults filled in.
func (k *Kernel) Limits() Limits { return k.limits }

// ExecOptions tune one Execute call.
type ExecOptions struct {
	// Timeout for this cell; zero means Limits.CellTimeout.
	Timeout time.Duration
	// Progress, if set, is told how far the cell has got, as the cell's code
	// logs it to Python's "analyst.progress" logger (at most twice a second).
	Progress func(Progress)
}

// Progress is how far a running cell has got: "read 312 of 529 MiB (59%)",
// with the numbers where the code gave them (Done of Total Units).
type Progress struct {
	Message string
	Done    int64 // 0 when not given
	Total   int64 // 0 when not given
	Unit    string
}

// Execute runs code in the kernel and returns its outputs. A cell that raises
// is not an error: see Execution.Status and Execution.Error. The error is for
// a kernel that cannot run code (ErrDead) or a ctx that ended; in the latter
// case the partial Execution is returned too.
func (k *Kernel) Execute(ctx context.Context, code string, eo ExecOptions) (*Execution, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.deadErr(); err != nil {
		return nil, err
	}
	timeout := eo.Timeout
	if timeout == 0 {
		timeout = k.limits.CellTimeout
	}
	k.seq++
	id := strconv.Itoa(k.seq)
	ex := &Execution{Code: code}
	start := time.Now()
	defer func() { ex.Duration = time.Since(start) }()

	req := executeRequest{Type: reqExecute, ID: id, Code: code}
	if k.out != nil {
		req.OutputRoom = k.out.room()
	}
	if err := k.send(req); err != nil {
		return k.died(ex, fmt.Errorf("sending cell: %w", err)), nil
	}
	clock := newCellClock(ctx, timeout, k.interruptGrace())
	defer clock.stop()
	for {
		select {
		case line, ok := <-k.lines:
			if !ok {
				<-k.exited
				k.died(ex, nil)
				if clock.why != "" {
					ex.Status = clock.why
				}
				return ex, clock.ctxErr
			}
			if k.handleReply(ex, id, line, eo.Progress) {
				k.endCell(ex, clock.why)
				return ex, clock.ctxErr
			}
			if ex.outputBytes > k.limits.cellOutputBytes() {
				k.floodedCell(ex)
				return ex, clock.ctxErr
			}
		case <-clock.timer.C:
			if clock.interrupt(StatusTimeout) {
				_ = k.send(interruptRequest{Type: reqInterrupt, Reason: string(StatusTimeout)})
			}
		case <-clock.ctxDone:
			if clock.cancel() {
				_ = k.send(interruptRequest{Type: reqInterrupt, Reason: "cancel"})
			}
		case <-clock.graceC:
			k.killCell(ex, clock.why)
			return ex, clock.ctxErr
		}
	}
}

// cellClock decides, in one place, when a running cell must stop: at its
// timeout, or when the caller's ctx ends (Ctrl-C, SIGTERM), the cell is
// interrupted, and from then on the kernel has a fixed grace to end it.
// Nothing the driver sends meanwhile (outputs, files being copied out)
// extends the grace: a driver the cell has subverted cannot stall the
// caller.
type cellClock struct {
	ctx     context.Context
	timer   *time.Timer
	ctxDone <-chan struct{} // nil once seen
	grace   time.Duration
	graceC  <-chan time.Time // nil until the interrupt
	why     Status           // why the cell was interrupted; "" if it was not
	ctxErr  error
}

func newCellClock(ctx context.Context, timeout, grace time.Duration) *cellClock {
	return &cellClock{ctx: ctx, timer: time.NewTimer(timeout), ctxDone: ctx.Done(), grace: grace}
}

func (c *cellClock) stop() { c.timer.Stop() }

// interrupt starts the grace, once; it reports whether to send the
// interrupt (false: the cell was interrupted already).
func (c *cellClock) interrupt(why Status) bool {
	if c.why != "" {
		return false
	}
	c.why = why
	c.graceC = time.After(c.grace)
	return true
}

// cancel records that the caller's ctx ended and interrupts the cell.
func (c *cellClock) cancel() bool {
	c.ctxDone = nil
	c.ctxErr = c.ctx.Err()
	return c.interrupt(StatusInterrupted)
}

// DefaultInterruptGrace is how long an interrupted cell may take to stop
// before its kernel is killed, unless Options.InterruptGrace says otherwise.
const DefaultInterruptGrace = 5 * time.Second

func (k *Kernel) interruptGrace() time.Duration {
	if k.opts.InterruptGrace > 0 {
		return k.opts.InterruptGrace
	}
	return DefaultInterruptGrace
}

// handleReply adds one line of the driver's to ex, if it is about the
// cell id; it reports whether the line was the cell's status (its end).
func (k *Kernel) handleReply(ex *Execution, id string, line []byte, progress func(Progress)) bool {
	var m reply
	if err := json.Unmarshal(line, &m); err != nil || m.ID != id {
		return false
	}
	switch m.Type {
	case replyOutput:
		ex.outputBytes += int64(len(m.Output))
		var o nbformat.Output
		if err := json.Unmarshal(m.Output, &o); err == nil {
			ex.Outputs = append(ex.Outputs, o)
			if o.OutputType == nbformat.OutputError {
				ex.Error = &ExecError{Name: o.EName, Value: o.EValue, Traceback: o.Traceback}
			}
		}
	case replyProgress:
		if progress != nil {
			p := Progress{Message: m.Message, Unit: m.Unit}
			if m.Done != nil {
				p.Done = *m.Done
			}
			if m.Total != nil {
				p.Total = *m.Total
			}
			progress(p)
		}
	case replyFile:
		if k.out != nil {
			k.out.receive(m.fileReply)
		}
	case replyStatus:
		ex.Status = Status(m.Status)
		ex.ExecutionCount = m.ExecutionCount
		ex.KilledProcesses = m.KilledProcesses
		return true
	}
	return false
}

// endCell completes ex after its status line: the files not copied out,
// and the status as the caller sees it (why it interrupted the cell).
func (k *Kernel) endCell(ex *Execution, interrupted Status) {
	k.notCopied(ex)
	if ex.Status == StatusInterrupted && interrupted != "" {
		ex.Status = interrupted
	}
	if ex.Status == StatusOK && ex.Error != nil {
		ex.Status = StatusError // files of the cell were not copied out
	}
}

// killCell ends a cell that did not stop within the grace: only killing
// the kernel stops it.
func (k *Kernel) killCell(ex *Execution, why Status) {
	ex.Status = why
	ex.StateLost = true
	ex.Cause = "the cell did not stop after an interrupt; the " + k.what() + " was killed and its state (variables, loaded data) is lost"
	k.markDead(fmt.Errorf("%w: %s", ErrDead, ex.Cause))
	// Nobody reads the driver's lines any more: drop them, so podman is
	// never blocked writing them while it is being removed.
	go func() {
		for range k.lines {
		}
	}()
	_ = k.remove()
}

// floodedCell ends a cell whose outputs passed what the driver may send
// for one cell: the driver is not keeping its own caps (the cell's code
// writes to its protocol stream), so nothing more it says can be trusted,
// and the kernel is stopped. What was received is kept.
func (k *Kernel) floodedCell(ex *Execution) {
	ex.Status = StatusDied
	ex.StateLost = true
	ex.Cause = fmt.Sprintf("the cell's outputs passed %s, more than the driver sends for one cell under the output caps (stream, images, HTML, "+
		"displays): the cell wrote to the kernel's protocol channel itself, so the %s was stopped and its state is lost",
		units.Bytes(k.limits.cellOutputBytes()), k.what())
	k.markDead(fmt.Errorf("%w: %s", ErrDead, ex.Cause))
	go func() { // drop what is still queued, so podman never blocks on it
		for range k.lines {
		}
	}()
	_ = k.remove()
}

// maxNotCopiedShown bounds the reasons an OutputNotCopied error lists (a
// cell may leave 20,000 files in /output); the rest are counted.
const maxNotCopiedShown = 5

// notCopied adds an error output to ex for the files of its cell that were
// not copied out of /output (output folder full, a name the folder already
// had): the cell failed to do what it meant to.
func (k *Kernel) notCopied(ex *Execution) {
	if k.out == nil {
		return
	}
	why := k.out.endCell()
	if len(why) == 0 {
		return
	}
	shown := why[:min(len(why), maxNotCopiedShown)]
	value := strings.Join(shown, "; ")
	head := "OutputNotCopied: files written to /output were not copied to the output folder:"
	if more := len(why) - len(shown); more > 0 {
		value += fmt.Sprintf("; and %d more", more)
		head = fmt.Sprintf("OutputNotCopied: %d files written to /output were not copied to the output folder; the first %d:", len(why), len(shown))
		shown = append(slices.Clone(shown), fmt.Sprintf("(and %d more)", more))
	}
	o := nbformat.Output{OutputType: nbformat.OutputError, EName: "OutputNotCopied", EValue: value,
		Traceback: append([]string{head}, shown...)}
	ex.Outputs = append(ex.Outputs, o)
	if ex.Error == nil {
		ex.Error = &ExecError{Name: o.EName, Value: o.EValue, Traceback: o.Traceback}
	}
}

// died records that the kernel process ended during ex.
func (k *Kernel) died(ex *Execution, sendErr error) *Execution {
	cause, oom := k.exitCause()
	if sendErr != nil && cause == "" {
		cause = sendErr.Error()
	}
	ex.Status = StatusDied
	ex.StateLost = true
	ex.Cause = cause
	ex.OutOfMemory = oom
	k.markDead(fmt.Errorf("%w: %s", ErrDead, cause))
	return ex
}

// exitCause explains why the container ended, from podman's record of it,
// and says whether it ran out of memory.
func (k *Kernel) exitCause() (string, bool) {
	if k.fork != nil {
		return k.fork.exitCause()
	}
	select {
	case <-k.exited:
	case <-time.After(10 * time.Second):
		return "the kernel stopped answering", false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	out, err := k.runner.Run(ctx, k.podman, "inspect", "--format", "{{.State.OOMKilled}} {{.State.ExitCode}}", k.name)
	oom, code := false, -1
	if err == nil {
		f := strings.Fields(string(out))
		if len(f) == 2 {
			oom = f[0] == "true"
			code, _ = strconv.Atoi(f[1])
		}
	} else if c := command.ExitCode(k.waitErr); c >= 0 {
		code = c
	}
	switch {
	case oom || (code == 137 && k.opts.CgroupLimits):
		return OutOfMemoryMessage(k.limits.MemoryBytes, hostMemory()), true
	case code > 128:
		return fmt.Sprintf("the kernel was killed by signal %d; its state is lost", code-128), false
	case code >= 0:
		return fmt.Sprintf("the kernel exited with code %d; its state is lost%s", code, stderrTail(k.stderr.String())), false
	default:
		return "the kernel exited; its state is lost" + stderrTail(k.stderr.String()), false
	}
}

// hostMemory is the host's RAM in bytes, 0 if unknown.
func hostMemory() int64 {
	if in, err := meminfo.Read(); err == nil {
		return in.Total
	}
	return 0
}

// OutOfMemoryMessage is the cause of a kernel killed at its memory limit:
// which limit, the RAM of the host (hostTotal; 0: unknown), and the setting
// that raises it (as flag, config key and environment variable) with a
// limit that fits: twice the limit, at most MaxMemoryForHost. Where the limit
// is that already, it says so instead.
func OutOfMemoryMessage(limit, hostTotal int64) string {
	return fmt.Sprintf("the kernel ran out of memory (limit %s) and was killed; its state is lost. ", units.Bytes(limit)) +
		memoryAdvice(limit, hostTotal)
}

// memoryAdvice is what to change after running out of memory at limit.
func memoryAdvice(limit, hostTotal int64) string {
	setting := fmt.Sprintf("config key kernel.memory, environment ANALYST_KERNEL_MEMORY; the default is %s", DefaultMemoryHelp)
	raise := 2 * limit
	if hostTotal > 0 {
		raise = min(raise, MaxMemoryForHost(hostTotal))
		if raise >= 1<<30 {
			raise = raise >> 30 << 30 // a whole number of GiB, as the flag says it
		}
		if raise <= limit {
			return fmt.Sprintf("This host has %s of RAM: a limit above %s would leave too little for the host itself; "+
				"use a machine with more memory, or work on less of the data at once (fewer columns, chunks; "+
				"analyst run --out-of-core reads CSV and TSV files in chunks) (%s)", units.Bytes(hostTotal), units.Bytes(MaxMemoryForHost(hostTotal)), setting)
		}
		setting = fmt.Sprintf("this host has %s of RAM; ", units.Bytes(hostTotal)) + setting
	}
	return fmt.Sprintf("Raise the limit with --memory %s (%s)", units.Flag(raise), setting)
}

// MaxMemoryForHost is the largest memory limit OutOfMemoryMessage suggests
// on a host with total bytes of RAM: three quarters of it, rounded down to
// 256 MiB, leaving the rest to the host (its page cache, podman, analyst).
func MaxMemoryForHost(total int64) int64 {
	return total / 4 * 3 / memoryStep * memoryStep
}

func stderrTail(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if len(s) > 500 {
		s = "..." + s[len(s)-500:]
	}
	return " (" + s + ")"
}

// Versions asks the kernel for its Python and library versions.
func (k *Kernel) Versions(ctx context.Context) (map[string]string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.deadErr(); err != nil {
		return nil, err
	}
	k.seq++
	id := strconv.Itoa(k.seq)
	if err := k.send(infoRequest{Type: reqInfo, ID: id}); err != nil {
		return nil, fmt.Errorf("asking kernel for versions: %w", err)
	}
	for {
		select {
		case line, ok := <-k.lines:
			if !ok {
				return nil, fmt.Errorf("asking kernel for versions: %w", ErrDead)
			}
			var m reply
			if json.Unmarshal(line, &m) != nil || m.ID != id || m.Type != replyInfo {
				continue
			}
			out := map[string]string{}
			for name, v := range m.Versions {
				if s, ok := v.(string); ok {
					out[name] = s
				}
			}
			return out, nil
		case <-ctx.Done():
			return nil, fmt.Errorf("asking kernel for versions: %w", ctx.Err())
		}
	}
}

// Close stops the kernel and removes its container. It is safe to call more
// than once and from another goroutine while a cell runs (the cell then ends
// with StatusDied).
func (k *Kernel) Close() error {
	k.closeMu.Lock()
	defer k.closeMu.Unlock()
	if k.closed {
		return nil
	}
	k.closed = true
	k.markDead(fmt.Errorf("%w: closed", ErrDead))
	if k.fork != nil {
		return k.fork.close()
	}
	if k.cmd != nil {
		_ = k.send(shutdownRequest{Type: reqShutdown})
		_ = k.stdin.Close()
		select {
		case <-k.exited:
		case <-time.After(3 * time.Second):
		}
	}
	err := k.remove()
	if k.cmd != nil {
		select {
		case <-k.exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-k.cmd.Process.Pid, syscall.SIGKILL)
		}
	}
	if k.out != nil {
		k.out.close()
	}
	k.cleanupFiles()
	return err
}

// kill stops the container at once, keeping the record for exitCause.
func (k *Kernel) kill() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _ = k.runner.Run(ctx, k.podman, "kill", "--signal", "KILL", k.name)
}

// remove deletes the container, running or not; for a forked session, it
// kills the session's process.
func (k *Kernel) remove() error {
	if k.fork != nil {
		return k.fork.kill()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var err error
	for attempt := 0; ; attempt++ {
		_, err = k.runner.Run(ctx, k.podman, "rm", "--force", "--time", "0", "--ignore", k.name)
		// Podman 4.3 races with its own clean-up of a container whose
		// process just ended: the kill is refused as "container state
		// improper: stopped". The container is on its way out; ask again.
		if err == nil || !stoppingRace(err) || attempt == removeRetries || ctx.Err() != nil {
			break
		}
		time.Sleep(time.Duration(attempt+1) * 100 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("removing kernel container %s: %w", k.name, err)
	}
	return nil
}

// removeRetries bounds the extra podman rm calls after the stopping race.
const removeRetries = 5

// stoppingRace reports whether podman rm failed only because the container
// was stopping on its own at that moment.
func stoppingRace(err error) bool {
	var ce *command.Error
	return errors.As(err, &ce) && strings.Contains(ce.Stderr, "container state improper")
}

func (k *Kernel) markDead(err error) {
	k.deadMu.Lock()
	defer k.deadMu.Unlock()
	if k.dead == nil {
		k.dead = err
	}
}

func (k *Kernel) deadErr() error {
	k.deadMu.Lock()
	defer k.deadMu.Unlock()
	return k.dead
}

func (k *Kernel) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if k.fork != nil {
		return k.fork.send(b)
	}
	_, err = k.stdin.Write(append(b, '\n'))
	return err
}

func (k *Kernel) readLines(r io.Reader) {
	defer close(k.lines)
	defer k.forks.parentEnded()
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := readLine(br)
		if len(line) > 0 && !k.forks.take(line) {
			k.lines <- line
		}
		if err != nil {
			if errors.Is(err, errLineTooLong) {
				// A driver that breaks the protocol cannot be trusted further.
				k.markDead(fmt.Errorf("%w: protocol line over %d bytes", ErrDead, maxLine))
				k.kill()
				_, _ = io.Copy(io.Discard, br)
			}
			return
		}
	}
}

var errLineTooLong = errors.New("line too long")

func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > maxLine {
			return nil, errLineTooLong
		}
		buf = append(buf, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimRight(buf, "\n"), err
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// tailBuffer keeps the last max bytes written (podman's stderr).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
