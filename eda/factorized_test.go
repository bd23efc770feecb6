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
// cached, as C functions that take text leave it). Dates are parsed once per
// distinct text and placed by the codes: the same as to_datetime of the column.
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
checks = {"released": not FACTORIZED}  # the profile let the codes go
for c in df.columns[df.dtypes == object]:
    factorized(df[c])  # kept again, to test what reads them
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
texts = {"%Y-%m-%d": ["2024-01-31", None, "2024-02-30", "2023-12-01", "2024-01-31", "soon"] * 20,
         "%Y-%m-%dT%H:%M:%S%z": ["2024-03-01T10:00:00+01:00", "2024-03-01T10:00:00Z", None, "2024-03-01T09:00:00-05:30"] * 30,
         "%d/%m/%Y %H:%M": [f"{d % 28 + 1:02d}/01/2024 {d % 24:02d}:{d % 60:02d}" for d in range(300)]}
for i, (fmt, values) in enumerate(texts.items()):
    s = pd.Series(values, name=f"dates{i}", dtype=object)
    factorized(s)
    mine, ref = column_dates(s, fmt), to_dates(s, fmt)
    checks[fmt] = bool(mine.equals(ref) and mine.dtype == ref.dtype and mine.isna().sum() == ref.isna().sum())
ints = {"small": [3, -2, 3, 7, -2, 0], "one": [5], "wide": [0, 10**12, 3, 3], "uint": np.array([2**63 + 5, 2**63 + 1, 2**63 + 5], dtype=np.uint64),
        "int8": np.arange(-128, 128, dtype=np.int8).repeat(2)[::3]}
checks["distinct"] = [distinct_count(pd.Series(v)) == pd.Series(v).nunique() for v in ints.values()]
df["name"] = df["name"].str.upper()  # a replaced column is not taken for the one the codes were made from
checks["replaced"] = kept_factorization(df["name"]) is None and frequencies(df["name"]).equals(df["name"].value_counts())
print(json.dumps(checks))`, &got)
	want := map[string]any{
		"city": []any{true, true, true}, "name": []any{true, true, true},
		"memory": true, "sizes differ": true, "probe memory": true,
		"%Y-%m-%d": true, "%Y-%m-%dT%H:%M:%S%z": true, "%d/%m/%Y %H:%M": true,
		"distinct": []any{true, true, true, true, true}, // integers counted by slot, as nunique counts them
		"replaced": true, "released": true,
	}
	for key, w := range want {
		if fmt.Sprint(got[key]) != fmt.Sprint(w) {
			t.Errorf("%s: got %v, want %v (kept, missing, value_counts)", key, got[key], w)
		}
	}
}

// A cell between the load and the profile that changes a text column's
// values in place (df.loc[rows, column] = value keeps the same array, so
// the weak reference cannot tell) must not leave the profile counting the
// loader's codes: its missing counts, top values and memory are pandas'
// on the changed frame. A replaced column and an untouched one too.
func TestProfileAfterTextChangedInPlace(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("city,kind,note\n")
	for i := range 60 {
		fmt.Fprintf(&b, "%s,%s,%s\n", []string{"Oslo", "Paris", "Lima", ""}[i%4], []string{"a", "b"}[i%2], []string{"x", ""}[i%2])
	}
	if err := os.WriteFile(filepath.Join(dir, "cities.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	k := kerneltest.Start(t, func(o *kernel.Options) { o.Data = dir })
	mustRun(t, k, Setup())
	mustRun(t, k, LoadWith("/data/cities.csv", LoadOptions{}))
	mustRun(t, k, Stage{Name: "edit", Cells: []Cell{Code(`kept_before = set(FACTORIZED)
city = df["city"].to_numpy()
df.loc[df.index[:10], "city"] = "Zürich"        # in place: the same array
df.loc[df.index[3], "note"] = "filled"          # a missing value filled in place
df["kind"] = df["kind"].str.upper()             # replaced
same_array = df["city"].to_numpy() is city or np.shares_memory(df["city"].to_numpy(), city)`)}})
	p := profileOf(t, mustRun(t, k, ProfileStage()))
	var got map[string]any
	pyValue(t, k, `ref = {c: df[c].value_counts() for c in ["city", "kind", "note"]}
print(json.dumps({
    "kept_before": sorted(kept_before), "same_array": bool(same_array),
    "top": {c: [[str(v), int(n)] for v, n in ref[c].items()] for c in ref},
    "missing": {c: int(df[c].isna().sum()) for c in ref},
    "memory": bool(memory.equals(df.memory_usage(deep=True))),
}))`, &got)
	if fmt.Sprint(got["kept_before"]) != "[city kind note]" || got["same_array"] != true {
		t.Fatalf("the edit did not change kept columns in place: kept %v, same array %v", got["kept_before"], got["same_array"])
	}
	if got["memory"] != true {
		t.Error("memory differs from df.memory_usage(deep=True) after the edit")
	}
	top := got["top"].(map[string]any)
	missing := got["missing"].(map[string]any)
	for _, name := range []string{"city", "kind", "note"} {
		c := p.col(t, name)
		var mine [][]any
		for _, v := range c.Top {
			mine = append(mine, []any{v.Value, float64(v.Count)})
		}
		if fmt.Sprint(mine) != fmt.Sprint(top[name]) || float64(c.Missing) != missing[name] {
			t.Errorf("%s: profile top %v, missing %d; pandas on the edited frame %v, missing %v", name, mine, c.Missing, top[name], missing[name])
		}
	}
}
