// Package hostpython runs the host's Python for tests that check Go
// reproductions of Python semantics (float(), repr, round, str.lower,
// difflib, a benchmark's scorer) against Python itself.
package hostpython

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
)

// Path is Debian's Python, which has nothing but the standard library.
const Path = "/usr/bin/python3"

// Run runs Path with args (a script file, or "-c" and a script), input as
// JSON on its stdin, and returns its stdout. The test is skipped when there
// is no Path, and fails when Python does.
func Run(t testing.TB, input any, args ...string) []byte {
	t.Helper()
	if _, err := os.Stat(Path); err != nil {
		t.Skipf("no %s to cross-check against: %v", Path, err)
	}
	in, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(Path, args...)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v: %s", Path, args[0], err, stderr.String())
	}
	return out
}
