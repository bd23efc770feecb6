package eda

import (
	"slices"
	"strconv"
	"strings"
)

// MimeSketch is the output mime type of the sketch cell: what a later
// run's comparison needs of this data (analyst run --baseline), as JSON.
const MimeSketch = "application/vnd.analyst.sketch+json"

// SketchTag tags the cell whose output holds the sketch (mime MimeSketch).
const SketchTag = "sketch-json"

var (
	sketchPartsPy = pyFileWhole("sketch_parts.py")
	sketchPy      = pyFile("sketch.py")
)

// sketchParts is the code that gathers the numeric and date columns'
// sketches: in memory from df, out of core chunk by chunk in the profile's
// pass (ooc_profile.py calls sketch_parts.add).
func sketchParts() string {
	return constants(sketchPartsPy, sketchPartsConstants...)
}

// sketchPartsConstants are the sketch's sizes, as name-value pairs for
// constants.
var sketchPartsConstants = []string{"QUANTILE_POINTS", underscored(quantilePoints),
	"VALUE_COUNTS_CAP", underscored(valueCountsCap), "TIME_PERIODS", underscored(timePeriods)}

// sketchConstants are the sketch cell's constants: its layout's version and
// MIME type, and which columns were estimated or sampled (Python sets).
func sketchConstants(feedDF bool, approximate, sampled string) []string {
	return []string{"SKETCH_VERSION", strconv.Itoa(SketchVersion), "SKETCH_MIME", pyString(MimeSketch),
		"approximate_distinct", approximate, "sampled_counts", sampled, "FEED_DF", pyBool(feedDF)}
}

// sketchMd says what the sketch keeps, and why. Its formula is code, not
// TeX: every run shows this text, and TeX would make every report inline
// KaTeX (1.3 MB).
var sketchMd = "What a later run needs to compare its data with this data (`analyst run NEW --baseline " +
	"THIS.run.json`), kept beside the run as `NAME_files/sketch.json`: per column its type, kind, missing and " +
	"distinct counts; for a numeric column its values with their counts when it has at most " +
	underscoredText(quantilePoints+1) + " distinct values (exact), else " + underscoredText(quantilePoints+1) +
	" quantiles at the ranks `(1 - cos(π·i/" + strconv.Itoa(quantilePoints) + "))/2` for i from 0 to " + strconv.Itoa(quantilePoints) +
	", denser towards " +
	"both ends so that the largest and smallest values keep their own points, each with the rows it stands for; " +
	"for a categorical column its " + underscoredText(valueCountsCap) + " most frequent values with their rows, " +
	"and the rows and values left over (values tied with left-over ones at the last place are left over too: " +
	"a column of identifiers seen once keeps only its counts); for a date column its first and last date and the rows per hour, day, " +
	"month or year (the finest with at most " + underscoredText(timePeriods) + " periods). Comparisons are made " +
	"from these alone, never from the old rows."

// sketchCell is the code cell that shows the sketch; parts is the code
// that gathers the parts first, from df ("" when the profile's pass did,
// from every chunk).
func sketchCell(parts, approximate, sampled string) Cell {
	code := constants(sketchPy, sketchConstants(parts != "", approximate, sampled)...)
	if parts != "" {
		code = parts + "\n" + code
	}
	return Code(strings.TrimPrefix(code, "\n"), SketchTag)
}

// WithoutSketch is st without the sketch: its cell, the Markdown that
// explains it, and its function in the functions a folder's first profile
// defines. analyst eval's cases run their profiles so: the sketch feeds a
// later run's --baseline and a run report's histograms, and a case has
// neither (its report draws none), so it would only make each case's
// notebook longer (50 kB for DABstep's payments).
func WithoutSketch(st Stage) Stage {
	isSketch := func(c Cell) bool { return slices.Contains(c.Tags, SketchTag) }
	var cells []Cell
	for _, c := range st.Cells {
		switch {
		case isSketch(c):
			if n := len(cells); n > 0 && cells[n-1].Markdown {
				cells = cells[:n-1]
			}
		case c.Summary == summaryProfileFunctions:
			cells = append(cells, profileFunctionsOf(slices.DeleteFunc(ProfileStage().Cells, isSketch)))
		default:
			cells = append(cells, c)
		}
	}
	st.Cells = cells
	return st
}
