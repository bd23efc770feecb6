package examples

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // Europe/Berlin, for UTC offsets across daylight saving
)

// Messy says what the values of a messy export stand for, so that tests can
// check what the loader made of them.
type Messy struct {
	Rows int
	// The numbers the text of revenue (US grouping, $, accounting
	// negatives), eu_price (1.189,50 €), spaced (1 189) and margin (26.7%)
	// stands for; revenue's values that are not numbers, with their counts.
	Revenue, EUPrice, Spaced, Margin []float64
	RevenueBad                       map[string]int
	// score: numbers, missing-value markers as written with their counts,
	// and empty fields.
	Score        []float64
	ScoreMarkers map[string]int
	ScoreEmpty   int
	// region: counts of each spelling (North, NORTH , north, ...).
	Region map[string]int
	// ts_offset (+01:00/+02:00, Berlin across the start of daylight saving)
	// and ts_z (the same instants, Z-suffixed): the first and last in UTC.
	FirstUTC, LastUTC time.Time
	// created_at: Unix seconds; its earliest time.
	FirstEpoch time.Time
	// TextShare is the share of mostly_text's values that are numbers.
	TextShare float64
}

// MessyHeader names the columns of WriteMessy's CSV.
var MessyHeader = []string{"revenue", "eu_price", "spaced", "margin", "score", "region", "ts_offset", "ts_z",
	"created_at", "account", "mostly_text"}

// thousands writes |v| with sep between groups of three digits and dec as
// the decimal mark, with decimals digits after it.
func thousands(v float64, sep, dec string, decimals int) string {
	s := strconv.FormatFloat(math.Abs(v), 'f', decimals, 64)
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteRune(r)
	}
	if frac != "" {
		b.WriteString(dec + frac)
	}
	return b.String()
}

// WriteMessy writes rows of a table as spreadsheets and exports write them:
// numbers as text with thousands separators of either convention, currency
// symbols, percent signs and accounting negatives; missing-value markers;
// category spellings that differ by case and spaces; timestamps with UTC
// offsets and Z; Unix times; an integer column that could be Unix times or
// an identifier; a column of numbers mixed with too much text to convert.
// The same rows and seed give the same bytes.
func WriteMessy(w io.Writer, rows int, seed uint64) (Messy, error) {
	r := rand.New(rand.NewPCG(seed, 99))
	m := Messy{Rows: rows, RevenueBad: map[string]int{}, ScoreMarkers: map[string]int{}, Region: map[string]int{}}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		return m, err
	}
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	cw.Write(MessyHeader)
	markers := []string{"-", "unknown", "N/A", "n/a", "NULL", "none", "?", "   ", "Unknown "}
	spellings := []string{"North", "NORTH ", "north", "South", " south", "East"}
	start := time.Date(2024, 3, 20, 8, 0, 0, 0, berlin) // daylight saving starts on 31 March
	epoch0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range rows {
		// revenue: US grouping, $ before or after, accounting negatives, a few non-numbers.
		v := math.Round(r.Float64()*2e6) / 100
		if r.IntN(8) == 0 {
			v = -v
		}
		revenue := thousands(v, ",", ".", 2)
		switch i % 4 {
		case 0:
			revenue = "$" + revenue
		case 1:
			revenue += " $"
		}
		if v < 0 {
			if i%3 == 0 {
				revenue = "(" + revenue + ")"
			} else {
				revenue = "-" + revenue
			}
		}
		if i%97 == 5 {
			revenue = []string{"call us", "TBD"}[i%2]
			m.RevenueBad[revenue]++
		} else {
			m.Revenue = append(m.Revenue, v)
		}
		// eu_price: '.' groups, ',' is the decimal mark, the euro sign either side.
		p := math.Round(r.Float64()*5e5) / 100
		m.EUPrice = append(m.EUPrice, p)
		eu := thousands(p, ".", ",", 2)
		eu = []string{eu + " €", "€" + eu, eu}[i%3]
		// spaced: whole numbers grouped by a space, a no-break space or a narrow one.
		s := float64(r.IntN(5_000_000))
		m.Spaced = append(m.Spaced, s)
		spaced := thousands(s, []string{" ", "\u00a0", "\u202f"}[i%3], ".", 0)
		pc := float64(r.IntN(2000)-500) / 10
		m.Margin = append(m.Margin, pc/100)
		score := strconv.Itoa(r.IntN(100))
		switch {
		case i%5 == 3:
			score = markers[(i/5)%len(markers)]
			m.ScoreMarkers[score]++
		case i%23 == 0:
			score = ""
			m.ScoreEmpty++
		default:
			f, _ := strconv.ParseFloat(score, 64)
			m.Score = append(m.Score, f)
		}
		region := spellings[r.IntN(len(spellings))]
		m.Region[region]++
		t := start.Add(time.Duration(i) * 3 * time.Hour)
		if i == 0 {
			m.FirstUTC = t.UTC()
		}
		m.LastUTC = t.UTC()
		created := epoch0.Add(time.Duration(r.IntN(300*86400)) * time.Second)
		if i == 0 || created.Before(m.FirstEpoch) {
			m.FirstEpoch = created
		}
		account := strconv.Itoa(1_100_000_000 + r.IntN(800_000_000))
		mostly := fmt.Sprintf("$%s", thousands(float64(r.IntN(90000)), ",", ".", 0))
		if i%10 < 3 {
			mostly = []string{"see note", "pending", "waived"}[i%3]
		} else {
			m.TextShare++
		}
		cw.Write([]string{revenue, eu, spaced, strconv.FormatFloat(pc, 'f', 1, 64) + "%", score, region,
			t.Format("2006-01-02T15:04:05-07:00"), t.UTC().Format("2006-01-02T15:04:05Z"),
			strconv.FormatInt(created.Unix(), 10), account, mostly})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return m, err
	}
	m.TextShare /= float64(rows)
	_, err = w.Write(b.Bytes())
	return m, err
}
