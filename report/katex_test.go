package report

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestResolveIn(t *testing.T) {
	root := t.TempDir()
	mustWrite(t, filepath.Join(root, "usr/share/fonts/truetype/katex/A.woff2"), "font")
	mustWrite(t, filepath.Join(root, "usr/share/javascript/katex/katex.js"), "js")
	mustWrite(t, filepath.Join(root, "etc/passwd"), "rootfs passwd")
	k := filepath.Join(root, "usr/share/javascript/katex")
	mustSymlink(t, "/usr/share/fonts/truetype/katex", filepath.Join(k, "fonts"))         // absolute: into the rootfs
	mustSymlink(t, "../../fonts/truetype/katex", filepath.Join(k, "relfonts"))           // relative, as Debian ships it
	mustSymlink(t, "katex.js", filepath.Join(k, "katex.min.js"))                         // same folder
	mustSymlink(t, "../../../../../../../../etc/passwd", filepath.Join(k, "climb"))      // .. stops at the root
	mustSymlink(t, "/usr/share/javascript/katex/loop2", filepath.Join(k, "loop1"))       // a loop
	mustSymlink(t, "/usr/share/javascript/katex/loop1", filepath.Join(k, "loop2"))       //
	mustSymlink(t, "/usr/share/javascript/katex/fonts/A.woff2", filepath.Join(k, "via")) // chained

	tests := []struct{ name, want string }{
		{"usr/share/javascript/katex/fonts/A.woff2", "usr/share/fonts/truetype/katex/A.woff2"},
		{"usr/share/javascript/katex/relfonts/A.woff2", "usr/share/fonts/truetype/katex/A.woff2"},
		{"/usr/share/javascript/katex/katex.min.js", "usr/share/javascript/katex/katex.js"},
		{"usr/share/javascript/katex/climb", "etc/passwd"},
		{"usr/share/javascript/katex/via", "usr/share/fonts/truetype/katex/A.woff2"},
		{"usr/share/../share/./javascript/katex/katex.js", "usr/share/javascript/katex/katex.js"},
	}
	for _, tt := range tests {
		got, err := resolveIn(root, tt.name)
		if err != nil {
			t.Errorf("resolveIn(%q): %v", tt.name, err)
			continue
		}
		if want := filepath.Join(root, tt.want); got != want {
			t.Errorf("resolveIn(%q) = %s, want %s", tt.name, got, want)
		}
		if b, err := os.ReadFile(got); err != nil || len(b) == 0 {
			t.Errorf("resolveIn(%q) gave an unreadable path: %v", tt.name, err)
		}
	}
	if _, err := resolveIn(root, "usr/share/javascript/katex/loop1"); err == nil {
		t.Errorf("a symlink loop resolved")
	}
	if _, err := resolveIn(root, "usr/share/javascript/katex/missing"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v, want not-exist", err)
	}
}

// fakeKaTeX lays out a rootfs whose KaTeX is Debian's shape with absolute
// symlinks, which only resolve right against the rootfs; its stylesheet and
// fonts are there too, as Debian ships them, for the page to leave out.
func fakeKaTeX(t *testing.T) (rootfs string) {
	rootfs = t.TempDir()
	k := KaTeXDirIn(rootfs)
	mustWrite(t, filepath.Join(rootfs, "usr/share/nodejs/katex/dist/katex.js"), `window.katex={render:function(){}};var s="</script>";`)
	mustSymlink(t, "/usr/share/nodejs/katex/dist/katex.js", filepath.Join(k, "katex.min.js"))
	mustWrite(t, filepath.Join(k, "contrib/auto-render.js"), `window.renderMathInElement=function(){};`)
	mustWrite(t, filepath.Join(k, "katex.min.css"),
		`@font-face{font-family:KaTeX_AMS;src:url(fonts/KaTeX_AMS-Regular.woff2) format('woff2')}.katex{font:normal 1.21em KaTeX_Main}`)
	mustWrite(t, filepath.Join(rootfs, "usr/share/fonts/truetype/katex/KaTeX_AMS-Regular.woff2"), "AMS-woff2")
	mustSymlink(t, "/usr/share/fonts/truetype/katex", filepath.Join(k, "fonts"))
	return rootfs
}

// TestKaTeXInlined: the page carries KaTeX's scripts, typesets formulas as
// MathML, and carries none of KaTeX's fonts or stylesheet.
func TestKaTeXInlined(t *testing.T) {
	rootfs := fakeKaTeX(t)
	in := goldenInput()
	in.KaTeXDir = KaTeXDirIn(rootfs)
	out := render(t, in)
	for _, want := range []string{
		`window.katex={render:function(){}};var s="<\/script>";`,
		`window.renderMathInElement=function(){};`,
		`renderMathInElement(el, options)`,
		`output: "mathml",`,
		`{left: "$$", right: "$$", display: true}`,
		`<span class="math math-display">$$\bar{x} = \frac{1}{n}\sum_{i=1}^{n} x_i$$</span>`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, not := range []string{"@font-face", "KaTeX_", "font/woff", "url(", `code class="math`} {
		if strings.Contains(out, not) {
			t.Errorf("report holds %q: KaTeX's fonts or stylesheet inlined, or formulas not handed to KaTeX", not)
		}
	}
	if refs := externalRefs(out); len(refs) > 0 {
		t.Errorf("references out of the page: %q", refs)
	}
	// The same tree named with an explicit root gives the same page.
	in.KaTeXRoot = rootfs
	if again := render(t, in); again != out {
		t.Errorf("KaTeXRoot set explicitly changes the page")
	}
}

func TestKaTeXErrors(t *testing.T) {
	rootfs := fakeKaTeX(t)
	k := KaTeXDirIn(rootfs)
	// Resolved against the host's / instead of the rootfs, the absolute
	// katex.min.js symlink leads to the host's file: where the host has
	// none, an explicit wrong root fails rather than reading elsewhere.
	if _, statErr := os.Stat("/usr/share/nodejs/katex/dist/katex.js"); errors.Is(statErr, os.ErrNotExist) {
		if err := Render(&strings.Builder{}, Input{KaTeXDir: k, KaTeXRoot: "/"}); !errors.Is(err, ErrKaTeX) {
			t.Errorf("KaTeX with its root given as /: %v, want ErrKaTeX", err)
		}
	}
	if err := os.Remove(filepath.Join(k, "contrib/auto-render.js")); err != nil {
		t.Fatal(err)
	}
	err := Render(&strings.Builder{}, Input{KaTeXDir: k})
	if !errors.Is(err, ErrKaTeX) || !strings.Contains(err.Error(), "auto-render") {
		t.Errorf("missing auto-render: %v, want ErrKaTeX naming it", err)
	}
	if err := Render(&strings.Builder{}, Input{KaTeXDir: t.TempDir()}); !errors.Is(err, ErrKaTeX) {
		t.Errorf("empty folder: %v, want ErrKaTeX", err)
	}
}

func TestKaTeXRoot(t *testing.T) {
	tests := []struct{ dir, root, want string }{
		{"/cache/kernel/x/rootfs/usr/share/javascript/katex", "", "/cache/kernel/x/rootfs"},
		{"/usr/share/javascript/katex", "", "/"},
		{"/opt/katex", "", "/"},
		{"/opt/katex", "/opt", "/opt"},
	}
	for _, tt := range tests {
		got, err := katexRoot(tt.dir, tt.root)
		if err != nil || got != tt.want {
			t.Errorf("katexRoot(%q, %q) = %q, %v; want %q", tt.dir, tt.root, got, err, tt.want)
		}
	}
}
