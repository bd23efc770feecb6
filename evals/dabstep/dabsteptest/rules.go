package dabsteptest

import (
	"strconv"
	"strings"
)

// The reference semantics of a fee rule, as manual.md states them.

// monthKey is a merchant's calendar month.
type monthKey struct {
	Merchant string
	Month    int
}

// monthStats are a merchant's month totals: its volume and its fraud
// level (the fraudulent share of the volume, in percent).
type monthStats struct{ Volume, Fraud float64 }

func monthlyStats(ps []payment) map[monthKey]monthStats {
	type sums struct{ all, fraud int64 }
	cents := map[monthKey]*sums{}
	for _, p := range ps {
		k := monthKey{p.Merchant, p.Month()}
		if cents[k] == nil {
			cents[k] = &sums{}
		}
		cents[k].all += p.Cents
		if p.Fraud {
			cents[k].fraud += p.Cents
		}
	}
	out := map[monthKey]monthStats{}
	for k, s := range cents {
		out[k] = monthStats{Volume: float64(s.all) / 100, Fraud: float64(s.fraud) / float64(s.all) * 100}
	}
	return out
}

// applies reports whether r applies to p of merchant m in a month with
// stats st.
func (r rule) applies(p payment, m merchant, st monthStats) bool {
	intra := p.IssuingCountry == p.AcquirerCountry
	return r.Scheme == p.Scheme &&
		anyOrHas(r.AccountType, m.AccountType) &&
		(r.CaptureDelay == nil || delayMatches(*r.CaptureDelay, m.CaptureDelay)) &&
		(r.MonthlyFraudLevel == nil || inBucket(*r.MonthlyFraudLevel, st.Fraud)) &&
		(r.MonthlyVolume == nil || inBucket(*r.MonthlyVolume, st.Volume)) &&
		(len(r.MCC) == 0 || hasInt(r.MCC, m.MCC)) &&
		(r.IsCredit == nil || *r.IsCredit == p.IsCredit) &&
		anyOrHas(r.ACI, p.ACI) &&
		(r.Intracountry == nil || (string(*r.Intracountry) == "1.0") == intra)
}

// fee is fixed_amount + rate * eur_amount / 10000.
func (r rule) fee(amount float64) float64 { return r.FixedAmount + float64(r.Rate)*amount/10000 }

func anyOrHas(list []string, v string) bool {
	if len(list) == 0 {
		return true
	}
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func hasInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// delayMatches: "immediate" and "manual" match themselves; "<3", "3-5"
// and ">5" match a merchant's delay in days.
func delayMatches(bucket, delay string) bool {
	days, err := strconv.Atoi(delay)
	switch bucket {
	case "<3":
		return err == nil && days < 3
	case "3-5":
		return err == nil && days >= 3 && days <= 5
	case ">5":
		return err == nil && days > 5
	}
	return bucket == delay
}

// inBucket reads "<2k", "2k-5k", ">5k", "<1%", "1%-3%", ">3%": below the
// low bound, within both bounds, above the high bound.
func inBucket(bucket string, v float64) bool {
	switch {
	case strings.HasPrefix(bucket, "<"):
		return v < bucketNumber(bucket[1:])
	case strings.HasPrefix(bucket, ">"):
		return v > bucketNumber(bucket[1:])
	}
	lo, hi, _ := strings.Cut(bucket, "-")
	return v >= bucketNumber(lo) && v <= bucketNumber(hi)
}

func bucketNumber(s string) float64 {
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "k"):
		s, mult = strings.TrimSuffix(s, "k"), 1000
	case strings.HasSuffix(s, "%"):
		s = strings.TrimSuffix(s, "%")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic("bad bucket bound " + s)
	}
	return f * mult
}
