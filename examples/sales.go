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
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
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
		var discount *float64
		revenue := float64(units) * price
		switch x := r.Float64(); {
		case x < 0.03:
			// missing: not recorded
		case x < 0.25:
			d := []float64{0.05, 0.1, 0.15, 0.2}[r.IntN(4)]
			discount = &d
			revenue *= 1 - d
		default:
			discount = new(float64)
		}
		s := Sale{OrderID: int64(100000 + i), Date: date, Region: regions[r.IntN(len(regions))], Product: p.name,
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
	bw := bufio.NewWriterSize(w, 1<<20)
	if _, err := fmt.Fprintln(bw, SalesHeader); err != nil {
		return err
	}
	err := Sales(rows, seed, func(s Sale) error {
		discount := ""
		if s.Discount != nil {
			discount = fmt.Sprintf("%.2f", *s.Discount)
		}
		_, err := fmt.Fprintf(bw, "%d,%s,%s,%s,%s,%d,%.2f,%s,%.2f,%s\n",
			s.OrderID, s.Date.Format("2006-01-02"), s.Region, s.Product, s.Channel, s.Units, s.UnitPrice,
			discount, s.Revenue, s.CustomerID)
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
