package kernel

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/analyst-cli/analyst/internal/clip"
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
	size int64 // as the driver found it: no more bytes are taken
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

// receive handles one chunk. The first chunk of a file (offset 0) carries
// its size, checked against the budget before any byte is written; no
// chunk may go past that size.
func (s *outputSink) receive(m fileReply) {
	if s.cur == nil || m.Offset == 0 || m.Path != s.cur.name {
		s.abort()
		s.cur = s.begin(m)
	}
	p := s.cur
	if p.bad {
		s.endChunk(m)
		return
	}
	data, err := base64.StdEncoding.DecodeString(m.Data)
	switch {
	case m.Refused != "":
		// The driver stopped sending it (an interrupt).
		s.refuse(p, fmt.Sprintf("%s was not copied out: %s", s.where(shortName(p.name)), m.Refused))
	case err != nil || m.Offset != p.n || int64(len(data)) > p.size-p.n:
		s.refuse(p, fmt.Sprintf("%s was not copied out: the kernel sent it garbled", s.where(shortName(p.name))))
	default:
		if _, err := p.f.Write(data); err != nil {
			s.refuse(p, fmt.Sprintf("%s was not copied out: %v", s.where(shortName(p.name)), err))
			break
		}
		p.n += int64(len(data))
		if m.EOF {
			s.commit(p)
		}
		return
	}
	s.endChunk(m)
}

// begin starts receiving the file m is the first chunk of, or returns a
// refused partialFile saying why not.
func (s *outputSink) begin(m fileReply) *partialFile {
	name := m.Path
	p := &partialFile{name: name, size: m.Size}
	// As room() is: written in a form that cannot overflow, whatever Size.
	if m.Size > s.room()+s.written[name] {
		s.refuse(p, fmt.Sprintf("output folder full (limit %s): %s (%s) was not copied out; the files this kernel copied out would total more than %s (kernel.output-size)",
			units.Bytes(s.limit), s.where(shortName(name)), sizeNote(m.Size, m.Allocated), units.Bytes(s.limit)))
		return p
	}
	if m.Refused != "" {
		// The driver did not send it; only the message uses its name.
		s.refuse(p, fmt.Sprintf("%s was not copied out: %s", s.where(shortName(name)), m.Refused))
		return p
	}
	if !validOutputName(name) {
		s.refuse(p, fmt.Sprintf("%s/%q was not copied out: not a plain relative file name", s.area, clip.Runes(name, maxShownName)))
		return p
	}
	if len(name) > maxOutputName {
		s.refuse(p, fmt.Sprintf("%s was not copied out: its name is longer than %d bytes", s.where(shortName(name)), maxOutputName))
		return p
	}
	if reason := s.occupied(name); reason != "" {
		s.refuse(p, fmt.Sprintf("%s was not copied out: %s", s.where(shortName(name)), reason))
		return p
	}
	p.tmp = partialPrefix + randomHex(8)
	f, err := s.root.OpenFile(p.tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, outputFileMode)
	if err != nil {
		s.refuse(p, fmt.Sprintf("%s was not copied out: %v", s.where(shortName(name)), err))
		return p
	}
	p.f = f
	return p
}

// outputFileMode is the mode of every file copied out, whatever its mode in
// /output: never executable.
const outputFileMode = 0o644

// occupied says why name cannot be written (a file the kernel did not
// write is there, too many files, a folder that cannot be made), or "".
func (s *outputSink) occupied(name string) string {
	_, ours := s.written[name]
	if fi, err := s.root.Lstat(name); err == nil {
		if !ours || !fi.Mode().IsRegular() {
			return "the output folder already has a file of that name that this kernel did not write; it was left unchanged"
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err.Error()
	}
	if !ours && len(s.written) >= maxOutputFiles {
		return fmt.Sprintf("the kernel already copied out %d files, the most it may", maxOutputFiles)
	}
	if dir := filepath.Dir(name); dir != "." {
		if err := s.root.MkdirAll(dir, 0o755); err != nil {
			return err.Error()
		}
	}
	return ""
}

// maxOutputName bounds a name the sink writes (PATH_MAX): a longer one
// would be a path few tools on the host could open.
const maxOutputName = 4096

// maxShownName bounds a name in messages: a path may be kilobytes long.
const maxShownName = 160

// shortName is name for a message: clipped, and quoted if it holds
// characters a terminal would act on.
func shortName(name string) string {
	n := len(name)
	shown := clip.Runes(name, maxShownName)
	if strings.IndexFunc(shown, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		shown = strconv.Quote(shown)
	}
	if shown != name {
		shown += fmt.Sprintf(" (a %d-byte name)", n)
	}
	return shown
}

// sizeNote is a file's size for a message, saying when it is sparse.
func sizeNote(size, allocated int64) string {
	if allocated < size/2 {
		return fmt.Sprintf("%s, sparse: %s on disk", units.Bytes(size), units.Bytes(allocated))
	}
	return units.Bytes(size)
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
		s.refused = append(s.refused, fmt.Sprintf("%s was not copied out: %v", s.where(shortName(p.name)), err))
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

// OutputFile is a file a kernel copied out of /output.
type OutputFile struct {
	Name  string // relative to the output folder
	Bytes int64
}

// files lists what the kernel copied out, by name.
func (s *outputSink) files() []OutputFile {
	out := make([]OutputFile, 0, len(s.written))
	for name, n := range s.written {
		out = append(out, OutputFile{Name: name, Bytes: n})
	}
	slices.SortFunc(out, func(a, b OutputFile) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// room is how many bytes the files copied out may still add.
func (s *outputSink) room() int64 { return max(0, s.limit-s.total) }

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
