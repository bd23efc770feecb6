// Package dabenchdir finds the DABench dev data for tests and benchmarks:
// $ANALYST_DABENCH, else shared/dabench in a folder above the working
// directory (the data is licensed for non-commercial use and never copied
// into the repository).
package dabenchdir

import (
	"testing"

	"github.com/analyst-cli/analyst/internal/shareddata"
)

// Data is DABench's dev set: da-dev-questions.jsonl, da-dev-labels.jsonl
// and tables/.
var Data = shareddata.Data{
	Name:    "dabench",
	Env:     "ANALYST_DABENCH",
	Witness: "da-dev-labels.jsonl",
	HowToGet: "set ANALYST_DABENCH to a folder holding InfiAgent-DABench's dev set " +
		"(da-dev-questions.jsonl, da-dev-labels.jsonl and its tables in tables/)",
}

// Find returns the folder holding da-dev-questions.jsonl, da-dev-labels.jsonl
// and tables/.
func Find() (string, error) { return Data.Find() }

// Require returns that folder, or skips the test for missing data.
func Require(t testing.TB) string { return Data.Require(t) }
