package report

import (
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/dop251/goja"
)

// texTypesetter typesets TeX as MathML when the report is written, with
// the kernel image's KaTeX run in goja (a JavaScript engine in Go): the
// page then carries MathML, which Chromium, Firefox and Safari draw, and
// not KaTeX's script (about 270 kB, a third of a 100,000-row report).
// A goja runtime serves one caller at a time.
type texTypesetter struct {
	mu     sync.Mutex
	vm     *goja.Runtime
	render goja.Callable
}

// typesetters keeps the typesetter of each KaTeX script loaded (by its
// sha256): loading KaTeX takes a fifth of a second, and analyst eval
// writes a report per case.
var typesetters = struct {
	sync.Mutex
	m map[[sha256.Size]byte]*texTypesetter
}{m: map[[sha256.Size]byte]*texTypesetter{}}

// typesetterFor returns the typesetter running KaTeX's script js.
func typesetterFor(js string) (*texTypesetter, error) {
	key := sha256.Sum256([]byte(js))
	typesetters.Lock()
	defer typesetters.Unlock()
	if t, ok := typesetters.m[key]; ok {
		return t, nil
	}
	t, err := newTexTypesetter(js)
	if err != nil {
		return nil, err
	}
	typesetters.m[key] = t
	return t, nil
}

func newTexTypesetter(js string) (*texTypesetter, error) {
	vm := goja.New()
	// KaTeX's UMD wrapper sets window.katex when there is no module system.
	if err := vm.Set("window", vm.GlobalObject()); err != nil {
		return nil, err
	}
	if _, err := vm.RunString(js); err != nil {
		return nil, fmt.Errorf("running KaTeX: %w", err)
	}
	k := vm.Get("katex")
	if k == nil || goja.IsUndefined(k) {
		return nil, fmt.Errorf("KaTeX's script defined no katex")
	}
	render, ok := goja.AssertFunction(k.ToObject(vm).Get("renderToString"))
	if !ok {
		return nil, fmt.Errorf("KaTeX has no renderToString")
	}
	return &texTypesetter{vm: vm, render: render}, nil
}

// mathML is tex typeset as MathML, as the page's script did it: KaTeX's
// output "mathml"; a formula it cannot parse as its source in red
// (throwOnError false); untrusted, so no \href, \url or \includegraphics,
// and a formula links and loads nothing.
func (t *texTypesetter) mathML(tex string, display bool) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	opts := t.vm.NewObject()
	for k, v := range map[string]any{"output": "mathml", "throwOnError": false, "trust": false, "displayMode": display} {
		if err := opts.Set(k, v); err != nil {
			return "", err
		}
	}
	v, err := t.render(goja.Undefined(), t.vm.ToValue(tex), opts)
	if err != nil {
		return "", fmt.Errorf("typesetting %q: %w", tex, err)
	}
	return v.String(), nil
}
