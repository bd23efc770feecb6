package kernel

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/internal/units"
)

// Files written to /output reach the host by copy, never by a writable
// mount: the container has a size-capped tmpfs at /output, and after each
// cell the driver sends the regular files that are new or changed there, in
// chunks, as "file" lines of the protocol. The driver shares its process
// with the user's code, so those lines are treated as hostile: outputSink
// checks every name (relative, no "..", inside the folder through os.Root),
// writes only regular files of its own making, caps the bytes the kernel
// has on the host in total, and never replaces a file it did not write.

// maxOutputFiles bounds the files one kernel may copy out (the driver stops
// looking after as many).
const maxOutputFiles = 10000

// outputSink writes the files a kernel copies out into the host folder.
type outputSink struct {
	area    string // where the files are in the container: /output, or a forked session's /output/NAME
	root    *os.Root
	limit   int64
	written map[string]int64 // files this kernel wrote, by name: their size
	total   int64            // sum of written
	cur     *partialFile     // the file being received
	refused []string         // why files of the current cell were not copied
}

type partialFile struct {
	name string
	tmp  string
	f    *os.File
	n    int64
	bad  bool // refused: further chunks are dropped
}

func newOutputSink(dir string, limit int64) (*outputSink, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("output folder: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("output folder: %w", err)
	}
	return &outputSink{area: OutputMount, root: root, limit: limit, written: map[string]int64{}}, nil
}

// where is the container path of a file of the folder, for messages.
func (s *outputSink) where(name string) string { return s.area + "/" + name }

// validOutputName reports whether name is a plain relative path: no "..",
// not absolute, no empty or dot components, no NUL, not one of ours.
func validOutputName(name string) bool {
	if name == "" || !filepath.IsLocal(name) || filepath.Clean(name) != name || strings.ContainsRune(name, 0) {
		return false
	}
	for part := range strings.SplitSeq(name, "/") {
		if part == "." || strings.HasPrefix(part, partialPrefix) {
			return false
		}
	}
	return true
}

const partialPrefix = ".analyst-partial-"

// receive handles one chunk.
func (s *outputSink) receive(m fileReply) {
	if s.cur == nil || m.Offset == 0 || m.Path != s.cur.name {
		s.abort()
		s.cur = s.begin(m.Path)
	}
	p := s.cur
	if p.bad {
		s.endChunk(m)
		return
	}
	data, err := base64.StdEncoding.DecodeString(m.Data)
	if err != nil || m.Offset != p.n {
		s.refuse(p, fmt.Sprintf("%s was not copied out: the kernel sent it garbled", s.where(p.name)))
		s.endChunk(m)
		return
	}
	if s.total-s.written[p.name]+p.n+int64(len(data)) > s.limit {
		s.refuse(p, fmt.Sprintf("output folder full (limit %s): %s was not copied out; the files this kernel copied out would total more than %s (kernel.output-size)",
			units.Bytes(s.limit), s.where(p.name), units.Bytes(s.limit)))
		s.endChunk(m)
		return
	}
	if _, err := p.f.Write(data); err != nil {
		s.refuse(p, fmt.Sprintf("%s was not copied out: %v", s.where(p.name), err))
		s.endChunk(m)
		return
	}
	p.n += int64(len(data))
	if m.EOF {
		s.commit(p)
	}
}

// begin starts receiving name, or returns a refused partialFile saying why not.
func (s *outputSink) begin(name string) *partialFile {
	p := &partialFile{name: name}
	if !validOutputName(name) {
		s.refuse(p, fmt.Sprintf("%s was not copied out: not a plain relative file name", s.where(strconv.Quote(name))))
		return p
	}
	_, ours := s.written[name]
	if fi, err := s.root.Lstat(name); err == nil {
		if !ours || !fi.Mode().IsRegular() {
			s.refuse(p, fmt.Sprintf("%s was not copied out: the output folder already has a file of that name that this kernel did not write; it was left unchanged", s.where(name)))
			return p
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		s.refuse(p, fmt.Sprintf("%s was not copied out: %v", s.where(name), err))
		return p
	}
	if !ours && len(s.written) >= maxOutputFiles {
		s.refuse(p, fmt.Sprintf("%s was not copied out: the kernel already copied out %d files, the most it may", s.where(name), maxOutputFiles))
		return p
	}
	if dir := filepath.Dir(name); dir != "." {
		if err := s.root.MkdirAll(dir, 0o755); err != nil {
			s.refuse(p, fmt.Sprintf("%s was not copied out: %v", s.where(name), err))
			return p
		}
	}
	p.tmp = partialPrefix + randomHex(8)
	f, err := s.root.OpenFile(p.tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		s.refuse(p, fmt.Sprintf("%s was not copied out: %v", s.where(name), err))
		return p
	}
	p.f = f
	return p
}

// endChunk forgets a refused file once its last chunk has come.
func (s *outputSink) endChunk(m fileReply) {
	if m.EOF {
		s.cur = nil
	}
}

func (s *outputSink) refuse(p *partialFile, why string) {
	if !p.bad {
		s.refused = append(s.refused, why)
	}
	p.bad = true
	s.drop(p)
}

// drop removes p's partial file.
func (s *outputSink) drop(p *partialFile) {
	if p.f != nil {
		p.f.Close()
		p.f = nil
		_ = s.root.Remove(p.tmp)
	}
}

func (s *outputSink) commit(p *partialFile) {
	s.cur = nil
	err := p.f.Close()
	p.f = nil
	if err == nil {
		err = s.root.Rename(p.tmp, p.name)
	}
	if err != nil {
		_ = s.root.Remove(p.tmp)
		s.refused = append(s.refused, fmt.Sprintf("%s was not copied out: %v", s.where(p.name), err))
		return
	}
	s.total += p.n - s.written[p.name]
	s.written[p.name] = p.n
}

// abort drops a file whose last chunk never came.
func (s *outputSink) abort() {
	if s.cur != nil {
		s.drop(s.cur)
		s.cur = nil
	}
}

// endCell returns why files of the cell were not copied out, and resets.
func (s *outputSink) endCell() []string {
	s.abort()
	r := s.refused
	s.refused = nil
	return r
}

func (s *outputSink) close() {
	s.abort()
	_ = s.root.Close()
}
