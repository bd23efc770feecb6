// Package examples makes the example datasets that the README, the demo and
// the benchmarks use. They are generated, not shipped: deterministic for a
// seed, so every machine gets the same bytes.
package examples

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"
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

// WriteSales writes rows of synthetic sales orders as CSV: two years of dates
// with a seasonal peak in November and December, five regions, ten products,
// some missing discounts. The same rows and seed give the same bytes.
func WriteSales(w io.Writer, rows int, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	bw := bufio.NewWriterSize(w, 1<<20)
	if _, err := fmt.Fprintln(bw, SalesHeader); err != nil {
		return err
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
		p := products[r.IntN(len(products))]
		units := 1 + int(math.Floor(r.ExpFloat64()*3))
		price := math.Round(p.price*(0.9+0.2*r.Float64())*100) / 100
		discount := ""
		revenue := float64(units) * price
		switch x := r.Float64(); {
		case x < 0.03:
			// missing: not recorded
		case x < 0.25:
			d := []float64{0.05, 0.1, 0.15, 0.2}[r.IntN(4)]
			discount = fmt.Sprintf("%.2f", d)
			revenue *= 1 - d
		default:
			discount = "0.00"
		}
		_, err := fmt.Fprintf(bw, "%d,%s,%s,%s,%s,%d,%.2f,%s,%.2f,C%05d\n",
			100000+i, date.Format("2006-01-02"), regions[r.IntN(len(regions))], p.name,
			channels[r.IntN(len(channels))], units, price, discount, math.Round(revenue*100)/100, r.IntN(50000))
		if err != nil {
			return err
		}
	}
	return bw.Flush()
}
