// Package houserules holds tests of the rules docs/architecture.md states
// for the whole tree: each shared name written once, and the layers.
package houserules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/internal/docscheck"
)

// sharedNames are the constants whose values are names shared across the
// layers (docs/architecture.md, "Where a shared name lives"): a package,
// and which of its constants.
var sharedNames = []struct {
	pkg    string
	consts *regexp.Regexp
}{
	{"nbformat", regexp.MustCompile(`^(Tag|Mime|Output)[A-Z]`)},
	{"eda", regexp.MustCompile(`^(Stage[A-Z]\w*|Tag[A-Z]\w*|ProfileTag)$`)},
	{"report", regexp.MustCompile(`^Status[A-Z]`)},
	{"kernel", regexp.MustCompile(`^Status[A-Z]`)},
	{"pipeline", regexp.MustCompile(`^Event[A-Z]`)},
	{"evals", regexp.MustCompile(`^Stage[A-Z]`)},
}

// builtNames are the prefixes of names made by a function (the stage of a
// question, a cell's stage and turn tags), which only that function
// writes.
var builtNames = map[string]string{
	"stage:":      "nbformat.StageTag",
	"turn-":       "nbformat.TurnTag",
	"question-":   "agent.StageQuestion",
	"reflection-": "agent.StageReflection",
}

// definition is where a shared name's value is defined.
type definition struct {
	pkg, file, name string
}

// TestSharedNamesAreNotLiterals fails when a shared name's value is
// written as a string literal outside the file that defines it, in a
// package that could use the constant (its own, or one importing it). A
// literal that only spells the same (a JSON key, a CSS class) says so with
// a comment on its line: //houserules:literal WHY.
func TestSharedNamesAreNotLiterals(t *testing.T) {
	root := moduleRoot(t)
	files := goFiles(t, root)
	defs := definitions(t, files)
	var found []string
	for _, f := range files {
		allowed := allowedLines(f)
		for _, lit := range stringLiterals(f.ast) {
			if allowed[f.fset.Position(lit.pos).Line] {
				continue
			}
			if why := violation(f, lit.value, defs); why != "" {
				found = append(found, f.rel+":"+strconv.Itoa(f.fset.Position(lit.pos).Line)+": "+strconv.Quote(lit.value)+" "+why)
			}
		}
	}
	sort.Strings(found)
	for _, v := range found {
		t.Error(v)
	}
}

// violation says why value, written as a literal in f, breaks the rule,
// or "".
func violation(f *goFile, value string, defs map[string][]definition) string {
	for prefix, fn := range builtNames {
		if strings.HasPrefix(value, prefix) && len(value) > len(prefix) && !f.defines(fn) {
			return "builds a name " + fn + " makes"
		}
	}
	for _, d := range defs[value] {
		if f.rel == d.file {
			return ""
		}
	}
	for _, d := range defs[value] {
		if f.pkg == d.pkg || f.imports[d.pkg] {
			return "is " + d.pkg + "." + d.name + " (" + d.file + ")"
		}
	}
	return ""
}

type goFile struct {
	rel, pkg string // path from the module root; the package's import path below the module
	fset     *token.FileSet
	ast      *ast.File
	imports  map[string]bool // the project's packages it imports, by path below the module
}

// importsPath says whether the file imports the package at path.
func (f *goFile) importsPath(path string) bool {
	for _, im := range f.ast.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == path {
			return true
		}
	}
	return false
}

// defines says whether the file defines fn ("pkg.Func").
func (f *goFile) defines(fn string) bool {
	pkg, name, _ := strings.Cut(fn, ".")
	if f.pkg != pkg {
		return false
	}
	for _, d := range f.ast.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == name {
			return true
		}
	}
	return false
}

const module = "github.com/analyst-cli/analyst/"

// goFiles parses every non-test Go file of the module.
func goFiles(t *testing.T, root string) []*goFile {
	t.Helper()
	var out []*goFile
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		if pkg == "." {
			pkg = ""
		}
		g := &goFile{rel: filepath.ToSlash(rel), pkg: pkg, fset: fset, ast: file, imports: map[string]bool{}}
		for _, im := range file.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if sub, ok := strings.CutPrefix(p, module); ok {
				g.imports[sub] = true
			}
		}
		out = append(out, g)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// definitions are the shared names' values, each with where it is defined.
func definitions(t *testing.T, files []*goFile) map[string][]definition {
	t.Helper()
	defs := map[string][]definition{}
	for _, f := range files {
		for _, sn := range sharedNames {
			if f.pkg != sn.pkg {
				continue
			}
			for name, value := range stringConsts(f.ast) {
				if sn.consts.MatchString(name) {
					defs[value] = append(defs[value], definition{pkg: f.pkg, file: f.rel, name: name})
				}
			}
		}
	}
	if len(defs) < 40 {
		t.Fatalf("found only %d shared names: has a package moved? %v", len(defs), defs)
	}
	return defs
}

// stringConsts are the file's top-level string constants.
func stringConsts(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if v, err := strconv.Unquote(lit.Value); err == nil {
						out[name.Name] = v
					}
				}
			}
		}
	}
	return out
}

// allowDirective on a line says its literals are not the shared names
// they spell, and why.
const allowDirective = "//houserules:literal "

// allowedLines are the lines of f with an allowDirective and a reason.
func allowedLines(f *goFile) map[int]bool {
	out := map[int]bool{}
	for _, cg := range f.ast.Comments {
		for _, c := range cg.List {
			if why, ok := strings.CutPrefix(c.Text, allowDirective); ok && strings.TrimSpace(why) != "" {
				out[f.fset.Position(c.Pos()).Line] = true
			}
		}
	}
	return out
}

type literal struct {
	pos   token.Pos
	value string
}

// stringLiterals are the file's string literals but its imports and
// struct tags.
func stringLiterals(f *ast.File) []literal {
	skip := map[*ast.BasicLit]bool{}
	for _, im := range f.Imports {
		skip[im.Path] = true
	}
	var out []literal
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			if n.Tag != nil {
				skip[n.Tag] = true
			}
		case *ast.BasicLit:
			if n.Kind == token.STRING && !skip[n] {
				if v, err := strconv.Unquote(n.Value); err == nil {
					out = append(out, literal{n.Pos(), v})
				}
			}
		}
		return true
	})
	return out
}

// moduleRoot is the folder holding go.mod, above this test's folder.
func moduleRoot(t *testing.T) string { return docscheck.Root(t) }
