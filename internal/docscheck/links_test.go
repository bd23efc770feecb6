package docscheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// The guide's pages: README.md and every docs/*.md.
func pages(t *testing.T, root string) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md under %s: %v", root, err)
	}
	return append([]string{filepath.Join(root, "README.md")}, docs...)
}

// TestRelativeLinksResolve: every relative link of README.md and
// docs/*.md names a file that exists and, with #anchor, a heading of it.
func TestRelativeLinksResolve(t *testing.T) {
	root := Root(t)
	anchors := map[string]map[string]bool{} // page → its headings' anchors
	checked := 0
	for _, page := range pages(t, root) {
		text := read(t, page)
		for _, l := range links(text) {
			checked++
			if err := resolve(page, l, anchors); err != nil {
				rel, _ := filepath.Rel(root, page)
				t.Errorf("%s: link %q: %v", rel, l, err)
			}
		}
	}
	t.Logf("%d relative links checked", checked)
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func resolve(page, link string, anchors map[string]map[string]bool) error {
	target, anchor, _ := strings.Cut(link, "#")
	file := page
	if target != "" {
		file = filepath.Join(filepath.Dir(page), filepath.FromSlash(target))
		st, err := os.Stat(file)
		if err != nil {
			return fmt.Errorf("no such file %s", target)
		}
		if st.IsDir() || anchor == "" {
			return nil
		}
	}
	if anchors[file] == nil {
		b, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		anchors[file] = headingAnchors(string(b))
	}
	if !anchors[file][anchor] {
		return fmt.Errorf("%s has no heading whose anchor is #%s", filepath.Base(file), anchor)
	}
	return nil
}

var (
	linkRE    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeRE    = regexp.MustCompile("`[^`]*`")
	headingRE = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
)

// links are the relative link targets of a page's text: outside fenced code
// blocks and inline code; web, mail and absolute links left out.
func links(text string) []string {
	var out []string
	for _, line := range prose(text) {
		for _, m := range linkRE.FindAllStringSubmatch(codeRE.ReplaceAllString(line, ""), -1) {
			l := m[1]
			if strings.Contains(l, "://") || strings.HasPrefix(l, "mailto:") || strings.HasPrefix(l, "/") {
				continue
			}
			out = append(out, l)
		}
	}
	return out
}

// prose is the page's lines outside fenced code blocks.
func prose(text string) []string {
	var out []string
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			fence = trimmed[:3]
		case fence != "" && strings.HasPrefix(trimmed, fence):
			fence = ""
		case fence == "":
			out = append(out, line)
		}
	}
	return out
}

// headingAnchors are the anchors GitHub gives a page's headings: the
// heading's text without markup, lower case, with what is not a letter,
// digit, space, '-' or '_' left out and spaces made '-'; a repeated anchor
// gets -1, -2, ...
func headingAnchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, line := range prose(text) {
		m := headingRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		a := slug(m[1])
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

var inlineLinkRE = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

func slug(heading string) string {
	heading = inlineLinkRE.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Verifying a run": "verifying-a-run",
		"The completion limit (`max-reply-tokens`)":                   "the-completion-limit-max-reply-tokens",
		"Approximate (≈ in the notebook and the report)":              "approximate--in-the-notebook-and-the-report",
		"Your own code in the sandbox: `kernel exec`, `kernel shell`": "your-own-code-in-the-sandbox-kernel-exec-kernel-shell",
		"In CI: `--fail-on` and `--summary-md`":                       "in-ci---fail-on-and---summary-md",
		"Data as people export it":                                    "data-as-people-export-it",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

// The checker finds what it is for: a missing file, a missing heading, and
// nothing in code.
func TestLinksCheckerFindsBrokenLinks(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "a.md")
	os.WriteFile(filepath.Join(dir, "b.md"), []byte("# B\n\n## Some part\n\n```sh\n# not a heading\n```\n"), 0o644)
	text := "[ok](b.md#some-part) [gone](c.md) [bad](b.md#not-a-heading) [self](#a) `[code](x.md)`\n\n# A\n"
	os.WriteFile(page, []byte(text), 0o644)
	var errs []string
	anchors := map[string]map[string]bool{}
	for _, l := range links(text) {
		if err := resolve(page, l, anchors); err != nil {
			errs = append(errs, l)
		}
	}
	if strings.Join(errs, " ") != "c.md b.md#not-a-heading" {
		t.Errorf("broken links found: %q, want c.md and b.md#not-a-heading", errs)
	}
}
