// Package eda generates the code of the deterministic analysis stages —
// setup, load, profile, distributions, visualization — as notebook cells: Python that runs
// in the kernel, with markdown that explains it (formulas in LaTeX). Every
// number in a report comes from a cell generated here or written by the
// model, so the notebook alone reproduces the report.
package eda

import (
	"encoding/json"
	"fmt"
)

// DataErrorName is the Python exception the load cell raises for data it
// cannot read; its message says what is wrong and what to do.
const DataErrorName = "AnalystDataError"

// Profile describes a loaded dataset, in the manner of ydata-profiling.
type Profile struct {
	Rows          int      `json:"rows"`
	Columns       int      `json:"columns"`
	MemoryBytes   int64    `json:"memory_bytes"`
	DuplicateRows int      `json:"duplicate_rows"`
	Load          LoadInfo `json:"load"`
	ColumnInfo    []Column `json:"column_info"`
	Alerts        []Alert  `json:"alerts"`
	// OutOfCore is set when the data was read chunk by chunk (see
	// LoadOutOfCore): Rows and the exact statistics are over every row,
	// the rest over a sample.
	OutOfCore *OutOfCoreInfo `json:"out_of_core,omitempty"`
}

// LoadInfo says how the file was read.
type LoadInfo struct {
	Format      string   `json:"format"`      // csv, tsv, json, jsonl, xlsx, xls, ods, sav, dta, sas7bdat, xpt, sqlite, parquet
	Compression string   `json:"compression"` // "" or "gzip"
	Encoding    string   `json:"encoding"`    // utf-8, utf-8-sig (BOM), latin-1
	BOM         bool     `json:"bom"`
	Delimiter   string   `json:"delimiter"` // csv/tsv only
	Decimal     string   `json:"decimal"`   // "." or ","
	Sheet       string   `json:"sheet"`     // spreadsheets: the sheet read
	Sheets      []string `json:"sheets"`    // spreadsheets: all sheets, in order
	Table       string   `json:"table"`     // SQLite: the table read
	Tables      []string `json:"tables"`    // SQLite: all tables and views
	ParsedDates []string `json:"parsed_dates"`
	// NAValues are the missing-value markers the loader applied.
	NAValues []string `json:"na_values"`
	// MissingMarkers are the markers found, per column, most frequent first.
	MissingMarkers map[string][]TopValue `json:"missing_markers"`
	// ConvertedNumbers are the text columns read as numbers, by name.
	ConvertedNumbers map[string]NumberConversion `json:"converted_numbers"`
	// JSONColumns are the columns of a JSON file that held lists or
	// objects, kept as JSON text: "lists", "objects" or "lists and
	// objects", by column.
	JSONColumns map[string]string `json:"json_columns,omitempty"`
	// Notes are things the reader should know ("duplicate column names
	// renamed: a, a.1", "3 ragged rows skipped", ...).
	Notes []string `json:"notes"`
}

// NumberConversion is a text column the loader converted to numbers.
type NumberConversion struct {
	Rule         string     `json:"rule"` // in words; "" for plain numbers
	Converted    int        `json:"converted"`
	Failed       int        `json:"failed"` // values that were not numbers, now missing
	FailedValues []TopValue `json:"failed_values"`
}

// Column kinds.
const (
	KindNumeric     = "numeric"
	KindCategorical = "categorical"
	KindDatetime    = "datetime"
	KindBoolean     = "boolean"
	KindText        = "text"
	KindEmpty       = "empty" // every value missing
)

// Column profiles one column.
type Column struct {
	Name          string     `json:"name"`
	Dtype         string     `json:"dtype"`
	Kind          string     `json:"kind"`
	Missing       int        `json:"missing"`
	MissingShare  float64    `json:"missing_share"`
	Distinct      int        `json:"distinct"`
	DistinctShare float64    `json:"distinct_share"`
	Sample        []string   `json:"sample"` // a few values, as text
	Min           *float64   `json:"min,omitempty"`
	Max           *float64   `json:"max,omitempty"`
	Mean          *float64   `json:"mean,omitempty"`
	Std           *float64   `json:"std,omitempty"`
	Skew          *float64   `json:"skew,omitempty"`
	MinDate       string     `json:"min_date,omitempty"`
	MaxDate       string     `json:"max_date,omitempty"`
	Top           []TopValue `json:"top,omitempty"` // categorical: most frequent values
	// Markers are the missing-value markers the loader found in the column
	// (now missing values), most frequent first.
	Markers []TopValue `json:"markers,omitempty"`
	// MaxCorrelation is the largest |Pearson r| of a numeric column with
	// any other numeric column.
	MaxCorrelation *float64 `json:"max_correlation,omitempty"`
	MemoryBytes    int64    `json:"memory_bytes"`
}

// TopValue is a frequent value of a column and its count.
type TopValue struct {
	Value string  `json:"value"`
	Count int     `json:"count"`
	Share float64 `json:"share"`
}

// Alert types, after ydata-profiling's.
const (
	AlertConstant        = "constant"
	AlertHighMissing     = "high_missing"
	AlertHighCardinality = "high_cardinality"
	AlertUniqueID        = "unique_id"
	AlertSkewed          = "skewed"
	AlertHighCorrelation = "high_correlation"
	AlertDatesAsText     = "dates_as_text"
	AlertMixedTypes      = "mixed_types"
	AlertEmpty           = "empty"
	AlertDuplicates      = "duplicates"
	AlertMissingMarkers  = "missing_markers"
	AlertUnconverted     = "unconverted_values"
	AlertNumbersAsText   = "numbers_as_text"
	AlertPossibleEpoch   = "possible_epoch"
	AlertCaseVariants    = "case_variants"
	// AlertIdentifier marks a numeric column that holds codes or
	// identifiers (named so, whole numbers): not a measure, never charted
	// or correlated.
	AlertIdentifier = "identifier"
	// AlertAmbiguousDates marks dates whose order of day and month the
	// values do not settle: both orders proven (kept as text), or neither
	// (read day first).
	AlertAmbiguousDates = "ambiguous_dates"
	// AlertRaggedRows marks a file of which more than RAGGED_SHARE of the
	// rows were skipped for having more fields than the header, naming the
	// likely cause.
	AlertRaggedRows = "ragged_rows"
	// AlertExcelSerialDates marks a numeric column named like dates whose
	// values are all Excel day numbers (45292 is 2024-01-01).
	AlertExcelSerialDates = "excel_serial_dates"
	// AlertJoinedLines marks text values that hold whole rows of the file:
	// a quote that is text joined lines into one field, and rows are lost.
	AlertJoinedLines = "joined_lines"
	// AlertAmbiguousNumbers marks a file whose decimal comma rests only on
	// numbers such as 123,000, which read as well with ',' grouping thousands,
	// and a column that mixes decimal commas (5,5) with values such as 5.555.
	AlertAmbiguousNumbers = "ambiguous_numbers"
	// AlertTimesAsText marks a text column of times of day (05:40:00):
	// pandas has no time-of-day type, so they stay text.
	AlertTimesAsText = "times_as_text"
)

// Alert is something about the data an analyst should look at.
type Alert struct {
	Type    string   `json:"type"`
	Column  string   `json:"column,omitempty"`
	Columns []string `json:"columns,omitempty"`
	// Tables name the tables of Columns, in order (alerts of the
	// relationships between tables).
	Tables  []string `json:"tables,omitempty"`
	Value   *float64 `json:"value,omitempty"`
	Message string   `json:"message"`
}

// ParseProfile reads the profile cell's JSON output.
func ParseProfile(raw []byte) (*Profile, error) {
	var p Profile
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("reading the data profile: %w", err)
	}
	if p.Columns != len(p.ColumnInfo) {
		return nil, fmt.Errorf("reading the data profile: %d columns but %d column profiles", p.Columns, len(p.ColumnInfo))
	}
	return &p, nil
}

// ColumnNames are the data's column names, in order.
func (p *Profile) ColumnNames() []string {
	names := make([]string, 0, len(p.ColumnInfo))
	for _, c := range p.ColumnInfo {
		names = append(names, c.Name)
	}
	return names
}
