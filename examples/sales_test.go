package examples

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"
	"testing"
)

func TestWriteSalesIsDeterministicAndWellFormed(t *testing.T) {
	var a, b, c bytes.Buffer
	if err := WriteSales(&a, 2000, 7); err != nil {
		t.Fatal(err)
	}
	_ = WriteSales(&b, 2000, 7)
	_ = WriteSales(&c, 2000, 8)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("same seed gave different bytes")
	}
	if bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Error("different seeds gave the same bytes")
	}
	recs, err := csv.NewReader(&a).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2001 || strings.Join(recs[0], ",") != SalesHeader {
		t.Fatalf("rows %d header %v", len(recs), recs[0])
	}
	missing, novdec := 0, 0
	for _, rec := range recs[1:] {
		units, _ := strconv.Atoi(rec[5])
		price, _ := strconv.ParseFloat(rec[6], 64)
		rev, _ := strconv.ParseFloat(rec[8], 64)
		disc := 0.0
		if rec[7] == "" {
			missing++
		} else {
			disc, _ = strconv.ParseFloat(rec[7], 64)
		}
		if want := float64(units) * price * (1 - disc); rev < want-0.01 || rev > want+0.01 {
			t.Fatalf("revenue %v != units*price*(1-discount) %v in %v", rev, want, rec)
		}
		if m := rec[1][5:7]; m == "11" || m == "12" {
			novdec++
		}
	}
	if missing == 0 {
		t.Error("no missing discounts; the example should exercise NaN handling")
	}
	if share := float64(novdec) / 2000; share < 2.0/12*1.2 {
		t.Errorf("November/December share %.2f, want a visible seasonal peak", share)
	}
}
