package eda

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

// BenchmarkRelationships times the relationships stage on a DABstep-shaped
// pair of tables read by the loader: payments.csv, 1,000,000 rows × 21
// columns (hashed ids with repeats and gaps, about 1% of rows naming a
// merchant that is not in the other table), and merchants.json, 50,000 merchants
// with a list field. It reports each cell's time (the find, its JSON, the
// diagram), and the find's CPU time in the kernel beside that of reading
// every column whole (no sample first; the same result); the target is the
// find and JSON cells within 2 s.
//
//	go test -run '^$' -bench '^BenchmarkRelationships$' -benchtime 3x ./eda/
func BenchmarkRelationships(b *testing.B) {
	dir := b.TempDir()
	orphans, err := writeBenchTables(dir, 1_000_000, 50_000)
	if err != nil {
		b.Fatal(err)
	}
	k := kerneltest.Start(b, func(o *kernel.Options) { o.Data = dir })
	mustRun(b, k, Setup())
	mustRun(b, k, Stage{Name: "tables", Cells: []Cell{Code("tables = {}")}})
	for _, f := range []string{"payments.csv", "merchants.json"} {
		mustRun(b, k, LoadFrom(Source{Path: "/data/" + f}))
		mustRun(b, k, Stage{Name: "keep", Cells: []Cell{Code(fmt.Sprintf("tables[%q] = df", f[:len(f)-len(filepath.Ext(f))]))}})
	}
	st := Relationships([]string{"payments", "merchants"})
	var find, js, chart, cpu, whole time.Duration
	for range b.N {
		r := mustRun(b, k, st)
		p := relationshipsOf(b, r)
		if len(p.Relationships) == 0 || !p.Relationships[0].Broken() || p.Relationships[0].OrphanRows != orphans {
			b.Fatalf("relationships: %+v", p.Relationships)
		}
		find += r.execs[0].Duration
		js += r.execs[1].Duration
		chart += r.execs[2].Duration
		// The find's CPU time, and that of its baseline: every column read
		// whole at once, no sample first (the same result, checked).
		var t struct{ CPU, Whole float64 }
		timed := Stage{Name: "timed", Cells: []Cell{Code(`import time
frames = {name: tables[name] for name in RELATIONSHIP_TABLES}
start = time.process_time()
sampled = find_relationships(frames)
middle = time.process_time()
SAMPLE_ROWS, kept = 10**15, SAMPLE_ROWS
whole = find_relationships(frames)
end = time.process_time()
SAMPLE_ROWS = kept
assert whole == sampled
print(json.dumps({"CPU": middle - start, "Whole": end - middle}))`)}}
		if err := json.Unmarshal([]byte(mustRun(b, k, timed).execs[0].Stdout()), &t); err != nil {
			b.Fatal(err)
		}
		cpu += seconds(t.CPU)
		whole += seconds(t.Whole)
	}
	reportPerOp(b, find, "find-s")
	reportPerOp(b, js, "json-s")
	reportPerOp(b, chart, "diagram-s")
	reportPerOp(b, cpu, "find-cpu-s")
	reportPerOp(b, whole, "every-column-whole-cpu-s")
}

// writeBenchTables writes payments.csv (rows rows, DABstep's columns) and
// merchants.json (merchants merchants, one of whose fields is a list), and
// says how many payments name a merchant that is not in merchants.json.
func writeBenchTables(dir string, rows, merchants int) (orphans int, err error) {
	rng := rand.New(rand.NewPCG(1, 2))
	token := func(pool int, salt uint64) string { // a hashed-looking id from a pool of that many
		return strconv.FormatUint((uint64(rng.IntN(pool))+salt)*0x9E3779B97F4A7C15, 36)
	}
	ms := make([]map[string]any, merchants)
	for i := range ms {
		ms[i] = map[string]any{"merchant": fmt.Sprintf("Merchant_%06d", i), "merchant_category_code": 4000 + rng.IntN(5000),
			"account_type": []string{"R", "D", "H", "F", "S"}[rng.IntN(5)], "acquirer": []string{"bank_a", "bank_b"}[:1+rng.IntN(2)]}
	}
	mj, err := json.Marshal(ms)
	if err != nil {
		return 0, err
	}
	if err := os.WriteFile(filepath.Join(dir, "merchants.json"), mj, 0o644); err != nil {
		return 0, err
	}
	f, err := os.Create(filepath.Join(dir, "payments.csv"))
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "psp_reference,merchant,card_scheme,year,hour_of_day,minute_of_hour,day_of_year,is_credit,eur_amount,"+
		"ip_country,issuing_country,device_type,ip_address,email_address,card_number,shopper_interaction,card_bin,"+
		"has_fraudulent_dispute,is_refused_by_adyen,aci,acquirer_country")
	countries := []string{"NL", "BE", "DE", "FR", "IT", "ES", "SE"}
	for i := range rows {
		merchant := fmt.Sprintf("Merchant_%06d", rng.IntN(merchants))
		if rng.IntN(100) == 0 { // about 1% of rows: merchants not in merchants.json
			merchant = fmt.Sprintf("Closed_%03d", rng.IntN(700))
			orphans++
		}
		ip, email := token(500_000, 1), token(400_000, 2)
		if rng.IntN(100) < 15 {
			ip = ""
		}
		if rng.IntN(100) < 10 {
			email = ""
		}
		fmt.Fprintf(w, "%d,%s,%s,2023,%d,%d,%d,%t,%.2f,%s,%s,%s,%s,%s,%s,%s,%d,%t,%t,%c,%s\n",
			10_000_000_000+int64(i)*7919+int64(rng.IntN(7919)), merchant, []string{"OrbitPay", "CardStream", "PayWave", "Meridian"}[rng.IntN(4)],
			rng.IntN(24), rng.IntN(60), 1+rng.IntN(365), rng.IntN(10) < 7, rng.ExpFloat64()*90,
			countries[rng.IntN(7)], countries[rng.IntN(7)], []string{"Windows", "Linux", "iOS", "Android", "Other"}[rng.IntN(5)],
			ip, email, token(600_000, 3), []string{"Ecommerce", "POS"}[rng.IntN(2)], 4000+rng.IntN(1000),
			rng.IntN(100) < 2, rng.IntN(100) < 6, 'A'+rune(rng.IntN(7)), countries[rng.IntN(3)])
	}
	if err := w.Flush(); err != nil {
		return 0, err
	}
	return orphans, f.Close()
}
