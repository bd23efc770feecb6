package houserules

import (
	"sort"
	"strings"
	"testing"
)

// layers is docs/architecture.md's picture of the layers as a rule: each
// package and the packages of the project it may import (internal/...
// packages are below them all and always allowed). Nothing points back up.
// A new package gets an entry here, and a place in the picture.
var layers = map[string][]string{
	"":                  {"cmd"}, // main.go
	"nbformat":          {},
	"llm":               {},
	"numtrace":          {"nbformat"},
	"eda":               {"nbformat"},
	"kernel/seccomp":    {},
	"kernel":            {"nbformat", "kernel/seccomp"},
	"kernel/host":       {},
	"kernel/image":      {},
	"report":            {"eda", "nbformat"},
	"agent":             {"eda", "kernel", "llm", "nbformat", "numtrace"},
	"audit":             {"agent", "eda", "kernel", "kernel/image", "llm", "nbformat", "numtrace", "runrecord"},
	"baseline":          {"eda"},
	"dataset":           {"eda", "kernel"},
	"runrecord":         {"agent", "baseline", "dataset", "eda", "kernel", "llm", "numtrace", "report"},
	"pipeline":          {"agent", "audit", "baseline", "dataset", "eda", "runrecord", "kernel", "kernel/seccomp", "llm", "nbformat", "numtrace", "report"},
	"evals/dabench":     {},
	"evals/dabstep":     {"evals/dabench"},
	"evals":             {"agent", "dataset", "eda", "evals/dabench", "evals/dabstep", "kernel", "llm", "nbformat", "pipeline", "report"},
	"cmd":               {"*"},
	"examples":          {},
	"examples/gensales": {"examples"},
	// For tests only (no other non-test code imports them).
	"llm/llmtest":                               {},
	"internal/modeltest":                        {"llm", "llm/llmtest"},
	"kernel/kerneltest":                         {"kernel", "kernel/host", "kernel/image", "nbformat"},
	"evals/evaltest":                            {"llm/llmtest"},
	"evals/dabstep/dabsteptest":                 {"evals/dabstep"}, // also for users: dabstep-fixture
	"evals/dabstep/dabsteptest/dabstep-fixture": {"evals/dabstep/dabsteptest"},
}

// testOnly are the packages only tests (and other test helpers) import.
var testOnly = []string{"llm/llmtest", "internal/modeltest", "kernel/kerneltest", "evals/evaltest"}

// cliOnly are the libraries only cmd uses: the rest of the tree is a
// library without flags or configuration files.
var cliOnly = []string{"github.com/spf13/cobra", "github.com/spf13/viper", "github.com/spf13/pflag"}

func TestLayers(t *testing.T) {
	files := goFiles(t, moduleRoot(t))
	pkgs := map[string]bool{}
	for _, f := range files {
		pkgs[f.pkg] = true
	}
	for _, f := range files {
		if strings.HasPrefix(f.pkg, "internal/") && layers[f.pkg] == nil {
			continue // below every layer
		}
		allowed, ok := layers[f.pkg]
		if !ok {
			t.Errorf("%s: package %s has no place in the layers: add it to layers (and docs/architecture.md)", f.rel, f.pkg)
			continue
		}
		for im := range f.imports {
			if !mayImport(f.pkg, allowed, im) {
				t.Errorf("%s: %s imports %s, which its layer does not allow (allowed: %v)", f.rel, f.pkg, im, allowed)
			}
		}
		for _, lib := range cliOnly {
			if f.pkg != "cmd" && f.importsPath(lib) {
				t.Errorf("%s imports %s: only cmd may", f.rel, lib)
			}
		}
	}
	for pkg := range layers {
		if pkg != "" && !pkgs[pkg] {
			t.Errorf("layers names %s, which no longer exists", pkg)
		}
	}
}

func mayImport(pkg string, allowed []string, im string) bool {
	if strings.HasPrefix(im, "internal/") || im == pkg {
		return true
	}
	for _, a := range allowed {
		if a == "*" && !isTestOnly(im) || a == im {
			return true
		}
	}
	return false
}

func isTestOnly(pkg string) bool {
	for _, p := range testOnly {
		if p == pkg {
			return true
		}
	}
	return false
}

// The test helpers are imported by tests only.
func TestTestHelpersStayInTests(t *testing.T) {
	var found []string
	for _, f := range goFiles(t, moduleRoot(t)) {
		if isTestOnly(f.pkg) {
			continue
		}
		for im := range f.imports {
			if isTestOnly(im) {
				found = append(found, f.rel+" imports "+im)
			}
		}
	}
	sort.Strings(found)
	for _, s := range found {
		t.Error(s)
	}
}
