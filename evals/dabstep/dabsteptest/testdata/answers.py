"""Recomputes the DABstep fixture's answers from its files alone, with
Python's csv, json and datetime, for fixture_test.go: a second reading of
manual.md's rules, independent of the Go reference code.

Reads {"dir": ..., "tasks": [{"task_id", "kind", "params"}, ...]} on stdin;
writes {task_id: answer}. With "rules_by_payment": true it writes instead
the IDs of the rules that apply to each payment, by psp_reference.
"""

import csv
import datetime
import json
import os
import re
import sys

NA = "Not Applicable"


def month_of(day):
    return (datetime.date(2023, 1, 1) + datetime.timedelta(days=day - 1)).month


def load(folder):
    ctx = os.path.join(folder, "data", "context")
    with open(os.path.join(ctx, "payments.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["amount"] = float(r["eur_amount"])
        r["day"] = int(r["day_of_year"])
        r["month"] = month_of(r["day"])
    with open(os.path.join(ctx, "fees.json")) as f:
        rules = sorted(json.load(f), key=lambda r: r["ID"])
    with open(os.path.join(ctx, "merchant_data.json")) as f:
        merchants = {m["merchant"]: m for m in json.load(f)}
    return rows, rules, merchants


def monthly(rows):
    volume, fraud = {}, {}
    for r in rows:
        key = (r["merchant"], r["month"])
        volume[key] = volume.get(key, 0.0) + r["amount"]
        if r["has_fraudulent_dispute"] == "True":
            fraud[key] = fraud.get(key, 0.0) + r["amount"]
    return {k: (v, 100 * fraud.get(k, 0.0) / v) for k, v in volume.items()}


def bound(text):
    number = float(re.sub(r"[k%]", "", text))
    return number * 1000 if text.endswith("k") else number


def in_range(spec, value):
    if spec.startswith("<"):
        return value < bound(spec[1:])
    if spec.startswith(">"):
        return value > bound(spec[1:])
    low, high = spec.split("-")
    return bound(low) <= value <= bound(high)


def delay_ok(spec, delay):
    if spec in ("immediate", "manual") or not delay.isdigit():
        return spec == delay
    days = int(delay)
    return {"<3": days < 3, "3-5": 3 <= days <= 5, ">5": days > 5}[spec]


def applies(rule, row, merchant, stats):
    volume, fraud_level = stats[(row["merchant"], row["month"])]
    checks = [
        rule["card_scheme"] == row["card_scheme"],
        not rule["account_type"] or merchant["account_type"] in rule["account_type"],
        rule["capture_delay"] is None or delay_ok(rule["capture_delay"], merchant["capture_delay"]),
        rule["monthly_volume"] is None or in_range(rule["monthly_volume"], volume),
        rule["monthly_fraud_level"] is None or in_range(rule["monthly_fraud_level"], fraud_level),
        not rule["merchant_category_code"] or merchant["merchant_category_code"] in rule["merchant_category_code"],
        rule["is_credit"] is None or rule["is_credit"] == (row["is_credit"] == "True"),
        not rule["aci"] or row["aci"] in rule["aci"],
        rule["intracountry"] is None or bool(rule["intracountry"]) == (row["issuing_country"] == row["acquirer_country"]),
    ]
    return all(checks)


def fee(rule, value):
    return rule["fixed_amount"] + rule["rate"] * value / 10000


def answer(kind, p, rows, rules, merchants, stats):
    if kind == "count_credit":
        return str(sum(1 for r in rows if r["merchant"] == p["merchant"] and r["is_credit"] == "True"))
    if kind == "mean_amount":
        values = [r["amount"] for r in rows if r["card_scheme"] == p["card_scheme"]]
        return "%.2f" % (sum(values) / len(values)) if values else NA
    if kind == "top_issuing_country":
        counts = {}
        for r in rows:
            counts[r["issuing_country"]] = counts.get(r["issuing_country"], 0) + 1
        return sorted(counts, key=lambda c: (-counts[c], c))[0]
    if kind == "fraud_merchants":
        month = int(p["month"])
        return ", ".join(sorted({r["merchant"] for r in rows if r["month"] == month and r["has_fraudulent_dispute"] == "True"}))
    if kind == "fee_ids_account_aci":
        return ", ".join(str(f["ID"]) for f in rules
                         if (not f["account_type"] or p["account_type"] in f["account_type"]) and (not f["aci"] or p["aci"] in f["aci"]))
    if kind == "average_credit_fee":
        fees = [fee(f, float(p["amount"])) for f in rules if f["card_scheme"] == p["card_scheme"] and f["is_credit"] in (None, True)]
        return "%.6f" % (sum(fees) / len(fees)) if fees else NA
    if kind == "fee_ids_day":
        m, day = merchants[p["merchant"]], int(p["day"])
        ids = {f["ID"] for r in rows if r["merchant"] == p["merchant"] and r["day"] == day for f in rules if applies(f, r, m, stats)}
        return ", ".join(str(i) for i in sorted(ids))
    if kind in ("total_fees", "total_fees_unknown"):
        if p["merchant"] not in merchants:
            return NA
        m, month, total = merchants[p["merchant"]], int(p["month"]), 0.0
        for r in rows:
            if r["merchant"] == p["merchant"] and r["month"] == month:
                charged = [f for f in rules if applies(f, r, m, stats)]
                if charged:
                    total += fee(charged[0], r["amount"])
        return "%.2f" % total
    raise ValueError("unknown kind " + kind)


if __name__ == "__main__":
    req = json.load(sys.stdin)
    rows, rules, merchants = load(req["dir"])
    stats = monthly(rows)
    if req.get("rules_by_payment"):
        json.dump({r["psp_reference"]: [f["ID"] for f in rules if applies(f, r, merchants[r["merchant"]], stats)] for r in rows}, sys.stdout)
        sys.exit(0)
    json.dump({t["task_id"]: answer(t["kind"], t["params"] or {}, rows, rules, merchants, stats) for t in req["tasks"]}, sys.stdout)
