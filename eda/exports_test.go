package eda

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

// Exports that a loader which guesses reads wrong while the result looks
// right (issue #20, items 9-13): leading zeros, the order of day and
// month, European dates beside thousands dots, title lines above the
// header, totals rows. Each input is generated in the shape real tools
// write it.

// codesData is a table of codes beside measures: zip (ZIP codes, a quarter
// with a leading zero), customer_id (zero-padded to six digits), postal_code
// (sorted: the codes with a leading zero come only after the first 64 KB),
// store_id (whole numbers, skewed, correlated with amount: a measure rule
// would alert on it), id (1..n), account_balance (a measure whose name holds
// a code word, not as its last word), account (named like a code, but whole
// numbers some of them negative: a measure), amount (a skewed measure) and
// discount ("0", "0.5", "0.25": zeros that are not leading zeros).
type codesData struct {
	rows                    int
	zips, customers, postal []string
	firstPaddedPostal       int // where the first row with a postal code that starts with 0 starts
	csv                     []byte
	jsonRecords             []byte
}

func makeCodes(rows int) codesData {
	r := rand.New(rand.NewPCG(9, 13))
	d := codesData{rows: rows}
	zipPool := []string{"02134", "01001", "10001", "94105", "60601", "73301", "30301", "98101"}
	var b bytes.Buffer
	var records []map[string]any
	b.WriteString("zip,customer_id,postal_code,store_id,id,account_balance,account,amount,discount\n")
	for i := range rows {
		zip := zipPool[r.IntN(len(zipPool))]
		customer := fmt.Sprintf("%06d", r.IntN(20000)) // 0xxxxx
		postal := fmt.Sprintf("9%04d", 1000+r.IntN(8000))
		if i >= rows*2/3 {
			postal = fmt.Sprintf("0%04d", 1000+r.IntN(8000))
		}
		if i == rows*2/3 {
			d.firstPaddedPostal = b.Len()
		}
		store := 1
		if r.IntN(10) == 0 {
			store = 2 + r.IntN(19)
		}
		amount := float64(store)*50 + math.Round(r.ExpFloat64()*100)/100
		balance := math.Round((r.NormFloat64()*500+100)*100) / 100
		discount := []string{"0", "0.5", "0.25"}[r.IntN(3)]
		d.zips, d.customers, d.postal = append(d.zips, zip), append(d.customers, customer), append(d.postal, postal)
		fmt.Fprintf(&b, "%s,%s,%s,%d,%d,%s,%d,%s,%s\n", zip, customer, postal, store, i+1, fmtFloat(balance),
			int(math.Round(balance)), fmtFloat(amount), discount)
		records = append(records, map[string]any{"zip": zip, "customer_id": customer, "store_id": store, "amount": amount})
	}
	d.csv = b.Bytes()
	d.jsonRecords, _ = json.Marshal(records)
	return d
}

func countPrefix(values []string, prefix string) int {
	n := 0
	for _, v := range values {
		if strings.HasPrefix(v, prefix) {
			n++
		}
	}
	return n
}

// Codes with leading zeros stay text wherever their zeros are (CSV, JSON
// strings, Excel text cells), and columns named like codes are not
// measures: no histogram, skewness alert, correlation or pair plot.
func TestLeadingZerosAndCodes(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	os.Chmod(out, 0o777)
	d := makeCodes(3000)
	if d.firstPaddedPostal < headKB*1024 {
		t.Fatalf("the postal codes with a leading zero start at byte %d, within the first %d KB", d.firstPaddedPostal, headKB)
	}
	os.WriteFile(filepath.Join(dir, "codes.csv"), d.csv, 0o644)
	os.WriteFile(filepath.Join(dir, "codes.json"), d.jsonRecords, 0o644)
	k := kerneltest.Start(t, func(o *kernel.Options) { o.Data = dir; o.OutputDir = out })
	mustRun(t, k, Setup())

	mustRun(t, k, Load("/data/codes.csv"))
	p := profileOf(t, mustRun(t, k, ProfileStage()))
	wantKinds(t, p, map[string]string{"zip": KindCategorical, "customer_id": KindCategorical, "postal_code": KindCategorical,
		"store_id": KindNumeric, "id": KindNumeric, "account_balance": KindNumeric, "amount": KindNumeric, "discount": KindNumeric})
	wantNote(t, p, fmt.Sprintf("'zip' keeps its leading zeros: %s value(s) such as '", thousands(countPrefix(d.zips, "0"))))
	wantNote(t, p, fmt.Sprintf("'customer_id' keeps its leading zeros: %s value(s)", thousands(countPrefix(d.customers, "0"))))
	wantNote(t, p, fmt.Sprintf("'postal_code' keeps its leading zeros: %s value(s)", thousands(countPrefix(d.postal, "0"))))
	var got struct {
		Zip    []string `json:"zip"`
		Postal []string `json:"postal"`
	}
	pyValue(t, k, `print(json.dumps({"zip": df["zip"].head(20).astype(str).tolist(), "postal": df["postal_code"].tail(20).astype(str).tolist()}))`, &got)
	if !slices.Equal(got.Zip, d.zips[:20]) || !slices.Equal(got.Postal, d.postal[len(d.postal)-20:]) {
		t.Errorf("zip %q, postal_code %q; want %q and %q as written", got.Zip, got.Postal, d.zips[:20], d.postal[len(d.postal)-20:])
	}
	if c := p.col(t, "discount"); c.Max == nil || *c.Max != 0.5 {
		t.Errorf("discount (0, 0.5, 0.25: no leading zeros) max %v, want 0.5", ptr(c.Max))
	}
	wantNotMeasures(t, k, p, []string{"store_id", "id"}, []string{"account_balance", "account", "amount", "discount"})

	t.Run("json", func(t *testing.T) {
		mustRun(t, k, Load("/data/codes.json"))
		p := profileOf(t, mustRun(t, k, ProfileStage()))
		wantKinds(t, p, map[string]string{"zip": KindCategorical, "customer_id": KindCategorical, "store_id": KindNumeric})
		wantNote(t, p, fmt.Sprintf("'zip' keeps its leading zeros: %d value(s)", countPrefix(d.zips, "0")))
		if !p.hasAlert(AlertIdentifier, "store_id") || p.hasAlert(AlertIdentifier, "amount") {
			t.Errorf("identifier alerts: %+v", p.Alerts)
		}
	})
	t.Run("xlsx", func(t *testing.T) {
		mustRun(t, k, Stage{Name: "make", Cells: []Cell{Code(`import json
records = json.load(open("/data/codes.json"))
pd.DataFrame(records).to_excel("/output/codes.xlsx", index=False)  # str values: Excel text cells
print("written")`)}})
		mustRun(t, k, Load("/output/codes.xlsx"))
		p := profileOf(t, mustRun(t, k, ProfileStage()))
		wantKinds(t, p, map[string]string{"zip": KindCategorical, "customer_id": KindCategorical})
		wantNote(t, p, fmt.Sprintf("'zip' keeps its leading zeros: %d value(s)", countPrefix(d.zips, "0")))
	})
}

// wantNotMeasures checks that the numeric columns codes get the identifier
// alert, no skewed alert, no correlation, and appear in no histogram,
// correlation matrix, pair or pair plot (the stages run, and their cells
// are read); measures keep their charts.
func wantNotMeasures(t *testing.T, k *kernel.Kernel, p *Profile, codes, measures []string) {
	t.Helper()
	for _, name := range codes {
		if !p.hasAlert(AlertIdentifier, name) || p.hasAlert(AlertSkewed, name) || p.hasAlert(AlertHighCorrelation, name) {
			t.Errorf("%s: want an identifier alert and no skewed or high_correlation alert: %+v", name, p.Alerts)
		}
		if c := p.col(t, name); c.MaxCorrelation != nil {
			t.Errorf("%s: max_correlation %v, want none (not correlated)", name, *c.MaxCorrelation)
		}
	}
	for _, name := range measures {
		if p.hasAlert(AlertIdentifier, name) {
			t.Errorf("%s is a measure: identifier alert %+v", name, p.Alerts)
		}
	}
	c, v := Choose(p, Options{}), ChooseVisualization(p, Options{})
	for _, name := range codes {
		for what, list := range map[string][]string{"histograms": append(c.Hist, c.HistLeftOut...), "correlations": c.Correlation,
			"pairs": v.Pairs, "pair plot": v.PairPlot, "by category": v.Grouped} {
			if slices.Contains(list, name) {
				t.Errorf("%s in the %s: %q", name, what, list)
			}
		}
	}
	for _, name := range measures {
		if !slices.Contains(c.Hist, name) {
			t.Errorf("measure %s has no histogram: %q", name, c.Hist)
		}
	}
	dist, viz := Distributions(p, Options{}), Visualization(p, Options{})
	mustRun(t, k, dist)
	mustRun(t, k, viz)
	for _, cell := range append(dist.Cells, viz.Cells...) {
		if cell.Markdown || slices.Contains(cell.Tags, "numeric-stats") {
			continue // the summary table lists every numeric column
		}
		for _, name := range codes {
			if strings.Contains(cell.Source, pyString(name)) {
				t.Errorf("cell %v names the code column %s:\n%s", cell.Tags, name, cell.Source)
			}
		}
	}
}

// dotted writes n with dots between groups of three digits, as German
// exports do: 1.234.567.
func dotted(n int) string { return strings.ReplaceAll(thousands(n), ",", ".") }
