package eda

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/internal/docscheck"
)

// The user guide states these constants: each sentence is formatted from
// the constant, so a changed constant fails here until the page says so.
func TestDocsStateTheLoadersConstants(t *testing.T) {
	docscheck.Says(t, "docs/loading-data.md",
		fmt.Sprintf("decided on the first %d KiB of a CSV", headKB),
		fmt.Sprintf("the first %d MiB out of core", DefaultPlanBytes>>20),
		fmt.Sprintf("A text column becomes numeric when at least %s of its values", percent(numberShare)),
		fmt.Sprintf("a column where %s or more would fail stays text", percent(1-numberShare)),
		fmt.Sprintf("`numbers_as_text` alert when at least %s are numbers", percent(numberHintShare)),
		fmt.Sprintf("`%s` in the load cell", "NA_VALUES"),
		"`"+naValuesText()+"`",
		fmt.Sprintf("only the heatmap is capped (%d columns)", DefaultMaxCorrelationColumns),
		fmt.Sprintf("The header is the first row after which %s of the sampled rows", percent(headerStableShare)),
	)
	page := docscheck.Read(t, "docs/loading-data.md")
	lower := strings.ToLower(page)
	for _, words := range [][]string{totalLabels, paddedCodeWords, numberWords} {
		for _, w := range words {
			if !strings.Contains(lower, "`"+strings.ToLower(w)+"`") {
				t.Errorf("docs/loading-data.md does not name `%s` (eda/thresholds.go lists it)", w)
			}
		}
	}
}

// naValuesText is DefaultNAValues as the page lists them: "" for the empty
// value, the others as they are.
func naValuesText() string {
	words := make([]string, len(DefaultNAValues))
	for i, v := range DefaultNAValues {
		words[i] = v
		if v == "" {
			words[i] = `""`
		}
	}
	return strings.Join(words, " ")
}

// docs/loading-data.md's table of formats names every extension the
// loader's signatures know (load_formats.py).
func TestDocsNameEveryFormatsExtension(t *testing.T) {
	page := docscheck.Read(t, "docs/loading-data.md")
	formats := regexp.MustCompile(`\("\w+", \(([^)]*)\)`).FindAllStringSubmatch(loadFormatsPy, -1)
	if len(formats) < 9 {
		t.Fatalf("found %d formats in load_formats.py: has its table changed shape?", len(formats))
	}
	for _, f := range formats {
		for _, ext := range regexp.MustCompile(`"(\.\w+)"`).FindAllStringSubmatch(f[1], -1) {
			if !strings.Contains(page, "`"+ext[1]+"`") {
				t.Errorf("docs/loading-data.md's formats do not name `%s`, which load_formats.py reads", ext[1])
			}
		}
	}
}

func TestDocsStateTheStagesConstants(t *testing.T) {
	words := map[int]string{2: "two", 3: "three", 4: "four", 5: "five"}
	docscheck.Says(t, "docs/running.md",
		fmt.Sprintf("the %s most correlated numeric pairs", words[TopPairs]),
		fmt.Sprintf("hexagonal bins above %s rows", thousands(HexbinRows)),
		fmt.Sprintf("up to %s numeric columns as box plots", words[MaxGroupedColumns]),
		fmt.Sprintf("(2 to %d values,", MaxGroups),
		fmt.Sprintf("a pair plot when the data has at most %s rows", thousands(PairPlotRows)),
	)
	docscheck.Says(t, "docs/folders.md",
		fmt.Sprintf("when at least %s of A.x's distinct values", percent(matchShare)),
		fmt.Sprintf("A.x has at least %d distinct values", minDistinct),
		fmt.Sprintf("at most 1e%d, or A.x's name", int(math.Round(math.Log10(chanceBound)))),
		fmt.Sprintf("at most %d tables)", diagramTables),
		fmt.Sprintf("(`eda.RelationshipsPrompt`, at most %s bytes", thousands(promptMaxBytes)),
	)
}

func TestDocsStateTheOutOfCoreConstants(t *testing.T) {
	docscheck.Says(t, "docs/big-files.md",
		fmt.Sprintf("read in chunks of %s rows", thousands(DefaultChunkRows)),
		fmt.Sprintf("first %d MiB of lines", DefaultPlanBytes>>20),
		fmt.Sprintf("The first %d MiB of whole lines", DefaultPlanBytes>>20),
		fmt.Sprintf("at most %s rows", thousands(MaxSampleRows)),
		fmt.Sprintf("seed %d, in file order", DefaultSampleSeed),
		fmt.Sprintf("`numpy.random.default_rng(%d)`", DefaultSampleSeed),
		fmt.Sprintf("at least %s)", thousands(MinSampleRows)),
		fmt.Sprintf("Chunks are %s rows in file order", thousands(DefaultChunkRows)),
		fmt.Sprintf("up to %s distinct values per column", thousands(valueCountCap)),
		fmt.Sprintf("text columns past %s distinct values", thousands(valueCountCap)),
		fmt.Sprintf("k = %s: exact below %s distinct values", thousands(distinctK), thousands(distinctK)),
		fmt.Sprintf("%d equal-width bins", histBins),
	)
}

func TestDocsStateTheBaselineConstants(t *testing.T) {
	docscheck.Says(t, "docs/baseline.md",
		fmt.Sprintf("when it has at most %s distinct values (exact), else %s quantiles", thousands(quantilePoints+1), thousands(quantilePoints+1)),
		fmt.Sprintf(`$p_i = (1 - \cos(\pi i/%d))/2$`, quantilePoints),
		fmt.Sprintf("its %s most frequent values", thousands(valueCountsCap)),
		fmt.Sprintf("the finest with at most %s periods", thousands(timePeriods)),
		fmt.Sprintf("at p < %s / m", strconv.FormatFloat(changeSignificance, 'g', -1, 64)),
		fmt.Sprintf("columns with at most %d values compare as categories", fewValues),
		fmt.Sprintf("Sketches are within %.2f%% of the rows", 100*math.Pi/(2*quantilePoints)),
	)
	page := docscheck.Read(t, "docs/baseline.md")
	rules := DefaultChangeRules()
	bound := func(x *float64) string {
		if x == nil {
			return "never"
		}
		return strconv.FormatFloat(*x, 'g', -1, 64)
	}
	for _, check := range ThresholdChecks {
		r := rules.Thresholds[check]
		row := regexp.MustCompile("\\| (`[a-z-]+`, )?`" + regexp.QuoteMeta(check) + "`[^|]*\\|[^|]*\\| " +
			regexp.QuoteMeta(bound(r.Warn)) + " \\| " + regexp.QuoteMeta(bound(r.Fail)) + " \\|")
		if !row.MatchString(page) {
			t.Errorf("docs/baseline.md's thresholds table has no row `%s` | ... | %s | %s |", check, bound(r.Warn), bound(r.Fail))
		}
	}
	for _, change := range SeverityChanges {
		level := rules.Severities[change]
		if !regexp.MustCompile("`" + regexp.QuoteMeta(change) + "`( \\([^)]*\\))? " + level + "\\b").MatchString(page) {
			t.Errorf("docs/baseline.md does not say `%s` %s", change, level)
		}
	}
}
