package image

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/analyst-cli/analyst/internal/command"
)

// stopGrace is how long a cancelled bootstrap tool gets to clean up after
// SIGINT (debootstrap unmounts, mmdebstrap removes its temporary tree)
// before its whole process group is killed.
const stopGrace = 10 * time.Second

// streamOpts configure runStreaming.
type streamOpts struct {
	prefix string   // put before every line of output
	env    []string // the command's whole environment
	// hold, if set, is inherited by the command and all it starts: the
	// build lock, kept for as long as any of them lives.
	hold *os.File
}

// runStreaming runs a long command whose output is progress: every line it
// prints goes to w behind o.prefix as it comes. The command runs in its own
// process group and cancelling ctx interrupts the whole group, because
// bootstrap tools leave children (dpkg, apt, wget) that would otherwise keep
// writing into a tree being removed; runStreaming returns only when no
// process of the group is left. Should this process die instead, the
// command gets SIGINT. Errors are *command.Error carrying the last lines of
// output.
func runStreaming(ctx context.Context, r command.Runner, w io.Writer, o streamOpts, name string, args ...string) error {
	cmd := r.Command(ctx, name, args...)
	cmd.Env = o.env
	lw := &lineWriter{w: w, prefix: o.prefix}
	cmd.Stdout = lw
	cmd.Stderr = lw
	if o.hold != nil {
		cmd.ExtraFiles = []*os.File{o.hold}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGINT}
	// Interrupt the group as a terminal's Ctrl-C would.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
	cmd.WaitDelay = stopGrace
	err := cmd.Start()
	if err == nil {
		err = cmd.Wait()
		// The leader may be gone while children it left are not.
		killGroup(cmd.Process.Pid)
	}
	lw.flush()
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		return &command.Error{Args: append([]string{name}, args...), Stderr: lw.tail(), Err: err}
	}
	return nil
}

// killGroup kills what is left of process group pgid and waits, a bounded
// time, until it is empty.
func killGroup(pgid int) {
	if syscall.Kill(-pgid, syscall.SIGKILL) != nil {
		return // ESRCH: nothing left
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// lineWriter copies whole lines to w, each behind prefix, and remembers the
// last few for error messages.
type lineWriter struct {
	mu      sync.Mutex
	w       io.Writer
	prefix  string
	partial []byte
	last    []string
}

const tailLines = 30

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		l.line(string(l.partial[:i]))
		l.partial = l.partial[i+1:]
	}
	return len(p), nil
}

func (l *lineWriter) line(s string) {
	s = strings.TrimRight(s, "\r")
	// A terminal would show only what follows the last carriage return
	// (dpkg's "Reading database ... 45%" counters).
	if i := strings.LastIndexByte(s, '\r'); i >= 0 {
		s = s[i+1:]
	}
	fmt.Fprintf(l.w, "%s%s\n", l.prefix, s)
	l.last = append(l.last, s)
	if len(l.last) > tailLines {
		l.last = l.last[len(l.last)-tailLines:]
	}
}

func (l *lineWriter) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.partial) > 0 {
		l.line(string(l.partial))
		l.partial = nil
	}
}

func (l *lineWriter) tail() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.last, "\n")
}
