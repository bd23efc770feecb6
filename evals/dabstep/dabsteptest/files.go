package dabsteptest

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"strconv"
)

// paymentColumns are payments.csv's columns, in the real file's order.
var paymentColumns = []string{
	"psp_reference", "merchant", "card_scheme", "year", "hour_of_day", "minute_of_hour", "day_of_year", "is_credit",
	"eur_amount", "ip_country", "issuing_country", "device_type", "ip_address", "email_address", "card_number",
	"shopper_interaction", "card_bin", "has_fraudulent_dispute", "is_refused_by_adyen", "aci", "acquirer_country",
}

// pyBool is a bool as pandas writes it.
func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

func writePayments(path string, ps []payment) error {
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	_ = cw.Write(paymentColumns)
	for _, p := range ps {
		_ = cw.Write([]string{
			strconv.FormatInt(p.PSP, 10), p.Merchant, p.Scheme, strconv.Itoa(p.Year), strconv.Itoa(p.Hour),
			strconv.Itoa(p.Minute), strconv.Itoa(p.Day), pyBool(p.IsCredit), strconv.FormatFloat(p.Amount(), 'f', -1, 64),
			p.IPCountry, p.IssuingCountry, p.Device, p.IP, p.Email, p.Card, p.Interaction, strconv.Itoa(p.Bin),
			pyBool(p.Fraud), pyBool(p.Refused), p.ACI, p.AcquirerCountry,
		})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func writeJSON(path string, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // ">3%" as it is, not "\u003e3%"
	enc.SetIndent("", "    ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// writeIndexed writes a CSV with pandas' unnamed index column first.
func writeIndexed(path string, header []string, rows [][]string) error {
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	_ = cw.Write(append([]string{""}, header...))
	for i, r := range rows {
		_ = cw.Write(append([]string{strconv.Itoa(i)}, r...))
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func writeMCCs(path string) error {
	var rows [][]string
	for _, m := range mccs {
		rows = append(rows, []string{strconv.Itoa(m.Code), m.Description})
	}
	return writeIndexed(path, []string{"mcc", "description"}, rows)
}

func writeAcquirers(path string) error {
	var rows [][]string
	for _, a := range acquirers {
		rows = append(rows, []string{a.Name, a.Country})
	}
	return writeIndexed(path, []string{"acquirer", "country_code"}, rows)
}

// writeTasks writes a tasks file; without answers, as all.jsonl has them
// (every answer "").
func writeTasks(path string, ts []Task, answers bool) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, t := range ts {
		line := t.Task
		if !answers {
			line.Answer = ""
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
