package image

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/analyst-cli/analyst/internal/command"
)

// recorder is the real command.Exec that also notes what it ran.
type recorder struct {
	command.Exec
	mu    sync.Mutex
	calls []string
}

func (r *recorder) note(name string, args []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, command.Line(append([]string{filepath.Base(name)}, args...)...))
}

func (r *recorder) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	r.note(name, args)
	return r.Exec.Run(ctx, name, args...)
}

func (r *recorder) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	r.note(name, args)
	return r.Exec.Command(ctx, name, args...)
}

// ran reports whether a recorded command line starts with prefix.
func (r *recorder) ran(prefix string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.calls {
		if strings.HasPrefix(c, prefix) {
			return true
		}
	}
	return false
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

// progressLog is a Progress writer safe for concurrent use that can call a
// function on each line.
type progressLog struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	onLine func(line string)
}

func (p *progressLog) Write(b []byte) (int, error) {
	p.mu.Lock()
	p.buf.Write(b)
	on := p.onLine
	p.mu.Unlock()
	if on != nil {
		for line := range strings.Lines(string(b)) {
			on(line)
		}
	}
	return len(b), nil
}

func (p *progressLog) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.buf.String()
}
