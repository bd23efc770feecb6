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
	g := &messyGen{r: rand.New(rand.NewPCG(seed, 99)),
		m: Messy{Rows: rows, RevenueBad: map[string]int{}, ScoreMarkers: map[string]int{}, Region: map[string]int{}}}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		return g.m, err
	}
	g.start = time.Date(2024, 3, 20, 8, 0, 0, 0, berlin) // daylight saving starts on 31 March
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	cw.Write(MessyHeader)
	for i := range rows {
		cw.Write(g.row(i))
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return g.m, err
	}
	g.m.TextShare /= float64(rows)
	_, err = w.Write(b.Bytes())
	return g.m, err
}

// messyGen writes the rows of WriteMessy, keeping in m what they hold.
type messyGen struct {
	r     *rand.Rand
	m     Messy
	start time.Time
}

var (
	messyMarkers   = []string{"-", "unknown", "N/A", "n/a", "NULL", "none", "?", "   ", "Unknown "}
	messySpellings = []string{"North", "NORTH ", "north", "South", " south", "East"}
	messyEpoch     = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
)

// row is the i-th row; the random numbers are drawn in the columns' order.
func (g *messyGen) row(i int) []string {
	revenue, eu := g.revenue(i), g.euPrice(i)
	s := float64(g.r.IntN(5_000_000))
	g.m.Spaced = append(g.m.Spaced, s)
	spaced := thousands(s, []string{" ", "\u00a0", "\u202f"}[i%3], ".", 0)
	pc := float64(g.r.IntN(2000)-500) / 10
	g.m.Margin = append(g.m.Margin, pc/100)
	score := g.score(i)
	region := messySpellings[g.r.IntN(len(messySpellings))]
	g.m.Region[region]++
	t := g.start.Add(time.Duration(i) * 3 * time.Hour)
	if i == 0 {
		g.m.FirstUTC = t.UTC()
	}
	g.m.LastUTC = t.UTC()
	created := messyEpoch.Add(time.Duration(g.r.IntN(300*86400)) * time.Second)
	if i == 0 || created.Before(g.m.FirstEpoch) {
		g.m.FirstEpoch = created
	}
	account := strconv.Itoa(1_100_000_000 + g.r.IntN(800_000_000))
	mostly := fmt.Sprintf("$%s", thousands(float64(g.r.IntN(90000)), ",", ".", 0))
	if i%10 < 3 {
		mostly = []string{"see note", "pending", "waived"}[i%3]
	} else {
		g.m.TextShare++
	}
	return []string{revenue, eu, spaced, strconv.FormatFloat(pc, 'f', 1, 64) + "%", score, region,
		t.Format("2006-01-02T15:04:05-07:00"), t.UTC().Format("2006-01-02T15:04:05Z"),
		strconv.FormatInt(created.Unix(), 10), account, mostly}
}

// revenue: US grouping, $ before or after, accounting negatives, a few
// non-numbers.
func (g *messyGen) revenue(i int) string {
	v := math.Round(g.r.Float64()*2e6) / 100
	if g.r.IntN(8) == 0 {
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
		g.m.RevenueBad[revenue]++
	} else {
		g.m.Revenue = append(g.m.Revenue, v)
	}
	return revenue
}

// euPrice: '.' groups, ',' is the decimal mark, the euro sign either side.
func (g *messyGen) euPrice(i int) string {
	p := math.Round(g.r.Float64()*5e5) / 100
	g.m.EUPrice = append(g.m.EUPrice, p)
	eu := thousands(p, ".", ",", 2)
	return []string{eu + " €", "€" + eu, eu}[i%3]
}

// score: whole numbers, missing-value markers and empty cells.
func (g *messyGen) score(i int) string {
	score := strconv.Itoa(g.r.IntN(100))
	switch {
	case i%5 == 3:
		score = messyMarkers[(i/5)%len(messyMarkers)]
		g.m.ScoreMarkers[score]++
	case i%23 == 0:
		score = ""
		g.m.ScoreEmpty++
	default:
		f, _ := strconv.ParseFloat(score, 64)
		g.m.Score = append(g.m.Score, f)
	}
	return score
}
