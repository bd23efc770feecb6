package houserules

import (
	"go/ast"
	"sort"
	"testing"
)

// envReaders may read the process environment outside cmd, each for its
// reason (a package, or one file). Every other library is configured by
// its caller: cmd resolves flags, ANALYST_* and the model servers' own
// variables and passes the values down.
var envReaders = map[string]string{
	"kernel/kerneltest":     "test helper: the image cache and root filesystem of the test kernel",
	"internal/shareddata":   "test helper: where the data the repository cannot ship is",
	"kernel/image/build.go": "passes HOME, TMPDIR and the proxy settings through to debootstrap, unread",
}

// envFuncs are the os functions that read the environment.
var envFuncs = map[string]bool{"Getenv": true, "LookupEnv": true, "Environ": true, "ExpandEnv": true}

func TestLibrariesReadNoEnvironment(t *testing.T) {
	var found []string
	for _, f := range goFiles(t, moduleRoot(t)) {
		if f.pkg == "cmd" || envReaders[f.pkg] != "" || envReaders[f.rel] != "" || !f.importsPath("os") {
			continue
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || !envFuncs[sel.Sel.Name] {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "os" {
				found = append(found, f.fset.Position(sel.Pos()).String()+": os."+sel.Sel.Name+
					" in a library: let cmd resolve the setting and pass it down (or name the file in envReaders, with why)")
			}
			return true
		})
	}
	sort.Strings(found)
	for _, s := range found {
		t.Error(s)
	}
}
