package dabsteptest

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
)

// The fixture's own vocabulary, in the real data's shapes.
var (
	schemes      = []string{"OrbitPay", "CardStream", "PayWave", "Meridian"}
	accountTypes = []string{"R", "D", "H", "F", "S", "O"}
	acis         = []string{"A", "B", "C", "D", "E", "F", "G"}
	devices      = []string{"Windows", "Linux", "MacOS", "iOS", "Android", "Other"}
	// countries and their weights as issuing and IP countries: NL first by
	// far, so the busiest country is never a tie.
	countries      = []string{"NL", "BE", "DE", "FR", "IT", "ES", "SE", "LU", "GR"}
	countryWeights = []int{34, 12, 10, 9, 9, 8, 7, 6, 5}
	captureDelays  = []string{"immediate", "manual", "1", "2", "4", "7"}
	// The rules' capture delay, monthly volume and fraud level buckets.
	delayBuckets  = []string{"immediate", "manual", "<3", "3-5", ">5"}
	volumeBuckets = []string{"<2k", "2k-5k", ">5k"}
	fraudBuckets  = []string{"<1%", "1%-3%", ">3%"}
)

type mcc struct {
	Code        int
	Description string
}

var mccs = []mcc{
	{5411, "Grocery Stores and Supermarkets"}, {5462, "Bakeries"}, {5812, "Eating Places and Restaurants"},
	{5814, "Fast Food Restaurants"}, {5940, "Bicycle Shops - Sales and Service"}, {5942, "Book Stores"},
	{5251, "Hardware Stores"}, {7997, "Clubs - Country Clubs, Membership (Athletic, Recreation, Sports)"},
	{7011, "Hotels, Motels and Resorts"}, {5999, "Miscellaneous and Specialty Retail Stores"},
	{4121, "Taxicabs and Limousines"}, {8299, "Schools and Educational Services"},
}

type acquirer struct{ Name, Country string }

var acquirers = []acquirer{
	{"tulip_merchant_bank", "NL"}, {"canal_payments", "NL"}, {"rhine_acquiring", "DE"},
	{"seine_card_services", "FR"}, {"nordic_clearing", "SE"}, {"atlantic_trust", "US"},
}

// merchant is a line of merchant_data.json.
type merchant struct {
	Name         string   `json:"merchant"`
	CaptureDelay string   `json:"capture_delay"`
	Acquirers    []string `json:"acquirer"`
	MCC          int      `json:"merchant_category_code"`
	AccountType  string   `json:"account_type"`
}

var merchantNames = []string{"Tulip_Bakery", "Harbor_Cycles", "Lumen_Books", "Vesper_Bistro", "Granite_Hardware", "Orchid_Yoga_Club"}

// merchantWeights: each merchant's share of the payments;
// fraudPerMille: the share of its online payments disputed as fraud, so
// that monthly fraud levels fall in every bucket.
var (
	merchantWeights = []int{30, 22, 16, 14, 10, 8}
	fraudPerMille   = []int{8, 18, 28, 40, 12, 55}
)

func genMerchants(rng *rand.Rand) []merchant {
	ms := make([]merchant, len(merchantNames))
	mccFor := []int{5462, 5940, 5942, 5812, 5251, 7997}
	delays := rng.Perm(len(captureDelays)) // one each: every bucket of the rules is met
	for i, name := range merchantNames {
		n := 1 + rng.Intn(3)
		var acqs []string
		for _, j := range rng.Perm(len(acquirers))[:n] {
			acqs = append(acqs, acquirers[j].Name)
		}
		ms[i] = merchant{Name: name, CaptureDelay: captureDelays[delays[i]], Acquirers: acqs,
			MCC: mccFor[i], AccountType: accountTypes[rng.Intn(len(accountTypes))]}
	}
	return ms
}

// payment is a row of payments.csv.
type payment struct {
	PSP                            int64
	Merchant, Scheme               string
	Year, Hour, Minute, Day        int
	IsCredit                       bool
	Cents                          int64 // eur_amount in cents
	IPCountry, IssuingCountry      string
	Device, IP, Email, Card        string
	Interaction                    string
	Bin                            int
	Fraud, Refused                 bool
	ACI, AcquirerCountry, Acquirer string
}

// Amount is eur_amount as a float, the value a reader of the CSV gets.
func (p payment) Amount() float64 { return float64(p.Cents) / 100 }

// Month is the calendar month (1-12) of the payment's day of 2023.
func (p payment) Month() int { return monthOf(p.Day) }

var monthDays = []int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

func monthOf(day int) int {
	for m, n := range monthDays {
		if day <= n {
			return m + 1
		}
		day -= n
	}
	return 12
}

func genPayments(rng *rand.Rand, ms []merchant, n int) []payment {
	ps := make([]payment, n)
	seen := map[int64]bool{}
	for i := range ps {
		mi := pick(rng, merchantWeights)
		m := ms[mi]
		p := payment{Merchant: m.Name, Scheme: schemes[pick(rng, []int{40, 30, 20, 10})], Year: 2023,
			Hour: rng.Intn(24), Minute: rng.Intn(60), Day: 1 + rng.Intn(365), IsCredit: rng.Intn(100) < 70,
			Cents: int64(math.Round(math.Exp(rng.NormFloat64()*0.9+4.2) * 100)), Device: devices[rng.Intn(len(devices))],
			Bin: 4000 + rng.Intn(1000), Refused: rng.Intn(100) < 6}
		for p.PSP == 0 || seen[p.PSP] {
			p.PSP = 10000000000 + rng.Int63n(89999999999)
		}
		seen[p.PSP] = true
		p.IssuingCountry = countries[pick(rng, countryWeights)]
		p.IPCountry = p.IssuingCountry
		if rng.Intn(100) < 15 {
			p.IPCountry = countries[pick(rng, countryWeights)]
		}
		p.IP, p.Email, p.Card = token(rng, 15), token(rng, 10), token(rng, 0)
		p.Interaction, p.ACI = "Ecommerce", acis[3+rng.Intn(4)]
		if rng.Intn(100) < 20 {
			p.Interaction, p.ACI = "POS", acis[rng.Intn(3)]
		}
		p.Fraud = p.Interaction == "Ecommerce" && rng.Intn(1000) < fraudPerMille[mi]
		p.Acquirer = m.Acquirers[rng.Intn(len(m.Acquirers))]
		p.AcquirerCountry = acquirerCountry(p.Acquirer)
		ps[i] = p
	}
	return ps
}

func acquirerCountry(name string) string {
	for _, a := range acquirers {
		if a.Name == name {
			return a.Country
		}
	}
	panic("no acquirer " + name)
}

// pick draws an index with the given weights.
func pick(rng *rand.Rand, weights []int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	x := rng.Intn(total)
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

const tokenChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// token is a 22-character hashed-looking id, empty emptyPercent% of the time.
func token(rng *rand.Rand, emptyPercent int) string {
	if rng.Intn(100) < emptyPercent {
		return ""
	}
	b := make([]byte, 22)
	for i := range b {
		b[i] = tokenChars[rng.Intn(len(tokenChars))]
	}
	return string(b)
}

// rule is an entry of fees.json: a nil pointer or an empty list matches
// any value.
type rule struct {
	ID                int          `json:"ID"`
	Scheme            string       `json:"card_scheme"`
	AccountType       []string     `json:"account_type"`
	CaptureDelay      *string      `json:"capture_delay"`
	MonthlyFraudLevel *string      `json:"monthly_fraud_level"`
	MonthlyVolume     *string      `json:"monthly_volume"`
	MCC               []int        `json:"merchant_category_code"`
	IsCredit          *bool        `json:"is_credit"`
	ACI               []string     `json:"aci"`
	FixedAmount       float64      `json:"fixed_amount"`
	Rate              int          `json:"rate"`
	Intracountry      *json.Number `json:"intracountry"`
}

func genRules(rng *rand.Rand, n int) []rule {
	rs := make([]rule, n)
	for i := range rs {
		r := rule{ID: i + 1, Scheme: schemes[rng.Intn(len(schemes))], AccountType: someOf(rng, accountTypes, 50, 3),
			CaptureDelay: maybe(rng, delayBuckets, 60), MonthlyFraudLevel: maybe(rng, fraudBuckets, 75),
			MonthlyVolume: maybe(rng, volumeBuckets, 70), ACI: someOf(rng, acis, 30, 3),
			FixedAmount: float64(rng.Intn(15)) / 100, Rate: 10 + rng.Intn(90)}
		if rng.Intn(100) >= 40 {
			for _, j := range rng.Perm(len(mccs))[:2+rng.Intn(4)] {
				r.MCC = append(r.MCC, mccs[j].Code)
			}
		} else {
			r.MCC = []int{}
		}
		if rng.Intn(100) >= 35 {
			b := rng.Intn(2) == 0
			r.IsCredit = &b
		}
		if rng.Intn(100) >= 60 {
			v := json.Number(fmt.Sprintf("%d.0", rng.Intn(2)))
			r.Intracountry = &v
		}
		rs[i] = r
	}
	return rs
}

// someOf is an empty list anyPercent% of the time, else 1 to max values.
func someOf(rng *rand.Rand, values []string, anyPercent, max int) []string {
	out := []string{}
	if rng.Intn(100) < anyPercent {
		return out
	}
	for _, j := range rng.Perm(len(values))[:1+rng.Intn(max)] {
		out = append(out, values[j])
	}
	return out
}

// maybe is nil (any) nilPercent% of the time, else one of values.
func maybe(rng *rand.Rand, values []string, nilPercent int) *string {
	if rng.Intn(100) < nilPercent {
		return nil
	}
	return &values[rng.Intn(len(values))]
}
