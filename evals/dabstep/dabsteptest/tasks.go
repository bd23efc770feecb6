package dabsteptest

import (
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/evals/dabstep"
)

// NotApplicable is the answer the guidelines ask for when a question has
// none.
const NotApplicable = "Not Applicable"

// Task is a generated task, and what it asks in machine form: Kind and
// Params let a test recompute the answer another way.
type Task struct {
	dabstep.Task
	Kind   string            `json:"kind"`
	Params map[string]string `json:"params"`
}

const notApplicable = " If the question has no relevant or applicable answer, respond with 'Not Applicable'."

var guidelines = map[string]string{
	"number":  "Answer must be just a number." + notApplicable,
	"round2":  "Answer must be just a number rounded to 2 decimals." + notApplicable,
	"eur6":    "Answer must be just a number expressed in EUR rounded to 6 decimals." + notApplicable,
	"country": "Answer must be just the country code." + notApplicable,
	"list":    "Answer must be a comma separated list of values, e.g. A, B, C; an empty list is an empty string." + notApplicable,
}

var monthNames = []string{"January", "February", "March", "April", "May", "June", "July", "August",
	"September", "October", "November", "December"}

// world is the generated data the reference answers are computed from.
type world struct {
	rng       *rand.Rand
	merchants []merchant
	payments  []payment
	rules     []rule
	stats     map[monthKey]monthStats
}

func (w *world) merchant(name string) merchant {
	for _, m := range w.merchants {
		if m.Name == name {
			return m
		}
	}
	panic("no merchant " + name)
}

// tasks are five easy and five hard tasks, ids "1" to "10".
func (w *world) tasks() []Task {
	m := w.merchants[w.rng.Intn(len(w.merchants))].Name
	ts := []Task{
		w.countCredit(m), w.meanAmount(schemes[w.rng.Intn(len(schemes))]), w.topIssuingCountry(),
		w.fraudMerchants(1 + w.rng.Intn(12)), w.meanAmount("StarCard"),
		w.feeIDsForAccountAndACI(accountTypes[w.rng.Intn(len(accountTypes))], acis[w.rng.Intn(len(acis))]),
		w.averageCreditFee(schemes[w.rng.Intn(len(schemes))], 50), w.feeIDsOnDay(), w.totalFees(m, 1+w.rng.Intn(12)),
		w.totalFeesOfUnknown("Saffron_Tailors", 3),
	}
	for i := range ts {
		ts[i].ID = strconv.Itoa(i + 1)
		ts[i].Level = "easy"
		if i >= 5 {
			ts[i].Level = "hard"
		}
	}
	return ts
}

func task(kind, guideline, question, answer string, params map[string]string) Task {
	return Task{Task: dabstep.Task{Question: question, Guidelines: guidelines[guideline], Answer: answer}, Kind: kind, Params: params}
}

func (w *world) countCredit(m string) Task {
	n := 0
	for _, p := range w.payments {
		if p.Merchant == m && p.IsCredit {
			n++
		}
	}
	return task("count_credit", "number", fmt.Sprintf("How many credit card transactions did %s process in 2023?", m),
		strconv.Itoa(n), map[string]string{"merchant": m})
}

func (w *world) meanAmount(scheme string) Task {
	var sum int64
	n := 0
	for _, p := range w.payments {
		if p.Scheme == scheme {
			sum, n = sum+p.Cents, n+1
		}
	}
	answer := NotApplicable
	if n > 0 {
		answer = strconv.FormatFloat(float64(sum)/100/float64(n), 'f', 2, 64)
	}
	return task("mean_amount", "round2", fmt.Sprintf("What is the average transaction value (eur_amount) of %s transactions?", scheme),
		answer, map[string]string{"card_scheme": scheme})
}

func (w *world) topIssuingCountry() Task {
	count := map[string]int{}
	for _, p := range w.payments {
		count[p.IssuingCountry]++
	}
	best := ""
	for _, c := range countries {
		if count[c] > count[best] || (count[c] == count[best] && c < best) {
			best = c
		}
	}
	return task("top_issuing_country", "country",
		"Which issuing country has the most transactions (the first in alphabetical order on a tie)?", best, nil)
}

func (w *world) fraudMerchants(month int) Task {
	set := map[string]bool{}
	for _, p := range w.payments {
		if p.Fraud && p.Month() == month {
			set[p.Merchant] = true
		}
	}
	return task("fraud_merchants", "list", fmt.Sprintf("Which merchants had at least one fraudulent dispute on a transaction in %s 2023?", monthNames[month-1]),
		joinSorted(set), map[string]string{"month": strconv.Itoa(month)})
}

func (w *world) feeIDsForAccountAndACI(account, aci string) Task {
	var ids []int
	for _, r := range w.rules {
		if anyOrHas(r.AccountType, account) && anyOrHas(r.ACI, aci) {
			ids = append(ids, r.ID)
		}
	}
	return task("fee_ids_account_aci", "list", fmt.Sprintf("What are the IDs of the fee rules that apply to account_type = %s and aci = %s?", account, aci),
		joinInts(ids), map[string]string{"account_type": account, "aci": aci})
}

func (w *world) averageCreditFee(scheme string, amount float64) Task {
	sum, n := 0.0, 0
	for _, r := range w.rules {
		if r.Scheme == scheme && (r.IsCredit == nil || *r.IsCredit) {
			sum, n = sum+r.fee(amount), n+1
		}
	}
	answer := NotApplicable
	if n > 0 {
		answer = strconv.FormatFloat(sum/float64(n), 'f', 6, 64)
	}
	a := strconv.FormatFloat(amount, 'f', -1, 64)
	return task("average_credit_fee", "eur6", fmt.Sprintf("For credit transactions, what would be the average fee that the card scheme %s would charge for a transaction value of %s EUR?", scheme, a),
		answer, map[string]string{"card_scheme": scheme, "amount": a})
}

// feeIDsOnDay asks for the rules that apply to a merchant's payments on a
// day, for a merchant and day where some do.
func (w *world) feeIDsOnDay() Task {
	for {
		p := w.payments[w.rng.Intn(len(w.payments))]
		set := map[int]bool{}
		for _, q := range w.payments {
			if q.Merchant == p.Merchant && q.Day == p.Day {
				for _, r := range w.applying(q) {
					set[r.ID] = true
				}
			}
		}
		if len(set) == 0 {
			continue
		}
		var ids []int
		for id := range set {
			ids = append(ids, id)
		}
		sort.Ints(ids)
		return task("fee_ids_day", "list", fmt.Sprintf("What are the IDs of the fee rules that apply to %s's transactions on day %d of 2023?", p.Merchant, p.Day),
			joinInts(ids), map[string]string{"merchant": p.Merchant, "day": strconv.Itoa(p.Day)})
	}
}

// applying are the rules that apply to a payment, by ID.
func (w *world) applying(p payment) []rule {
	m := w.merchant(p.Merchant)
	st := w.stats[monthKey{p.Merchant, p.Month()}]
	var out []rule
	for _, r := range w.rules {
		if r.applies(p, m, st) {
			out = append(out, r)
		}
	}
	return out
}

func (w *world) totalFees(m string, month int) Task {
	total := 0.0
	for _, p := range w.payments {
		if p.Merchant == m && p.Month() == month {
			if rs := w.applying(p); len(rs) > 0 {
				total += rs[0].fee(p.Amount())
			}
		}
	}
	return task("total_fees", "round2", fmt.Sprintf("What were the total fees %s paid for its transactions in %s 2023, in EUR?", m, monthNames[month-1]),
		strconv.FormatFloat(total, 'f', 2, 64), map[string]string{"merchant": m, "month": strconv.Itoa(month)})
}

func (w *world) totalFeesOfUnknown(m string, month int) Task {
	t := w.totalFees(m, month)
	t.Answer, t.Kind = NotApplicable, "total_fees_unknown"
	return t
}

func joinSorted(set map[string]bool) string {
	var s []string
	for k := range set {
		s = append(s, k)
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}
