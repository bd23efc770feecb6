package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A stream as `go test -json` writes it: a pass, a failure with its
// output, a skip for missing data, a plain skip, a failed build.
const stream = `{"Action":"start","Package":"example/a"}
{"Action":"run","Package":"example/a","Test":"TestOK"}
{"Action":"output","Package":"example/a","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"pass","Package":"example/a","Test":"TestOK","Elapsed":0.1}
{"Action":"run","Package":"example/a","Test":"TestBad"}
{"Action":"output","Package":"example/a","Test":"TestBad","Output":"    a_test.go:9: got 2, want 3\n"}
{"Action":"fail","Package":"example/a","Test":"TestBad","Elapsed":0.2}
{"Action":"output","Package":"example/a","Test":"TestData","Output":"    a_test.go:12: missing data: dabench (no shared/dabench above /x): set ANALYST_DABENCH\n"}
{"Action":"skip","Package":"example/a","Test":"TestData","Elapsed":0}
{"Action":"output","Package":"example/a","Test":"TestShort","Output":"    a_test.go:15: needs podman\n"}
{"Action":"skip","Package":"example/a","Test":"TestShort","Elapsed":0}
{"Action":"output","Package":"example/a","Output":"FAIL\texample/a\t1.5s\n"}
{"Action":"fail","Package":"example/a","Elapsed":1.5}
{"Action":"output","Package":"rootless/c","Test":"TestC","Output":"=== RUN   TestC\n"}
{"Action":"pass","Package":"rootless/c","Test":"TestC","Elapsed":0.1}
{"Action":"output","Package":"rootless/c","Output":"PASS\n"}
{"Action":"pass","Package":"rootless/c","Elapsed":2.5}
{"ImportPath":"example/b","Action":"build-output","Output":"b.go:3: undefined: x\n"}
{"ImportPath":"example/b","Action":"build-fail"}
`

func TestSummarize(t *testing.T) {
	var out bytes.Buffer
	counts := filepath.Join(t.TempDir(), "counts.json")
	err := summarize(strings.NewReader(stream), &out, counts)
	if err == nil || !strings.Contains(err.Error(), "example/a, example/b") {
		t.Errorf("error %v, want the failed packages named", err)
	}
	got := out.String()
	for _, want := range []string{
		"--- FAIL: TestBad (example/a)\n    a_test.go:9: got 2, want 3\n",
		"--- SKIP: TestData (example/a): missing data: dabench (no shared/dabench above /x): set ANALYST_DABENCH\n",
		"FAIL\texample/a\t1.5s\n",
		"ok  \trootless/c\t2.500s\n",
		"b.go:3: undefined: x\n",
		"tests: 2 passed, 1 failed, 2 skipped (1 for missing data: dabench)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "=== RUN") || strings.Contains(got, "needs podman") {
		t.Errorf("output shows what passed or was skipped for other reasons:\n%s", got)
	}

	// The total of two runs, one of them clean.
	clean := filepath.Join(t.TempDir(), "clean.json")
	if err := os.WriteFile(clean, []byte(`{"Passed":5,"Skipped":1,"Missing":{"corpora":1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := printTotal(&out, []string{counts, clean}); err == nil {
		t.Error("the total of a failed run passed")
	}
	if want := "tests: 7 passed, 1 failed, 3 skipped (2 for missing data: corpora, dabench)\n"; out.String() != want {
		t.Errorf("total %q, want %q", out.String(), want)
	}
	out.Reset()
	if err := printTotal(&out, []string{clean}); err != nil || out.String() != "tests: 5 passed, 0 failed, 1 skipped (1 for missing data: corpora)\n" {
		t.Errorf("total of a clean run: %q, %v", out.String(), err)
	}
}

func TestNoTestIsAFailure(t *testing.T) {
	if err := summarize(strings.NewReader("not json\n"), &bytes.Buffer{}, ""); err == nil {
		t.Error("a stream without a test passed")
	}
}
