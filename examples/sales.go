// Package examples makes the example datasets that the docs, the demo and
// the benchmarks use. They are generated, not shipped: deterministic for a
// seed, so every machine gets the same bytes.
package examples

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
)

var (
	regions  = []string{"North", "South", "East", "West", "Central"}
	products = []struct {
		name  string
		price float64
	}{
		{"Notebook", 4.5}, {"Pen", 1.2}, {"Backpack", 39.9}, {"Desk Lamp", 24.0}, {"Monitor", 189.0},
		{"Keyboard", 49.0}, {"Mouse", 19.5}, {"Headphones", 79.0}, {"Webcam", 59.0}, {"Chair", 149.0},
	}
	channels = []string{"online", "store", "partner"}
)

// SalesHeader is the first line of the sales CSV.
const SalesHeader = "order_id,date,region,product,channel,units,unit_price,discount,revenue,customer_id"

// Sale is one order of the synthetic sales data.
type Sale struct {
	OrderID    int64     `parquet:"order_id"`
	Date       time.Time `parquet:"date,timestamp(millisecond:local)"`
	Region     string    `parquet:"region,dict"`
	Product    string    `parquet:"product,dict"`
	Channel    string    `parquet:"channel,dict"`
	Units      int64     `parquet:"units"`
	UnitPrice  float64   `parquet:"unit_price"`
	Discount   *float64  `parquet:"discount,optional"` // nil: not recorded
	Revenue    float64   `parquet:"revenue"`
	CustomerID string    `parquet:"customer_id"`
}

// Sales calls yield with rows synthetic sales orders: two years of dates
// with a seasonal peak in November and December, five regions, ten products,
// some missing discounts. The same rows and seed give the same orders.
func Sales(rows int, seed uint64, yield func(Sale) error) error {
	return SalesChanged(rows, seed, SalesChange{}, yield)
}

// SalesChange alters the generated orders as a later export of the same
// data might differ (tests of analyst run --baseline). The zero value
// changes nothing: the same orders as Sales.
type SalesChange struct {
	PriceFactor   float64 // unit prices (and so revenue) times this; 0: 1
	NewRegion     string  // a sixth region, as likely as each of the five
	MissingFactor float64 // discounts missing this many times as often (3% of orders at 1); 0: 1
	DropColumn    string  // a column WriteSalesChanged leaves out
	UnitsAsText   bool    // WriteSalesChanged writes units as text: "3 pcs"
	// RenameFrom is a column WriteSalesChanged names RenameTo.
	RenameFrom, RenameTo string
	// GapMonth (2024-03) has no orders: they are dated a month later.
	GapMonth string
}

// SalesChanged is Sales with the changes ch.
func SalesChanged(rows int, seed uint64, ch SalesChange, yield func(Sale) error) error {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	priceFactor, missingFactor := cmp.Or(ch.PriceFactor, 1), cmp.Or(ch.MissingFactor, 1)
	zones := regions
	if ch.NewRegion != "" {
		zones = append(slices.Clip(regions), ch.NewRegion)
	}
	start := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	const days = 731
	for i := 0; i < rows; i++ {
		// Seasonality: later months are likelier, November and December most.
		day := r.IntN(days)
		for j := 0; j < 2; j++ {
			if m := start.AddDate(0, 0, day).Month(); m >= time.November {
				break
			}
			if r.Float64() < 0.25 {
				day = r.IntN(days)
			}
		}
		date := start.AddDate(0, 0, day)
		if ch.GapMonth != "" && date.Format("2006-01") == ch.GapMonth {
			date = date.AddDate(0, 1, 0)
		}
		p := products[r.IntN(len(products))]
		units := 1 + int(math.Floor(r.ExpFloat64()*3))
		price := math.Round(p.price*(0.9+0.2*r.Float64())*100) / 100
		if priceFactor != 1 {
			price = math.Round(price*priceFactor*100) / 100
		}
		var discount *float64
		revenue := float64(units) * price
		switch x := r.Float64(); {
		case x < 0.03*missingFactor:
			// missing: not recorded
		case x < 0.25:
			d := []float64{0.05, 0.1, 0.15, 0.2}[r.IntN(4)]
			discount = &d
			revenue *= 1 - d
		default:
			discount = new(float64)
		}
		s := Sale{OrderID: int64(100000 + i), Date: date, Region: zones[r.IntN(len(zones))], Product: p.name,
			Channel: channels[r.IntN(len(channels))], Units: int64(units), UnitPrice: price, Discount: discount,
			Revenue: math.Round(revenue*100) / 100, CustomerID: fmt.Sprintf("C%05d", r.IntN(50000))}
		if err := yield(s); err != nil {
			return err
		}
	}
	return nil
}

// WriteSales writes Sales as CSV. The same rows and seed give the same bytes.
func WriteSales(w io.Writer, rows int, seed uint64) error {
	return WriteSalesChanged(w, rows, seed, SalesChange{})
}

// WriteSalesChanged writes SalesChanged as CSV.
func WriteSalesChanged(w io.Writer, rows int, seed uint64, ch SalesChange) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	header := strings.Split(SalesHeader, ",")
	keep := make([]bool, len(header))
	var names []string
	for i, h := range header {
		if keep[i] = h != ch.DropColumn; keep[i] {
			if h == ch.RenameFrom {
				h = ch.RenameTo
			}
			names = append(names, h)
		}
	}
	if _, err := fmt.Fprintln(bw, strings.Join(names, ",")); err != nil {
		return err
	}
	fields := make([]string, 0, len(header))
	err := SalesChanged(rows, seed, ch, func(s Sale) error {
		discount, units := "", strconv.FormatInt(s.Units, 10)
		if s.Discount != nil {
			discount = fmt.Sprintf("%.2f", *s.Discount)
		}
		if ch.UnitsAsText {
			units += " pcs"
		}
		fields = fields[:0]
		for i, f := range []string{strconv.FormatInt(s.OrderID, 10), s.Date.Format("2006-01-02"), s.Region, s.Product, s.Channel,
			units, fmt.Sprintf("%.2f", s.UnitPrice), discount, fmt.Sprintf("%.2f", s.Revenue), s.CustomerID} {
			if keep[i] {
				fields = append(fields, f)
			}
		}
		_, err := fmt.Fprintln(bw, strings.Join(fields, ","))
		return err
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// WriteSalesParquet writes the same orders as WriteSales as Parquet (zstd
// compressed, dictionary-encoded text, the date a timestamp).
func WriteSalesParquet(w io.Writer, rows int, seed uint64) error {
	pw := parquet.NewGenericWriter[Sale](w, parquet.Compression(&parquet.Zstd))
	batch := make([]Sale, 0, 8192)
	flush := func() error {
		_, err := pw.Write(batch)
		batch = batch[:0]
		return err
	}
	err := Sales(rows, seed, func(s Sale) error {
		batch = append(batch, s)
		if len(batch) == cap(batch) {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return err
	}
	return pw.Close()
}
