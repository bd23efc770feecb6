package dabsteptest

// manual is manual.md: the rules the hard tasks need, in prose, as an
// analyst gets them. The reference code (rules.go) implements exactly
// these.
const manual = `# Merchant Payments Handbook

This handbook explains how the payment processor charges the merchants it
serves. Read it before answering any question about fees.

## 1. Merchants

Every merchant is described in merchant_data.json:

- merchant: the merchant's name, as in payments.csv.
- capture_delay: how long after authorisation the merchant captures a
  payment: "immediate", "manual", or a number of days ("1", "2", "4", "7").
- acquirer: the list of acquiring banks the merchant works with (see
  acquirer_countries.csv for their countries).
- merchant_category_code: the MCC of the merchant's business (see
  merchant_category_codes.csv).
- account_type: R (retail), D (digital), H (hospitality), F (franchise),
  S (subscription) or O (other).

## 2. Authorization Characteristics Indicator (ACI)

The aci column of payments.csv says how a payment was made:

| ACI | meaning |
| --- | --- |
| A | card in the shop, not authenticated |
| B | card in the shop, authenticated |
| C | card in the shop, paid with a phone wallet |
| D | online, card stored with the merchant |
| E | online, a recurring payment |
| F | online, authenticated by the card's issuer |
| G | online, not authenticated |

## 3. Monthly figures

Two figures of a merchant change from month to month; a month is a calendar
month of 2023 (day_of_year 1 is January 1st, and 2023 is not a leap year):

- monthly volume: the sum of eur_amount of all the merchant's transactions in
  the month.
- monthly fraud level: the eur_amount of the merchant's transactions in the
  month that have a fraudulent dispute (has_fraudulent_dispute), divided by
  its monthly volume, in percent.

Every transaction in payments.csv counts, refused or not.

## 4. Fee rules

fees.json lists the fee rules. A rule applies to a transaction when every
one of its fields matches:

- card_scheme: the transaction's card scheme.
- account_type: a list; the merchant's account type must be in it.
- capture_delay: "immediate" and "manual" match merchants with that capture
  delay; "<3" matches a delay of fewer than 3 days, "3-5" a delay of 3 to 5
  days, ">5" a delay of more than 5 days.
- monthly_volume: "<2k" is below 2,000 EUR, "2k-5k" from 2,000 to 5,000 EUR,
  ">5k" above 5,000 EUR, for the merchant's volume in the transaction's
  month.
- monthly_fraud_level: "<1%" is below 1%, "1%-3%" from 1% to 3%, ">3%"
  above 3%, for the merchant's fraud level in the transaction's month.
- merchant_category_code: a list; the merchant's MCC must be in it.
- is_credit: true for credit cards, false for debit cards.
- aci: a list; the transaction's ACI must be in it.
- intracountry: 1.0 when the card's issuing country is the acquirer's
  country (issuing_country equals acquirer_country), 0.0 when they differ.

A field that is null, or an empty list, matches every value.

### The fee

The fee of a transaction under a rule is

    fee = fixed_amount + rate * transaction_value / 10000

where fixed_amount is in EUR, rate is in basis points of the value, and
transaction_value is the transaction's eur_amount.

When several rules apply to a transaction, the one with the lowest ID is
charged. A transaction that no rule applies to costs nothing.
`

// paymentsReadme is payments-readme.md: what each column of payments.csv
// holds.
const paymentsReadme = `# payments.csv

One row per payment of 2023.

- psp_reference: the payment's unique id.
- merchant: the merchant's name.
- card_scheme: the card network (OrbitPay, CardStream, PayWave, Meridian).
- year: the year of the payment.
- hour_of_day, minute_of_hour: when the payment was made.
- day_of_year: the day of the year, 1 to 365.
- is_credit: True for a credit card, False for a debit card.
- eur_amount: the value of the payment in EUR.
- ip_country: the country of the shopper's IP address.
- issuing_country: the country of the bank that issued the card.
- device_type: the shopper's device.
- ip_address, email_address, card_number: hashed; may be empty.
- shopper_interaction: Ecommerce (online) or POS (in the shop).
- card_bin: the first digits of the card number.
- has_fraudulent_dispute: True when the payment was disputed as fraud.
- is_refused_by_adyen: True when the payment was refused.
- aci: the Authorization Characteristics Indicator (see the manual).
- acquirer_country: the country of the acquiring bank.
`
