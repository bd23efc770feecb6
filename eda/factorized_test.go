package eda

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

// The loader factorizes each text column once and the profile takes its
// missing counts, frequencies and memory from the codes (issue 15). What it
// prints must be what pandas gives: value_counts in the same order (ties
// included), isna().sum(), and memory_usage(deep=True) to the byte, with
// non-ASCII text, missing values, a marker turned missing, an empty column,
// and equal non-ASCII strings whose sizes differ (one with its UTF-8 form
// cached, as C functions that take text leave it).
func TestTextColumnsFactorizedOnce(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("id,city,name,empty,amount\n")
	cities := []string{"Oslo", "Paris", "Lima", "", "N/A", "Paris", "Oslo", "Québec", "Lima", "São Paulo"}
	names := []string{"Zoë", "日本", "Ann", "🙂 smile", "", "Zoë", "Bob", "日本", "Ann", "Łukasz"}
	for i := range 97 {
		fmt.Fprintf(&b, "%d,%s,%s,,%d.5\n", i, cities[i%len(cities)], names[(i*7)%len(names)], i%13)
	}
	if err := os.WriteFile(filepath.Join(dir, "text.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	k := kerneltest.Start(t, func(o *kernel.Options) { o.Data = dir })
	mustRun(t, k, Setup())
	mustRun(t, k, LoadWith("/data/text.csv", LoadOptions{}))
	p := profileOf(t, mustRun(t, k, ProfileStage()))
	if c := p.col(t, "city"); c.Missing != 20 || len(p.Load.MissingMarkers["city"]) != 1 {
		t.Errorf("city: %d missing, markers %+v; want 20 (10 empty, 10 N/A)", c.Missing, p.Load.MissingMarkers)
	}
	var got map[string]any
	pyValue(t, k, `import ctypes
checks = {}
for c in df.columns[df.dtypes == object]:
    s, ref = df[c], df[c].value_counts()
    mine = value_counts.get(c)
    checks[c] = [kept_factorization(s) is not None, missing_count(s) == int(s.isna().sum()),
                 mine is not None and mine.equals(ref) and list(mine.index) == list(ref.index)
                 and (mine.name, mine.index.name, mine.index.dtype) == (ref.name, ref.index.name, ref.index.dtype)]
checks["memory"] = memory.equals(df.memory_usage(deep=True))
as_utf8 = ctypes.pythonapi.PyUnicode_AsUTF8
as_utf8.argtypes, as_utf8.restype = [ctypes.py_object], ctypes.c_char_p
probe = pd.Series(["".join(["Zo", "ë", str(i % 2)]) for i in range(40)] + [None, "plain"] * 3, name="probe")
for v in probe[:40:3]:
    as_utf8(v)
checks["sizes differ"] = len({v.__sizeof__() for v in probe[:40] if v == "Zoë0"}) == 2
factorized(probe)
checks["probe memory"] = memory_bytes(probe) == probe.memory_usage(index=False, deep=True)
print(json.dumps(checks))`, &got)
	want := map[string]any{
		"city": []any{true, true, true}, "name": []any{true, true, true},
		"memory": true, "sizes differ": true, "probe memory": true,
	}
	for key, w := range want {
		if fmt.Sprint(got[key]) != fmt.Sprint(w) {
			t.Errorf("%s: got %v, want %v (kept, missing, value_counts)", key, got[key], w)
		}
	}
}
