package kernel

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/analyst-cli/analyst/internal/units"
)

// A kernel can fork: after the shared stages (setup, load, profile) Fork
// makes the driver fork(2) a child, a copy-on-write copy of the session
// that serves a request stream of its own (driver/analyst_fork.py; the
// framing is in protocol.go). The child is returned as a *Kernel with the
// same Execute, Versions and Close, so callers use it unchanged. What
// crosses the fork is in the README ("Forked sessions").

// ForkOptions configure one forked session.
type ForkOptions struct {
	// Name names the session: its output area is /output/NAME (its TMPDIR,
	// HOME and working folder have a random name). Lowercase letters, digits and '-', at most 40; "" means
	// "fork-N", N counting the kernel's forks from 1.
	Name string
	// Seed seeds the session's `random` and numpy's global generator; nil
	// means ForkSeed(Name), so a session's draws depend on its name only.
	Seed *int64
	// OutputDir receives the files the session writes to /output/NAME, like
	// Options.OutputDir (the kernel must have one); "": none are kept.
	OutputDir string
	// Timeout bounds the fork until the session is ready; zero means 30 s.
	Timeout time.Duration
}

// SessionInfo describes a forked session.
type SessionInfo struct {
	Number int    // the kernel's count of forks when it was made
	Name   string // ForkOptions.Name, or "fork-N"
	Seed   int64
	PID    int // its process inside the container
	// OutputPath is where its code writes files to keep ("" without an
	// output folder), /output/NAME.
	OutputPath string
}

var sessionName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`) // analyst_fork.NAME_RE

// ForkSeed is the seed of a session named name when none is given: the
// first four bytes of its SHA-256 (numpy's legacy seeds are 32-bit).
func ForkSeed(name string) int64 {
	sum := sha256.Sum256([]byte(name))
	return int64(binary.BigEndian.Uint32(sum[:4]))
}

// what the kernel is, in messages: "kernel", or "forked session".
func (k *Kernel) what() string {
	if k.fork != nil {
		return "forked session"
	}
	return "kernel"
}

// maxUnread bounds what a session may send that nobody reads (between
// cells a driver sends nothing; only a session's own code could).
const maxUnread = 2 * maxLine

// Session returns what the kernel is as a forked session, or nil for a
// kernel of its own container.
func (k *Kernel) Session() *SessionInfo {
	if k.fork == nil {
		return nil
	}
	info := k.fork.info
	return &info
}

// Fork forks a session from the kernel's current state. It waits for a
// running cell to end, and returns once the session is ready for code.
// Closing the kernel ends its sessions.
func (k *Kernel) Fork(ctx context.Context, fo ForkOptions) (*Kernel, error) {
	if k.fork != nil {
		return nil, errors.New("forking: a forked session cannot fork; fork the kernel it came from")
	}
	timeout := fo.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	child, err := k.newSession(fo)
	if err != nil {
		return nil, err
	}
	if err := k.requestFork(ctx, child); err != nil {
		child.fork.abandon(err)
		_ = child.Close()
		return nil, fmt.Errorf("forking session %s: %w", child.fork.info.Name, err)
	}
	if err := child.awaitReady(ctx); err != nil {
		child.fork.abandon(err)
		_ = child.Close()
		return nil, fmt.Errorf("forking session %s: %w", child.fork.info.Name, err)
	}
	return child, nil
}

// newSession makes the Go side of a session and registers it, so its lines
// find it from the first.
func (k *Kernel) newSession(fo ForkOptions) (*Kernel, error) {
	number := k.forks.nextNumber()
	name := fo.Name
	if name == "" {
		name = "fork-" + strconv.Itoa(number)
	}
	if !sessionName.MatchString(name) {
		return nil, fmt.Errorf("forking: session name %q: use lowercase letters, digits and '-' (at most 40, not starting with '-')", name)
	}
	seed := ForkSeed(name)
	if fo.Seed != nil {
		seed = *fo.Seed
	}
	child := &Kernel{opts: k.opts, limits: k.limits, name: k.name, runner: k.runner, podman: k.podman,
		stderr: k.stderr, lines: make(chan []byte, 64), exited: make(chan struct{})}
	child.opts.OutputDir = fo.OutputDir
	info := SessionInfo{Number: number, Name: name, Seed: seed}
	if fo.OutputDir != "" {
		if k.opts.OutputDir == "" {
			return nil, fmt.Errorf("forking session %s: an output folder was given, but the kernel was started without one (Options.OutputDir), so it has no /output", name)
		}
		out, err := newOutputSink(fo.OutputDir, k.limits.OutputBytes)
		if err != nil {
			return nil, fmt.Errorf("forking session %s: %w", name, err)
		}
		info.OutputPath = OutputMount + "/" + name
		out.area = info.OutputPath
		child.out = out
	}
	child.fork = newForkLink(k, child, info)
	if err := k.forks.add(child.fork); err != nil {
		if child.out != nil {
			child.out.close()
		}
		return nil, err
	}
	go child.fork.pump()
	return child, nil
}

// requestFork asks the parent to fork and waits for its answer. The
// parent's lock is held meanwhile: it forks between cells.
func (k *Kernel) requestFork(ctx context.Context, child *Kernel) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.deadErr(); err != nil {
		return err
	}
	k.seq++
	id := strconv.Itoa(k.seq)
	info := child.fork.info
	if err := k.send(forkRequest{Type: reqFork, ID: id, Session: info.Number, Name: info.Name, Seed: info.Seed}); err != nil {
		return fmt.Errorf("sending the fork request: %w", err)
	}
	for {
		select {
		case line, ok := <-k.lines:
			if !ok {
				return fmt.Errorf("%w: the kernel ended while forking", ErrDead)
			}
			var m reply
			if json.Unmarshal(line, &m) != nil || m.ID != id {
				continue
			}
			switch m.Type {
			case replyForked:
				if m.Refusal != "" {
					return fmt.Errorf("the kernel refused: %s", m.Refusal)
				}
				child.fork.info.PID = m.PID
				return nil
			case replyProtocolError:
				return fmt.Errorf("the kernel refused: %s", m.Error)
			}
		case <-ctx.Done():
			return fmt.Errorf("waiting for the kernel to fork: %w", ctx.Err())
		}
	}
}

// awaitReady waits for the session's first line.
func (k *Kernel) awaitReady(ctx context.Context) error {
	for {
		select {
		case line, ok := <-k.lines:
			if !ok {
				cause, _ := k.fork.exitCause()
				return fmt.Errorf("the session ended before it was ready: %s", cause)
			}
			var m reply
			if json.Unmarshal(line, &m) != nil {
				continue
			}
			switch m.Type {
			case replyReady:
				return json.Unmarshal(line, &k.ready)
			case replyProtocolError:
				return fmt.Errorf("the session failed to start: %s", m.Error)
			}
		case <-ctx.Done():
			return fmt.Errorf("waiting for the session to be ready: %w", ctx.Err())
		}
	}
}

// forkTable is a kernel's live sessions, by number, for the reader to find.
type forkTable struct {
	mu       sync.Mutex
	count    int
	sessions map[int]*forkLink
	ended    string // set when the kernel's own stream ended
}

func (t *forkTable) nextNumber() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.count++
	return t.count
}

func (t *forkTable) add(f *forkLink) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended != "" {
		return fmt.Errorf("forking: %w", ErrDead)
	}
	for _, s := range t.sessions {
		if s.info.Name == f.info.Name {
			return fmt.Errorf("forking: a session named %s is still running", f.info.Name)
		}
	}
	if t.sessions == nil {
		t.sessions = map[int]*forkLink{}
	}
	t.sessions[f.info.Number] = f
	return nil
}

func (t *forkTable) get(number int) *forkLink {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sessions[number]
}

func (t *forkTable) remove(number int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.sessions, number)
}

// take is the kernel's reader's hook: it keeps the lines of sessions ("@N
// ...") and the parent's news of their end, and reports whether it did.
func (t *forkTable) take(line []byte) bool {
	if line[0] == sessionFrame {
		head, rest, _ := bytes.Cut(line[1:], []byte{' '})
		if n, err := strconv.Atoi(string(head)); err == nil {
			if f := t.get(n); f != nil {
				f.deliver(rest)
			}
		}
		return true
	}
	if !bytes.Contains(line[:min(len(line), 32)], []byte(`"`+replyForkEnd+`"`)) {
		return false
	}
	var m reply
	if json.Unmarshal(line, &m) != nil || m.Type != replyForkEnd {
		return false
	}
	if f := t.get(m.Session); f != nil {
		f.finish(sessionEnd{forkEndReply: m.forkEndReply})
	}
	return true
}

// parentEnded ends every session: the container's stream has closed.
func (t *forkTable) parentEnded() {
	t.mu.Lock()
	t.ended = "closed"
	sessions := make([]*forkLink, 0, len(t.sessions))
	for _, s := range t.sessions {
		sessions = append(sessions, s)
	}
	t.mu.Unlock()
	for _, s := range sessions {
		s.finish(sessionEnd{parentGone: true})
	}
}

// sessionEnd is how a session's process ended.
type sessionEnd struct {
	forkEndReply
	parentGone bool // the whole kernel ended
	why        string
}

// forkLink is a session's tie to the kernel it was forked from: its lines
// come through the parent's reader, its requests go into the parent's stdin.
type forkLink struct {
	parent *Kernel
	k      *Kernel // the session
	info   SessionInfo

	mu      sync.Mutex
	queue   [][]byte // lines for k.lines, not yet taken
	unread  int
	flooded bool // sent more than maxUnread: killed
	wake    chan struct{}
	end     *sessionEnd
	gone    chan struct{} // closed when the session's end is known
	closing chan struct{} // closed by Close: stop handing lines over
}

func newForkLink(parent, k *Kernel, info SessionInfo) *forkLink {
	return &forkLink{parent: parent, k: k, info: info, wake: make(chan struct{}, 1),
		gone: make(chan struct{}), closing: make(chan struct{})}
}

// send writes a request for the session: framed, in one write to the
// parent's stdin (writes to a pipe are not interleaved).
func (f *forkLink) send(b []byte) error {
	framed := make([]byte, 0, len(b)+12)
	framed = append(framed, sessionFrame)
	framed = strconv.AppendInt(framed, int64(f.info.Number), 10)
	framed = append(append(append(framed, ' '), b...), '\n')
	_, err := f.parent.stdin.Write(framed)
	return err
}

// deliver queues a line of the session. The queue is unbounded so that one
// session never stalls the kernel's reader; its unread bytes are bounded.
func (f *forkLink) deliver(line []byte) {
	f.mu.Lock()
	if f.end != nil || f.flooded || f.unread+len(line) > maxUnread {
		over := f.end == nil && !f.flooded
		f.flooded = true
		f.mu.Unlock()
		if over {
			f.k.markDead(fmt.Errorf("%w: the session sent more than %s that nobody read", ErrDead, units.Bytes(maxUnread)))
			_ = f.kill()
		}
		return
	}
	f.queue = append(f.queue, line) // the reader made it for us
	f.unread += len(line)
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// pump hands queued lines to the session's reader (Execute) in order; once
// the session has ended and all are handed over, it closes k.lines.
func (f *forkLink) pump() {
	defer close(f.k.lines)
	for {
		f.mu.Lock()
		batch := f.queue
		f.queue = nil
		ended := f.end != nil
		f.mu.Unlock()
		for _, line := range batch {
			select {
			case f.k.lines <- line:
			case <-f.closing:
				return
			}
			f.mu.Lock()
			f.unread -= len(line)
			f.mu.Unlock()
		}
		if ended && len(batch) == 0 {
			return
		}
		select {
		case <-f.wake:
		case <-f.gone:
		case <-f.closing:
			return
		}
	}
}

// finish records how the session ended (once) and lets its reader know.
func (f *forkLink) finish(e sessionEnd) {
	f.mu.Lock()
	if f.end != nil {
		f.mu.Unlock()
		return
	}
	f.end = &e
	f.mu.Unlock()
	f.parent.forks.remove(f.info.Number)
	close(f.gone)
	close(f.k.exited)
}

// abandon ends a session that never became ready. The kill also reaches a
// fork the parent has not made yet: it then refuses to make it.
func (f *forkLink) abandon(err error) {
	_ = f.kill()
	f.finish(sessionEnd{why: err.Error()})
}

// kill asks the parent to kill the session's process at once.
func (f *forkLink) kill() error {
	return f.parent.send(forkKillRequest{Type: reqForkKill, Session: f.info.Number})
}

// exitCause says why the session ended, and whether it ran out of memory.
func (f *forkLink) exitCause() (string, bool) {
	select {
	case <-f.gone:
	case <-time.After(10 * time.Second):
		return "the forked session stopped answering", false
	}
	e := f.end
	switch {
	case e.parentGone:
		return "the kernel this session was forked from ended; the session's state is lost", false
	case e.why != "":
		return e.why, false
	case e.OOM:
		return fmt.Sprintf("the kernel and its forked sessions ran out of memory together (limit %s) and this session was killed; "+
			"its state is lost, the kernel and its other sessions keep theirs. ", units.Bytes(f.k.limits.MemoryBytes)) +
			memoryAdvice(f.k.limits.MemoryBytes, hostMemory()), true
	case e.Note != "":
		return "the forked session " + e.Note + "; its state is lost", false
	case e.Signal != nil:
		return fmt.Sprintf("the forked session was killed by signal %d; its state is lost", *e.Signal), false
	case e.ExitCode != nil:
		return fmt.Sprintf("the forked session exited with code %d; its state is lost", *e.ExitCode), false
	}
	return "the forked session ended; its state is lost", false
}

// close ends the session: a shutdown request, then a kill if it does not
// end, and then its output folder is closed.
func (f *forkLink) close() error {
	_ = f.k.send(shutdownRequest{Type: reqShutdown})
	select {
	case <-f.gone:
	case <-time.After(3 * time.Second):
		_ = f.kill()
		select {
		case <-f.gone:
		case <-time.After(10 * time.Second):
			f.finish(sessionEnd{why: "the forked session did not end when closed"})
		}
	}
	close(f.closing)
	if f.k.out != nil {
		f.k.out.close()
	}
	return nil
}
