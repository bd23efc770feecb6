package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ErrKaTeX is wrapped by Render's error when Input.KaTeXDir is set but its
// KaTeX cannot be read or inlined. A caller that would rather write the
// report without rendered formulas retries with KaTeXDir "".
var ErrKaTeX = errors.New("katex")

// KaTeXDirIn is where Debian's libjs-katex puts KaTeX inside a root
// filesystem (the kernel image's rootfs, or "/" for the host).
func KaTeXDirIn(rootfs string) string {
	return filepath.Join(rootfs, "usr", "share", "javascript", "katex")
}

// debianKaTeXDir is KaTeXDirIn's path below the root.
const debianKaTeXDir = "usr/share/javascript/katex"

// katexAssets is KaTeX ready to inline: its script and the auto-render
// extension. Formulas are typeset as MathML (KaTeX's output "mathml"),
// which Chromium, Firefox and Safari draw with the reader's own math
// font: the page carries none of KaTeX's fonts, which were most of its
// bytes (about 1.3 MB of a 100,000-row report's 2.4 MB), nor its
// stylesheet, which is only about those fonts' HTML layout.
type katexAssets struct {
	JS, AutoRender string
}

// katexRoot is the root filesystem that absolute symlinks below dir point
// into: root when given, else the folder above usr/share/javascript/katex
// when dir ends so (a rootfs), else "/".
func katexRoot(dir, root string) (string, error) {
	if root != "" {
		return filepath.Abs(root)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	slashed := filepath.ToSlash(abs)
	if strings.HasSuffix(slashed, "/"+debianKaTeXDir) {
		r := strings.TrimSuffix(slashed, "/"+debianKaTeXDir)
		if r == "" {
			r = "/"
		}
		return filepath.FromSlash(r), nil
	}
	return string(filepath.Separator), nil
}

// loadKaTeX reads KaTeX's scripts from dir. Symlinks are resolved inside
// root (see katexRoot): in Debian's package katex.min.js is a symlink, and
// when dir is inside a rootfs folder an absolute target means that folder
// of the rootfs, not of the host.
func loadKaTeX(dir, rootHint string) (*katexAssets, error) {
	root, err := katexRoot(dir, rootHint)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKaTeX, err)
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKaTeX, err)
	}
	rel, err := filepath.Rel(root, absDir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("%w: KaTeX folder %s is not inside its root %s", ErrKaTeX, dir, root)
	}
	rel = filepath.ToSlash(rel)

	read := func(names ...string) ([]byte, string, error) {
		var errs []error
		for _, n := range names {
			p, err := resolveIn(root, path.Join(rel, n))
			if err == nil {
				var b []byte
				if b, err = os.ReadFile(p); err == nil {
					return b, p, nil
				}
			}
			errs = append(errs, err)
		}
		return nil, "", fmt.Errorf("%w: none of %s in %s: %v", ErrKaTeX, strings.Join(names, ", "), dir, errors.Join(errs...))
	}
	js, _, err := read("katex.min.js", "katex.js")
	if err != nil {
		return nil, err
	}
	auto, _, err := read("contrib/auto-render.min.js", "contrib/auto-render.js")
	if err != nil {
		return nil, err
	}
	return &katexAssets{JS: string(js), AutoRender: string(auto)}, nil
}

// maxSymlinks bounds symlink resolution, as the kernel's ELOOP does.
const maxSymlinks = 40

// resolveIn returns the host path of name, a slash-separated path inside the
// directory tree at root, with every symlink on the way resolved as if root
// were "/": absolute targets start again at root, and ".." never climbs
// above it. So a rootfs folder's /usr/share/javascript/katex/fonts ->
// /usr/share/fonts/truetype/katex leads to root/usr/share/fonts/..., not to
// the host's own fonts. The path returned holds no symlink below root.
func resolveIn(root, name string) (string, error) {
	var done []string // resolved components below root
	todo := splitPath(name)
	links := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case ".":
			continue
		case "..":
			if len(done) > 0 {
				done = done[:len(done)-1]
			}
			continue
		}
		p := filepath.Join(root, filepath.Join(done...), c)
		fi, err := os.Lstat(p)
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = append(done, c)
			continue
		}
		links++
		if links > maxSymlinks {
			return "", &fs.PathError{Op: "resolve", Path: p, Err: errors.New("too many levels of symbolic links")}
		}
		target, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		target = filepath.ToSlash(target)
		if strings.HasPrefix(target, "/") {
			done = nil
		}
		todo = append(splitPath(target), todo...)
	}
	return filepath.Join(root, filepath.Join(done...)), nil
}

func splitPath(p string) []string {
	var parts []string
	for _, s := range strings.Split(p, "/") {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return parts
}
