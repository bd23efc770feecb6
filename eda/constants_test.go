package eda

import "testing"

// The defaults a template's constants have in its file are analyst's
// defaults, so the file run on its own (its unit tests) behaves as a run's
// cell does.
func TestConstantsDefaultsAreAnalysts(t *testing.T) {
	for file, kv := range analystConstants {
		tmpl := pyFileWhole(file)
		pyLoads[file]--
		if got := constants(tmpl, kv...); got != tmpl {
			t.Errorf("py/%s: its constants' defaults are not analyst's:\n%s", file, firstDifference(tmpl, got))
		}
	}
}

// analystConstants are the constants analyst sets in each template, with
// their default values.
var analystConstants = map[string][]string{
	"chart_helpers.py":       chartHelpersConstants,
	"viz_pairs.py":           vizPairsConstants,
	"load.py":                loadConstants(DefaultNAValues),
	"relationships.py":       relationshipsConstants(nil),
	"relationships_json.py":  relationshipsJSONConstants,
	"relationships_chart.py": relationshipsChartConstants,
	"sketch_parts.py":        sketchPartsConstants,
	"sketch.py":              sketchConstants(true, "set()", "set()"),
	"profile_alerts.py":      profileAlertsConstants,
	"profile_json.py":        profileJSONConstants,
	"compare.py":             compareConstants,
	"compare_baseline.py":    compareBaselineConstants(DefaultChangeRules()),
	"ooc_load.py":            oocLoadConstants(OutOfCore{}.withDefaults()),
	"ooc_profile.py":         oocProfileConstants,
	"read_doc.py":            readDocConstants("/data"),
}

// setsConstant says whether analyst sets the constant name in file.
func setsConstant(file, name string) bool {
	kv := analystConstants[file]
	for i := 0; i < len(kv); i += 2 {
		if kv[i] == name {
			return true
		}
	}
	return false
}

// firstDifference is the lines around where a and b first differ.
func firstDifference(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-80)
	return "file:    " + a[from:min(len(a), i+80)] + "\nanalyst: " + b[from:min(len(b), i+80)]
}

func TestConstants(t *testing.T) {
	tmpl := "# a comment\nA = 1  # one\nLIST = [\n    \"#x\", \"]\",\n]\nB = \"a  # b\"\nAB = 2\n"
	got := constants(tmpl, "A", "10", "LIST", "[]", "B", "None")
	want := "# a comment\nA = 10  # one\nLIST = []\nB = None\nAB = 2\n"
	if got != want {
		t.Errorf("constants = %q, want %q", got, want)
	}
	for _, bad := range [][]string{{"C", "1"}, {"A"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("constants(%q) did not panic", bad)
				}
			}()
			constants(tmpl, bad...)
		}()
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a constant set twice did not panic")
			}
		}()
		constants("A = 1\nA = 2\n", "A", "3")
	}()
}
